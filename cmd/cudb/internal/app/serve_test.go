package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/internal/errs"

	"github.com/cudb/cudb/query/querytest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// lines, when set, receives each complete line written: a test
	// waits on it instead of polling.
	lines chan string
	part  []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines != nil {
		l.part = append(l.part, p...)
		for {
			i := bytes.IndexByte(l.part, '\n')
			if i < 0 {
				break
			}
			select {
			case l.lines <- string(l.part[:i]):
			default: // nobody waits any more
			}
			l.part = l.part[i+1:]
		}
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServeCommand(t *testing.T) {
	path := querytest.Path(t)
	errOut := &lockedBuffer{lines: make(chan string, 16)}
	s := &cli.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: errOut}
	root := cli.NewRootCmd(NewFactory(s))
	root.SetArgs([]string{"--db", path, "serve", "--addr", "127.0.0.1:0", "--workers", "2", "--max-conns-per-client", "1"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()

	addr := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)`)
	var base string
	guard := time.After(time.Minute) // only a guard against a server that never listens
	for base == "" {
		select {
		case line := <-errOut.lines:
			if m := addr.FindStringSubmatch(line); m != nil {
				base = "http://" + m[1]
			}
		case err := <-done:
			t.Fatalf("serve ended before listening: %v: %s", err, errOut)
		case <-guard:
			cancel()
			t.Fatalf("no listening line: %s", errOut)
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("no listening line: %s", errOut)
	}
	resp, err := http.Get(base + "/v1/resolve?req=torch==2.1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"torch": "2.1.0+cu121"`) {
		t.Errorf("resolve: %d %s", resp.StatusCode, body)
	}
	// The hooks are wired to the real pin, verify and explain code.
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/v1/pin?req=torch==2.1.0&cuda=11.8&format=pip", "", 200, "torch==2.1.0+cu118"},
		{"GET", "/v1/pin?req=torch==2.1.0&cuda=11.8", "", 200, `"format": "requirements"`},
		{"GET", "/v1/pin?req=torch==2.1.0&format=yaml", "", 400, "unknown format"},
		{"POST", "/v1/explain", "Torch not compiled with CUDA enabled", 200, "cpu_only_wheel"},
		{"POST", "/v1/verify", "PyTorch version: 2.1.0+cu121\nIs CUDA available: True\nCUDA used to build PyTorch: 12.1\n", 200, `"findings"`},
		{"POST", "/v1/verify", "", 400, "usage"},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(strings.ReplaceAll(tc.body, "\\n", "\n")))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, resp.StatusCode, body)
		}
	}
	// --max-conns-per-client 1 reached the server: with this client's one
	// connection busy (a request in its handler: the server answered its
	// Expect: 100-continue, so it is not an idle keep-alive to shed), its
	// next one is refused.
	http.DefaultClient.CloseIdleConnections()
	busy, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(busy, "POST /v1/explain HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n")
	cont := make([]byte, len("HTTP/1.1 100 Continue\r\n\r\n"))
	busy.SetReadDeadline(time.Now().Add(time.Minute)) // a guard only
	if _, err := io.ReadFull(busy, cont); err != nil || !strings.HasPrefix(string(cont), "HTTP/1.1 100") {
		t.Fatalf("busy connection: waiting for 100 Continue: %q %v", cont, err)
	}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := fresh.Get(base + "/healthz"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a second connection with --max-conns-per-client 1: %v %v, want 503", resp, err)
	} else {
		resp.Body.Close()
	}
	busy.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
	if !strings.Contains(errOut.String(), "GET /v1/resolve?req=torch==2.1 200 ") {
		t.Errorf("no request log line on stderr:\n%s", errOut)
	}
}

func TestServeFlags(t *testing.T) {
	s, _, _ := cli.TestStreams("")
	for _, flag := range []string{"--workers", "--handles"} { // --handles: the old name
		root := cli.NewRootCmd(NewFactory(s))
		root.SetArgs([]string{"serve", flag, "-1"})
		if err := root.Execute(); errs.CodeOf(err) != errs.CodeUsage || !strings.Contains(err.Error(), "--workers must be 0 or more") {
			t.Errorf("%s -1: %v", flag, err)
		}
	}
	for _, flag := range []string{"--max-conns", "--max-conns-per-client"} {
		root := cli.NewRootCmd(NewFactory(s))
		root.SetArgs([]string{"serve", flag, "-1"})
		if err := root.Execute(); errs.CodeOf(err) != errs.CodeUsage {
			t.Errorf("%s -1: %v", flag, err)
		}
	}
	for _, o := range []string{"example.org", "https://example.org/", "https://example.org/app", "ftp://x", ""} {
		root := cli.NewRootCmd(NewFactory(s))
		root.SetArgs([]string{"serve", "--allow-origin", o})
		if err := root.Execute(); errs.CodeOf(err) != errs.CodeUsage {
			t.Errorf("--allow-origin %q: %v", o, err)
		}
	}
	for _, o := range []string{"https://example.org", "http://localhost:3000", "*"} {
		if !validOrigin(o) {
			t.Errorf("%s refused", o)
		}
	}
	root := cli.NewRootCmd(NewFactory(s))
	root.SetArgs([]string{"--db", querytest.Path(t), "serve", "--addr", "256.0.0.1:1"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "failed to listen") {
		t.Errorf("bad addr: %v", err)
	}
}

func TestGenSiteCommand(t *testing.T) {
	s, out, _ := cli.TestStreams("")
	dir := filepath.Join(t.TempDir(), "site")
	root := cli.NewRootCmd(NewFactory(s))
	root.SetArgs([]string{"--db", querytest.Path(t), "--json", "gen", "site", "--out", dir})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var res GenSiteResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Files) == 0 {
		t.Fatalf("%v %s", err, out)
	}
	for _, f := range res.Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	root = cli.NewRootCmd(NewFactory(s))
	root.SetArgs([]string{"gen", "site"})
	if err := root.Execute(); errs.CodeOf(err) != errs.CodeUsage {
		t.Errorf("without --out: %v", err)
	}
}
