// Package livetest serves a source's live pages from an httptest server
// so tests drive the real live scrape, the fetch layer and the refresh
// job end to end on loopback: happy pages, a first answer of 500, moved
// tables, garbage rows.
package livetest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/fetch"
)

// Upstream stands in for every host a source reads: the fetch client
// rewrites scheme and host to the server, so pages are keyed by the
// path (and query) of their live URL.
type Upstream struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string][]byte
	// FailFirst answers this many 500s to each path before its page.
	FailFirst int
	hits      map[string]int
}

// New serves pages, keyed by live URL, each the content of a file.
func New(t testing.TB, files map[string]string) *Upstream {
	t.Helper()
	u := &Upstream{pages: map[string][]byte{}, hits: map[string]int{}}
	for live, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("live page fixture: %v", err)
		}
		u.Set(t, live, b)
	}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

// Set serves body at the path of the live URL.
func (u *Upstream) Set(t testing.TB, live string, body []byte) {
	t.Helper()
	p, err := url.Parse(live)
	if err != nil {
		t.Fatal(err)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pages[p.RequestURI()] = body
}

// Hits is how many requests reached the path of the live URL.
func (u *Upstream) Hits(live string) int {
	p, _ := url.Parse(live)
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.hits[p.RequestURI()]
}

func (u *Upstream) serve(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.hits[r.URL.RequestURI()]++
	n := u.hits[r.URL.RequestURI()]
	body, ok := u.pages[r.URL.RequestURI()]
	u.mu.Unlock()
	switch {
	case !ok:
		http.NotFound(w, r)
	case n <= u.FailFirst:
		http.Error(w, "upstream hiccup", http.StatusInternalServerError)
	default:
		w.Write(body)
	}
}

// Fetcher is a fetch client aimed at the server, retrying without
// waiting.
func (u *Upstream) Fetcher() *fetch.Client {
	return &fetch.Client{HTTP: u.Client(), BaseURL: u.URL, Timeout: 5 * time.Second, Attempts: 3,
		Sleep: func(context.Context, time.Duration) error { return nil }}
}

// Refresh runs the live refresh of src alone into dataDir.
func (u *Upstream) Refresh(src scraper.Source, dataDir string) (*scraper.Report, error) {
	return scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Fetcher: u.Fetcher()}, DataDir: dataDir,
		Sources: []scraper.Source{src}, All: []scraper.Source{src},
	})
}

// SnapshotBytes is the snapshot file of source name under dataDir, or
// nil when there is none.
func SnapshotBytes(t testing.TB, dataDir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(scraper.SnapshotPath(dataDir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// MustPass runs the live refresh of src into dataDir, fails the test
// unless it passed with no failed source, and returns the snapshot it
// left there.
func (u *Upstream) MustPass(t testing.TB, src scraper.Source, dataDir string) *scraper.Snapshot {
	t.Helper()
	rep, err := u.Refresh(src, dataDir)
	if err != nil {
		t.Fatalf("refresh of %s failed: %v (report %+v)", src.Name(), err, rep)
	}
	if len(rep.Failed) != 0 || rep.Error != "" {
		t.Fatalf("refresh of %s reported a failure: %+v", src.Name(), rep)
	}
	snap, err := scraper.ReadSnapshot(dataDir, src.Name())
	if err != nil {
		t.Fatalf("refresh of %s passed but left no readable snapshot: %v", src.Name(), err)
	}
	if len(snap.Records) == 0 {
		t.Fatalf("refresh of %s wrote an empty snapshot", src.Name())
	}
	return snap
}

// Prime runs the live refresh of src against files in a fresh data
// directory, which then holds the previous snapshot a sad refresh must
// keep; it returns the directory and that snapshot's bytes.
func Prime(t testing.TB, src scraper.Source, files map[string]string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	New(t, files).MustPass(t, src, dir)
	return dir, SnapshotBytes(t, dir, src.Name())
}

// MustFail runs the live refresh of src into dataDir and fails the test
// unless the refresh failed naming src and the snapshot file of src is
// byte for byte what it was before (or still absent). It returns the
// source's own error from the report.
func (u *Upstream) MustFail(t testing.TB, src scraper.Source, dataDir string) string {
	t.Helper()
	before := SnapshotBytes(t, dataDir, src.Name())
	rep, err := u.Refresh(src, dataDir)
	if err == nil {
		t.Fatalf("refresh of %s passed; want a failure (report %+v)", src.Name(), rep)
	}
	if rep == nil || len(rep.Failed) != 1 || rep.Failed[0] != src.Name() {
		t.Fatalf("report %+v does not name %s as failed", rep, src.Name())
	}
	if !strings.Contains(err.Error(), src.Name()) {
		t.Errorf("error %q does not name %s", err, src.Name())
	}
	if after := SnapshotBytes(t, dataDir, src.Name()); !bytes.Equal(before, after) {
		t.Errorf("the failed refresh of %s changed its snapshot file (%d bytes before, %d after)", src.Name(), len(before), len(after))
	}
	return rep.FailedReasons()[src.Name()]
}
