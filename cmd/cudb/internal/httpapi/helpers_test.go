package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/querytest"
)

// testDBPath writes the query fixture plus a few GPUs and a built_from
// stamp, so every endpoint has something to show.
func testDBPath(t testing.TB) string {
	t.Helper()
	f := querytest.Facts()
	have := map[string]bool{}
	for _, g := range f.GPUs {
		have[g.Name] = true
	}
	for _, g := range []db.GPU{
		{Name: "Tesla T4", ComputeCapability: "7.5", Architecture: "Turing"},
		{Name: "NVIDIA A100", ComputeCapability: "8.0", Architecture: "Ampere"},
		{Name: "GeForce RTX 4090", ComputeCapability: "8.9", Architecture: "Ada Lovelace"},
		{Name: "Tesla K80", ComputeCapability: "3.7", Architecture: "Kepler"},
	} {
		if !have[g.Name] {
			g.Provenance = db.Provenance{Source: "fixture", URL: "https://example.test/gpus", Ref: g.Name}
			f.GPUs = append(f.GPUs, g)
		}
	}
	path := filepath.Join(t.TempDir(), "cudb.db")
	srcs := []db.SourceInfo{{Name: "fixture", URL: "https://example.test/torch", SHA256: "abc123", Rows: 42},
		{Name: "fixture-tf", URL: "https://example.test/tf", SHA256: "def456", Rows: 4}}
	if err := db.Write(context.Background(), path, f, srcs, map[string]string{"built_from": "feedface"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func openDB(t testing.TB, path string) *db.DB {
	t.Helper()
	d, err := db.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// watch, when set, is closed by the first write after which the
	// buffer holds watchFor: a test waits on it instead of polling.
	watch    chan struct{}
	watchFor string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.watch != nil && bytes.Contains(b.buf.Bytes(), []byte(b.watchFor)) {
		close(b.watch)
		b.watch = nil
	}
	return n, err
}

// watching returns a buffer whose channel is closed once s is written.
func watching(s string) (*syncBuffer, <-chan struct{}) {
	ch := make(chan struct{})
	return &syncBuffer{watch: ch, watchFor: s}, ch
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start serves srv on a loopback port and returns its base URL; the
// server stops (gracefully) when the test ends.
func start(t testing.TB, srv *httpapi.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("the server did not shut down")
		}
	})
	return "http://" + ln.Addr().String()
}

// readTestdata reads a real report fixture of the report parsers.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "internal", "host", "report", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// inFlight opens a connection to addr and sends a POST whose handler is
// known to be running when it returns: the request asks `Expect:
// 100-continue`, and the server answers "100 Continue" only once the
// handler reads the body. It then sends the first sent bytes of body
// (all of it when sent >= len(body)) and returns the open connection.
func inFlight(t testing.TB, addr, path, contentType string, body []byte, sent int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", path, contentType, len(body))
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // only a guard against a broken server
	status := make([]byte, len("HTTP/1.1 100 Continue\r\n\r\n"))
	if _, err := io.ReadFull(conn, status); err != nil || string(status) != "HTTP/1.1 100 Continue\r\n\r\n" {
		t.Fatalf("waiting for 100 Continue: %q %v", status, err)
	}
	conn.SetReadDeadline(time.Time{})
	if sent > len(body) {
		sent = len(body)
	}
	if _, err := conn.Write(body[:sent]); err != nil {
		t.Fatal(err)
	}
	return conn
}
