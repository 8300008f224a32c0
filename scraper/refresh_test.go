package scraper_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/fakesource"
	"github.com/cudb/cudb/scraper/fetch"
)

// upstream is an httptest server standing in for every fake source's
// page; each path answers with the handler set for it.
type upstream struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	h   map[string]http.HandlerFunc
	n   map[string]int
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{t: t, h: map[string]http.HandlerFunc{}, n: map[string]int{}}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		h := u.h[r.URL.Path]
		u.n[r.URL.Path]++
		u.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// page serves body for source name.
func (u *upstream) page(name, body string) {
	u.handle(name, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })
}

func (u *upstream) handle(name string, h http.HandlerFunc) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.h["/"+name+".txt"] = h
}

func (u *upstream) hits(name string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n["/"+name+".txt"]
}

func (u *upstream) client() *fetch.Client {
	return &fetch.Client{
		HTTP: u.srv.Client(), BaseURL: u.srv.URL, Timeout: 300 * time.Millisecond, Attempts: 3,
		MaxBytes: 64 << 10, Sleep: func(context.Context, time.Duration) error { return nil },
	}
}

var now = func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }

func (u *upstream) refresh(data string, srcs ...scraper.Source) (*scraper.Report, error) {
	return scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Fetcher: u.client()}, DataDir: data, Sources: srcs, All: srcs,
		Checks: scraper.CheckOptions{Now: now},
	})
}

// rows makes n release rows 1.0.0 ... 1.0.<n-1>.
func rows(n int) [][3]string {
	var out [][3]string
	for i := 0; i < n; i++ {
		out = append(out, [3]string{fmt.Sprintf("1.0.%d", i), fmt.Sprintf("1.0.%d", i), "2024-01-02"})
	}
	return out
}

// tree reads every file under dir (relative path → content).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return m
}

func sameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

// seeded runs a good refresh of a and b (20 rows each) and returns the
// data directory and the files it holds.
func seeded(t *testing.T, u *upstream) (string, scraper.Source, scraper.Source, map[string]string) {
	t.Helper()
	data := t.TempDir()
	a, b := fakesource.New("a"), fakesource.New("b")
	u.page("a", fakesource.Page(rows(20)...))
	u.page("b", fakesource.Page(rows(20)...))
	if _, err := u.refresh(data, a, b); err != nil {
		t.Fatal(err)
	}
	return data, a, b, tree(t, data)
}

func TestRefreshHappy(t *testing.T) {
	u := newUpstream(t)
	data, _, _, files := seeded(t, u)
	for _, f := range []string{"sources/a.json", "sources/b.json", "cudb.db", "cudb.cols", "manifest.json"} {
		if files[f] == "" {
			t.Errorf("%s not written", f)
		}
	}
	if len(files) != 5 {
		t.Errorf("want exactly 5 files (no lock, staging or temp left), got %v", keys(files))
	}
	d, err := db.OpenFile(context.Background(), filepath.Join(data, "cudb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := countReleases(t, d, func(db.Release) bool { return true })
	if n != 40 {
		t.Fatalf("release rows %d, want 40", n)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// failing replaces a's page with bad, refreshes, and asserts a failed
// with wantErr, a's previous file (and the database) were kept, and b
// still updated.
func failing(t *testing.T, wantErr string, bad func(u *upstream)) {
	t.Helper()
	u := newUpstream(t)
	data, a, b, before := seeded(t, u)
	bad(u)
	u.page("b", fakesource.Page(rows(21)...))
	rep, err := u.refresh(data, a, b)
	if err == nil || !strings.Contains(err.Error(), "sources failed") || !strings.Contains(err.Error(), "a") {
		t.Fatalf("want an error naming a, got %v", err)
	}
	if len(rep.Failed) != 1 || rep.Failed[0] != "a" {
		t.Fatalf("failed %v, want [a]", rep.Failed)
	}
	if !strings.Contains(rep.Sources[0].Error, wantErr) {
		t.Fatalf("a's error %q does not mention %q", rep.Sources[0].Error, wantErr)
	}
	after := tree(t, data)
	if after["sources/a.json"] != before["sources/a.json"] {
		t.Fatal("a's previous file was replaced")
	}
	if after["sources/b.json"] == before["sources/b.json"] {
		t.Fatal("b was not updated although it passed")
	}
	d, err := db.OpenFile(context.Background(), filepath.Join(data, "cudb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	na := countReleases(t, d, func(r db.Release) bool { return r.Source == "a" })
	nb := countReleases(t, d, func(r db.Release) bool { return r.Source == "b" })
	if na != 20 || nb != 21 {
		t.Fatalf("database has %d rows of a (want the previous 20) and %d of b (want 21)", na, nb)
	}
}

func TestRefreshRetriesAfter500(t *testing.T) {
	u := newUpstream(t)
	data := t.TempDir()
	first := true
	u.handle("a", func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, fakesource.Page(rows(3)...))
	})
	if _, err := u.refresh(data, fakesource.New("a")); err != nil {
		t.Fatal(err)
	}
	if u.hits("a") != 2 {
		t.Fatalf("%d requests, want 2", u.hits("a"))
	}
}

func TestRefreshFailures(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	cases := []struct {
		name, err string
		bad       func(u *upstream)
	}{
		{"timeout", "deadline exceeded", func(u *upstream) {
			u.handle("a", func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-hang:
				case <-r.Context().Done():
				}
			})
		}},
		{"truncated body", "truncated", func(u *upstream) {
			u.handle("a", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "5000")
				fmt.Fprint(w, fakesource.Page(rows(20)...)[:300])
			})
		}},
		{"always 503", "gave up after 3 attempts", func(u *upstream) {
			u.handle("a", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
		}},
		{"table vanished", `table "releases" not found`, func(u *upstream) {
			u.page("a", "the page was redesigned\n")
		}},
		{"table moved", `table "releases" not found`, func(u *upstream) {
			u.page("a", strings.Replace(fakesource.Page(rows(20)...), "== table releases ==", "== table release history ==", 1))
		}},
		{"empty table", "found no rows", func(u *upstream) { u.page("a", fakesource.Page()) }},
		{"garbage version", `field version: "see notes" does not parse as a version`, func(u *upstream) {
			u.page("a", fakesource.Page(append(rows(20), [3]string{"1.9", "see notes", "2024-01-01"})...))
		}},
		{"future date", "is in the future", func(u *upstream) {
			u.page("a", fakesource.Page(append(rows(20), [3]string{"9.9", "9.9", "2031-01-01"})...))
		}},
		{"garbage date", "does not parse as a date", func(u *upstream) {
			u.page("a", fakesource.Page(append(rows(20), [3]string{"9.9", "9.9", "soon"})...))
		}},
		{"over the size cap", "exceeds the size cap", func(u *upstream) {
			u.page("a", fakesource.Page(rows(20)...)+strings.Repeat("padding\n", 10000))
		}},
		{"large shrink", "rows dropped from 20 to 15", func(u *upstream) { u.page("a", fakesource.Page(rows(15)...)) }},
		{"many malformed rows", "malformed rows", func(u *upstream) {
			p := fakesource.Page(rows(20)...) + "x | y\nx | y\nx | y\n"
			u.page("a", p)
		}},
		{"404", "404", func(u *upstream) { u.handle("a", http.NotFound) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { failing(t, c.err, c.bad) })
	}
}

func TestRefreshAllowShrink(t *testing.T) {
	u := newUpstream(t)
	data, a, _, _ := seeded(t, u)
	u.page("a", fakesource.Page(rows(10)...))
	_, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Fetcher: u.client()}, DataDir: data, Sources: []scraper.Source{a},
		All: []scraper.Source{a, fakesource.New("b")}, Checks: scraper.CheckOptions{Now: now, AllowShrink: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := scraper.ReadSnapshot(data, "a")
	if len(s.Records) != 10 {
		t.Fatalf("%d rows, want 10", len(s.Records))
	}
	// b was not scraped but is still in the database, from its file
	m := tree(t, data)["manifest.json"]
	if !strings.Contains(m, `"name": "b"`) {
		t.Fatalf("b dropped from the build:\n%s", m)
	}
}

func TestRefreshFewWarningsPass(t *testing.T) {
	u := newUpstream(t)
	data, a, b, _ := seeded(t, u)
	u.page("a", fakesource.Page(rows(20)...)+"broken row\n")
	rep, err := u.refresh(data, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources[0].Warnings) != 1 {
		t.Fatalf("warnings %v, want 1", rep.Sources[0].Warnings)
	}
}

// nothing is a source whose scrape returns no rows and no error.
type nothing struct{ *fakesource.Source }

func (nothing) Scrape(context.Context, scraper.Input) ([]scraper.Record, error) { return nil, nil }

func TestRefreshNothingIsAnError(t *testing.T) {
	u := newUpstream(t)
	data := t.TempDir()
	_, err := u.refresh(data, nothing{fakesource.New("n")})
	if err == nil || !strings.Contains(err.Error(), "n") {
		t.Fatalf("want an error naming n, got %v", err)
	}
	if _, err := os.Stat(scraper.SnapshotPath(data, "n")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a snapshot file was written for an empty scrape: %v", err)
	}
}

func TestRefreshRemovalShowsInDiff(t *testing.T) {
	u := newUpstream(t)
	data, a, b, _ := seeded(t, u)
	r := rows(20)
	r = append(r[:5], r[6:]...) // upstream dropped 1.0.5
	r[0][2] = "2024-01-03"      // and corrected a date
	r = append(r, [3]string{"2.0.0", "2.0.0", "2025-01-01"})
	u.page("a", fakesource.Page(r...))
	rep, err := u.refresh(data, a, b)
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Sources[0].Diff
	if len(d.Removed) != 1 || d.Removed[0].Key != "1.0.5" {
		t.Fatalf("removed %v, want [releases/1.0.5]", d.Removed)
	}
	if len(d.Added) != 1 || d.Added[0].Key != "2.0.0" {
		t.Fatalf("added %v", d.Added)
	}
	if len(d.Changed) != 1 || d.Changed[0].Fields[0] != (scraper.FieldChange{Field: "released_on", Old: "2024-01-02", New: "2024-01-03"}) {
		t.Fatalf("changed %+v", d.Changed)
	}
	if !rep.Sources[0].Changed || rep.Sources[1].Changed {
		t.Fatalf("changed flags a=%v b=%v", rep.Sources[0].Changed, rep.Sources[1].Changed)
	}
	var md, txt bytes.Buffer
	scraper.WriteMarkdown(&md, rep.Diffs(), nil)
	scraper.WriteText(&txt, rep.Diffs())
	for _, want := range []string{"| removed | `releases` | `1.0.5` |", "| `releases` | `1.0.0` | `released_on` | `2024-01-02` | `2024-01-03` |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(txt.String(), "  - releases/1.0.5\n") || !strings.Contains(txt.String(), "b: no changes\n") {
		t.Errorf("text diff:\n%s", txt.String())
	}
}

func TestRefreshUnchangedIsByteIdentical(t *testing.T) {
	u := newUpstream(t)
	data, a, b, before := seeded(t, u)
	stat := func() map[string]time.Time {
		m := map[string]time.Time{}
		for k := range before {
			st, err := os.Stat(filepath.Join(data, k))
			if err != nil {
				t.Fatal(err)
			}
			m[k] = st.ModTime()
		}
		return m
	}
	// Each file is dated a day back: a rewrite would carry the clock's
	// time, whatever the file system's timestamp resolution.
	past := time.Now().Add(-24 * time.Hour).Truncate(time.Second)
	for k := range before {
		if err := os.Chtimes(filepath.Join(data, k), past, past); err != nil {
			t.Fatal(err)
		}
	}
	mt := stat()
	rep, err := u.refresh(data, a, b)
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, tree(t, data))
	for k, v := range stat() {
		if !v.Equal(mt[k]) {
			t.Errorf("%s was rewritten", k)
		}
	}
	if len(rep.Written) != 0 {
		t.Errorf("written %v, want none", rep.Written)
	}
	for _, d := range rep.Diffs() {
		if !d.Empty() {
			t.Errorf("diff of %s not empty: %+v", d.Source, d)
		}
	}
	// a fresh directory built from the same pages is byte-identical too
	other := t.TempDir()
	if _, err := u.refresh(other, a, b); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, tree(t, other))
}

func TestRefreshDryRunWritesNothing(t *testing.T) {
	u := newUpstream(t)
	data, a, b, before := seeded(t, u)
	u.page("a", fakesource.Page(rows(21)...))
	rep, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Fetcher: u.client()}, DataDir: data, Sources: []scraper.Source{a, b},
		All: []scraper.Source{a, b}, Checks: scraper.CheckOptions{Now: now}, DryRun: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, tree(t, data))
	if len(rep.Sources[0].Diff.Added) != 1 {
		t.Fatalf("dry run diff %+v", rep.Sources[0].Diff)
	}
	if strings.Join(rep.Written, ",") != "sources/a.json,cudb.db,cudb.cols,manifest.json" {
		t.Fatalf("would write %v", rep.Written)
	}
}

func TestRefreshCanaries(t *testing.T) {
	u := newUpstream(t)
	data := t.TempDir()
	src := fakesource.New("a")
	src.CanaryFacts = []scraper.Canary{scraper.ReleaseCanary("a-releases", "1.0.3")}
	u.page("a", fakesource.Page(rows(5)...))
	if _, err := u.refresh(data, src); err != nil {
		t.Fatal(err)
	}
	before := tree(t, data)
	r := rows(6)
	u.page("a", fakesource.Page(append(r[:3], r[4:]...)...))
	_, err := u.refresh(data, src)
	if err == nil {
		t.Fatal("missing canary accepted")
	}
	rep, _ := u.refresh(data, src)
	if !strings.Contains(rep.Sources[0].Error, "canary facts missing") || !strings.Contains(rep.Sources[0].Error, "release a-releases 1.0.3") {
		t.Fatalf("error %q", rep.Sources[0].Error)
	}
	sameTree(t, before, tree(t, data))
}

func TestRefreshPostBuildCheckFailureWritesNothing(t *testing.T) {
	u := newUpstream(t)
	data, a, b, before := seeded(t, u)
	golden := func(ctx context.Context, d *db.DB) error {
		rs, err := d.Releases(ctx)
		if err != nil {
			return err
		}
		n := 0
		for _, r := range rs {
			if r.Component == "a-releases" && r.Version == "1.0.0" {
				n++
			}
		}
		if n != 1 {
			return errors.New("golden: a 1.0.0 missing")
		}
		return nil
	}
	r := rows(21)
	u.page("a", fakesource.Page(r[1:]...))
	_, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Fetcher: u.client()}, DataDir: data, All: []scraper.Source{a, b},
		Checks: scraper.CheckOptions{Now: now}, Golden: []func(context.Context, *db.DB) error{golden},
	})
	if err == nil || !strings.Contains(err.Error(), "golden: a 1.0.0 missing") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err %v", err)
	}
	sameTree(t, before, tree(t, data))
}

func TestRefreshLock(t *testing.T) {
	u := newUpstream(t)
	data, a, b, before := seeded(t, u)
	lock, err := datadir.AcquireLock(data)
	if err != nil {
		t.Fatal(err)
	}
	u.page("a", fakesource.Page(rows(21)...))
	_, err = u.refresh(data, a, b)
	if !errors.Is(err, datadir.ErrLocked) {
		t.Fatalf("want ErrLocked, got %v", err)
	}
	lock.Release()
	delete(before, ".refresh.lock")
	sameTree(t, before, tree(t, data))

	// a lock left by a process that is gone is taken over
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, datadir.LockName), []byte(fmt.Sprintf("%d\n", cmd.Process.Pid)), 0o644)
	if _, err := u.refresh(data, a, b); err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, datadir.LockName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("lock left behind")
	}
}

// countReleases counts the release rows keep accepts.
func countReleases(t *testing.T, d *db.DB, keep func(db.Release) bool) int {
	t.Helper()
	rs, err := d.Releases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		if keep(r) {
			n++
		}
	}
	return n
}
