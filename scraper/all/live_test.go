package all_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/fetch"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// TestLiveFailuresKeepData drives every real source's live scrape against
// an httptest server that misbehaves in each way upstream can, and checks
// that the source fails loudly and its previous facts stay exactly as they
// were. (Each source's happy and malformed pages are tested in its own
// package, with fixtures in its live format.)
func TestLiveFailuresKeepData(t *testing.T) {
	big := bytes.Repeat([]byte("<p>row</p>\n"), 20000)
	modes := map[string]http.HandlerFunc{
		"500 every time": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) },
		"404":            func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"timeout": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second):
			}
		},
		"truncated body": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			w.Write([]byte("| a | b |\n|---|---|\n"))
		},
		"over the size cap": func(w http.ResponseWriter, r *http.Request) { w.Write(big) },
		"empty page":        func(w http.ResponseWriter, r *http.Request) {},
		"unrelated page": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("<html><body><h1>Moved</h1><p>This page has moved.</p></body></html>\n# Nothing here\n"))
		},
	}
	root := sourcestest.RepoRoot(t)
	for _, src := range all.Sources() {
		prev, err := os.ReadFile(scraper.SnapshotPath(filepath.Join(root, "data"), src.Name()))
		if err != nil {
			t.Fatalf("%s: no committed snapshot: %v", src.Name(), err)
		}
		for mode, h := range modes {
			src, h := src, h
			t.Run(src.Name()+"/"+mode, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(h)
				defer srv.Close()
				dir := t.TempDir()
				path := scraper.SnapshotPath(dir, src.Name())
				if err := datadir.WriteFileAtomic(path, prev); err != nil {
					t.Fatal(err)
				}
				client := &fetch.Client{HTTP: srv.Client(), BaseURL: srv.URL, Timeout: 100 * time.Millisecond, Attempts: 2,
					MaxBytes: 64 << 10, Sleep: func(context.Context, time.Duration) error { return nil }}
				rep, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
					Input: scraper.Input{Fetcher: client}, DataDir: dir,
					Sources: []scraper.Source{src}, All: []scraper.Source{src},
				})
				if err == nil {
					t.Fatalf("refresh succeeded on a %s upstream", mode)
				}
				if rep == nil || len(rep.Failed) != 1 || rep.Failed[0] != src.Name() {
					t.Fatalf("report %+v does not name the failed source", rep)
				}
				if !strings.Contains(err.Error(), src.Name()) {
					t.Errorf("error %q does not name %s", err, src.Name())
				}
				now, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(now, prev) {
					t.Errorf("previous snapshot changed or vanished (%v)", err)
				}
			})
		}
	}
}
