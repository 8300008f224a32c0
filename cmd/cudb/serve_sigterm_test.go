package main

import (
	"bufio"
	"io"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM while a request is still running past the grace period: the
// request is cut and cudb serve exits 0, as docs/http.md says.
func TestServeSIGTERMDuringLongRequest(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--grace", "300ms")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		if m := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)`).FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatal("no listening line")
	}
	go io.Copy(io.Discard, stderr)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The body never finishes arriving: the request stays in flight. The
	// server answers "100 Continue" once the handler reads the body, so
	// the signal below comes while the request is being served.
	io.WriteString(conn, "POST /v1/explain HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
	cont := make([]byte, len("HTTP/1.1 100 Continue\r\n\r\n"))
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // a guard only
	if _, err := io.ReadFull(conn, cont); err != nil || !strings.HasPrefix(string(cont), "HTTP/1.1 100") {
		t.Fatalf("waiting for 100 Continue: %q %v", cont, err)
	}
	io.WriteString(conn, "no kernel image")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("cudb serve exited with %v, want status 0", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("cudb serve did not exit after SIGTERM")
	}
	if strings.Contains(addr, "0.0.0.0") {
		t.Error("bound beyond loopback")
	}
}
