package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/fakesource"
)

// fakeFactory is the real command tree's factory over s with two fake
// sources in place of the real ones.
func fakeFactory(s *cli.Streams) *cli.Factory {
	f := cli.NewFactory(s)
	f.Sources = func() []scraper.Source {
		return []scraper.Source{fakesource.New("fake-a"), fakesource.New("fake-b")}
	}
	return f
}

// fakeRun runs cudb (the real entry point) over the fake sources.
func fakeRun(args ...string) (int, string, string) {
	s, out, errOut := cli.TestStreams("")
	code := app.Run(fakeFactory(s), args)
	return code, out.String(), errOut.String()
}

func page(n int) string {
	var r [][3]string
	for i := 0; i < n; i++ {
		r = append(r, [3]string{fmt.Sprintf("1.%d", i), fmt.Sprintf("1.%d", i), "2024-05-01"})
	}
	return fakesource.Page(r...)
}

// serve answers /fake-a.txt and /fake-b.txt from pages (missing = 404).
func serve(t *testing.T, pages map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".txt")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, p)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func run(args ...string) (int, string, string) {
	s, out, errOut := cli.TestStreams("")
	code := app.Main(args, s)
	return code, out.String(), errOut.String()
}

func TestRefreshCLILiveJSON(t *testing.T) {
	run := fakeRun
	data := t.TempDir()
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	md := filepath.Join(t.TempDir(), "pr.md")
	code, out, errOut := run("refresh", "--init", "--data", data, "--base-url", base, "--json", "--markdown", md)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var rep scraper.Report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("stdout is not only the JSON report: %v\n%s", err, out)
	}
	if len(rep.Sources) != 2 || rep.Sources[0].Rows != 3 || len(rep.Sources[1].Diff.Added) != 4 {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(errOut, "refresh: fake-a: 3 rows (was 0), 0 warnings, updated") {
		t.Fatalf("progress lines missing from stderr:\n%s", errOut)
	}
	for _, f := range []string{"sources/fake-a.json", "sources/fake-b.json", "cudb.db", "cudb.cols", "manifest.json", ".fetch-cache.json"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(md)
	if !strings.Contains(string(b), "### fake-b: 4 added, 0 removed, 0 changed") {
		t.Fatalf("markdown:\n%s", b)
	}
	// the database passes `cudb db check`
	if code, _, errOut := run("db", "check", "--db", filepath.Join(data, "cudb.db")); code != 0 {
		t.Fatalf("db check: exit %d: %s", code, errOut)
	}
}

func TestRefreshCLIFailedSourceKeepsPrevious(t *testing.T) {
	run := fakeRun
	data := t.TempDir()
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	if code, _, errOut := run("refresh", "--init", "--data", data, "--base-url", base); code != 0 {
		t.Fatal(errOut)
	}
	before, _ := os.ReadFile(filepath.Join(data, "sources", "fake-a.json"))
	base = serve(t, map[string]string{"fake-b": page(5)}) // fake-a now 404s
	code, out, errOut := run("refresh", "--data", data, "--base-url", base, "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "error: sources failed (their previous data was kept): fake-a\n") {
		t.Fatalf("stderr does not name the failed source:\n%s", errOut)
	}
	var rep scraper.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Failed) != 1 {
		t.Fatalf("stdout %q: %v", out, err)
	}
	after, _ := os.ReadFile(filepath.Join(data, "sources", "fake-a.json"))
	if string(after) != string(before) {
		t.Fatal("fake-a's previous file was replaced")
	}
	s, err := scraper.ReadSnapshot(data, "fake-b")
	if err != nil || len(s.Records) != 5 {
		t.Fatalf("fake-b not updated: %v", err)
	}
}

func TestRefreshCLISnapshotsDryRunAndTTY(t *testing.T) {
	run := fakeRun
	snaps, data := t.TempDir(), t.TempDir()
	write := func(name, body string) {
		p := fakesource.SnapshotFile(snaps, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	write("fake-a", page(3))
	write("fake-b", page(4))
	if code, _, errOut := run("refresh", "--init", "--snapshots", snaps, "--data", data); code != 0 {
		t.Fatal(errOut)
	}
	write("fake-a", strings.Replace(page(3), "1.1 | 1.1", "1.1 | 1.1.0", 1))
	s, out, errOut := cli.TestStreams("")
	s.ErrTTY = true
	code := app.Run(fakeFactory(s), []string{"refresh", "--snapshots", snaps, "--data", data, "--dry-run", "--source", "fake-a"})
	if code != 0 {
		t.Fatal(errOut.String())
	}
	if !strings.Contains(out.String(), "fake-a: 0 added, 0 removed, 1 changed\n  ~ releases/1.1\n      version: \"1.1\" -> \"1.1.0\"\n") {
		t.Fatalf("diff on stdout:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "\r\x1b[Kfake-a: checking…") || !strings.Contains(errOut.String(), "dry run: would write sources/fake-a.json") {
		t.Fatalf("tty progress:\n%q", errOut.String())
	}
	snap, _ := scraper.ReadSnapshot(data, "fake-a")
	if snap.Records[1].Fields["version"] != "1.1" {
		t.Fatal("dry run wrote the snapshot")
	}
}

func TestRefreshCLIUnknownSource(t *testing.T) {
	run := fakeRun
	code, _, errOut := run("refresh", "--source", "nope", "--data", t.TempDir())
	if code != 2 || !strings.Contains(errOut, `unknown source "nope" (sources: fake-a, fake-b)`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestRefreshList prints the real source list, in precedence order, as
// the nightly workflow reads it.
func TestRefreshList(t *testing.T) {
	s, out, errOut := cli.TestStreams("")
	if code := app.Main([]string{"refresh", "--list", "--json"}, s); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Sources []cli.SourceEntry `json:"sources"`
	}
	dec := json.NewDecoder(strings.NewReader(out.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := all.Sources()
	if len(got.Sources) != len(want) {
		t.Fatalf("listed %d sources, want %d", len(got.Sources), len(want))
	}
	for i, s := range want {
		e := got.Sources[i]
		if e.Precedence != i+1 || e.Name != s.Name() || e.URL != s.URL() || e.Family != scraper.Family(s) {
			t.Errorf("entry %d = %+v, want %s (%s)", i, e, s.Name(), s.URL())
		}
	}
	byName := map[string]string{}
	for _, e := range got.Sources {
		byName[e.Name] = e.Family
	}
	if byName["pytorch-lockfiles"] != "pytorch" || byName["cudnn"] != "cudnn" {
		t.Errorf("families: %v", byName)
	}
	// piped: a header row, one tab-separated line per source, nothing written
	data := t.TempDir()
	code, plain, _ := run("refresh", "--list", "--data", data)
	if code != 0 || !strings.HasPrefix(plain, "#\tsource\tfamily\turl\n1\ttensorflow\ttensorflow\thttps://") || strings.Count(plain, "\n") != len(want)+1 {
		t.Fatalf("exit %d:\n%s", code, plain)
	}
	if left, _ := os.ReadDir(data); len(left) != 0 {
		t.Errorf("--list wrote into the data directory: %v", left)
	}
}
