package httpapi_test

import (
	"bytes"
	"context"
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
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
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
