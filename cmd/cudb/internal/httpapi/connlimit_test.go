package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
)

// keepAlive opens a connection from the loopback address from (127.x.y.z)
// and completes one GET /healthz on it: the connection is then an idle
// keep-alive, as a browser or a pooled client leaves it.
func keepAlive(t *testing.T, addr, from string) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from %s: %v", from, err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("keep-alive GET: %d close=%v", resp.StatusCode, resp.Close)
	}
	return c, r
}

// getFrom does one GET /healthz on a new connection from from and returns the
// status, or the error that ended the connection.
func getFrom(t *testing.T, addr, from string) (int, error) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute)) // a guard against a broken server only
	fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestConnectionCapsBusy: past the total cap, with every connection busy
// (they have sent nothing yet, so none is idle), no connection is dropped
// and the new one is answered 503.
func TestConnectionCapsBusy(t *testing.T) {
	srv := &httpapi.Server{DB: openDB(t, testDBPath(t)), Log: io.Discard, MaxConns: 3, MaxConnsPerClient: 100,
		ReadHeaderTimeout: time.Minute}
	addr := strings.TrimPrefix(start(t, srv), "http://")
	var busy []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		busy = append(busy, c)
	}
	if status, err := getFrom(t, addr, "127.0.0.1"); err != nil || status != http.StatusServiceUnavailable {
		t.Fatalf("a fourth connection past the cap: status %d, %v; want 503", status, err)
	}
	// The busy ones were kept: each is still served.
	for i, c := range busy {
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
			t.Errorf("busy connection %d was dropped: %v", i, err)
		}
	}
}

// At the total cap, all of it idle keep-alives (from many clients), a new
// client is served: the longest-idle keep-alive is closed for it.
func TestConnCapShedsIdleKeepAlives(t *testing.T) {
	const capTotal = 240
	srv := &httpapi.Server{DB: openDB(t, testDBPath(t)), Log: io.Discard, MaxConns: capTotal, MaxConnsPerClient: 8}
	addr := strings.TrimPrefix(start(t, srv), "http://")
	closed := make(chan int, capTotal)
	for i := 0; i < capTotal; i++ {
		// Thirty clients, eight keep-alives each: every client at its own cap.
		_, r := keepAlive(t, addr, fmt.Sprintf("127.0.0.%d", 2+i/8))
		go func() {
			r.ReadByte() // returns once the server closes the connection
			closed <- i
		}()
	}
	for n := 0; n < 3; n++ {
		// A new client, which stays as a keep-alive too: the server stays
		// at its cap, and each new client sheds one idle keep-alive.
		keepAlive(t, addr, fmt.Sprintf("127.0.1.%d", 1+n))
		<-closed
	}
	// And a plain request from yet another client is served.
	if status, err := getFrom(t, addr, "127.0.2.1"); err != nil || status != 200 {
		t.Fatalf("new client at the cap: status %d, %v", status, err)
	}
	<-closed
}

// A client at its own cap of idle keep-alives sheds its own, not others'.
// When its connections are all busy, its next one is refused with 503,
// while another client is still served.
func TestConnCapPerClient(t *testing.T) {
	const perClient = 3
	srv := &httpapi.Server{DB: openDB(t, testDBPath(t)), Log: io.Discard, MaxConns: 100, MaxConnsPerClient: perClient,
		ReadHeaderTimeout: time.Minute}
	addr := strings.TrimPrefix(start(t, srv), "http://")
	other, _ := keepAlive(t, addr, "127.0.0.3")
	for i := 0; i < perClient; i++ {
		keepAlive(t, addr, "127.0.0.2")
	}
	if status, err := getFrom(t, addr, "127.0.0.2"); err != nil || status != 200 {
		t.Fatalf("a client at its cap of idle keep-alives: status %d, %v", status, err)
	}
	// The other client's keep-alive was not the one shed.
	fmt.Fprint(other, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(other), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("another client's keep-alive was shed: %v", err)
	}

	// Busy: connections that have sent part of a request's headers.
	for i := 0; i < perClient; i++ {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.4")}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\n")
	}
	type result struct {
		status int
		err    error
	}
	refused := make(chan result, 1)
	go func() {
		status, err := getFrom(t, addr, "127.0.0.4")
		refused <- result{status, err}
	}()
	// Another client is served while that one waits for a slot.
	if status, err := getFrom(t, addr, "127.0.0.5"); err != nil || status != 200 {
		t.Errorf("another client while one is at its cap: status %d, %v", status, err)
	}
	if r := <-refused; r.err != nil || r.status != http.StatusServiceUnavailable {
		t.Errorf("a client past its cap with none idle: status %d, %v; want 503", r.status, r.err)
	}
}
