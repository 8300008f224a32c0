package app_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
)

// dataState reads the files a refresh of the fake sources writes, plus
// any refresh bookkeeping left behind.
func dataState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		// The fetch cache and the column image a --db read keeps beside
		// the database are not data.
		if rel == ".fetch-cache.json" || db.IsKeptColumns(d.Name()) {
			return nil
		}
		b, _ := os.ReadFile(p)
		m[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return m
}

func sameState(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s is not the expected file", what, k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected file %s", what, k)
		}
	}
}

// seedFakes refreshes the fake sources into a new data directory and
// returns it with the state written, and the base URL of newer pages.
func seedFakes(t *testing.T) (data string, before map[string]string, newer string) {
	t.Helper()
	data = filepath.Join(t.TempDir(), "data")
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	if code, _, errOut := fakeRun("refresh", "--init", "--data", data, "--base-url", base); code != 0 {
		t.Fatalf("seed refresh: exit %d: %s", code, errOut)
	}
	return data, dataState(t, data), serve(t, map[string]string{"fake-a": page(5), "fake-b": page(6)})
}

// TestRefreshMoveFailureRollsBack: a move that fails without a crash (an
// immutable cudb.db) used to leave sources/*.json new beside the old
// cudb.db and manifest.json, drop the staging directory while the journal
// stayed, and print "wrote …". Now every moved file is put back and
// nothing is said written.
func TestRefreshMoveFailureRollsBack(t *testing.T) {
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("chattr not installed: cannot make a file immutable")
	}
	data, before, newer := seedFakes(t)
	dbFile := filepath.Join(data, "cudb.db")
	if out, err := exec.Command(chattr, "+i", dbFile).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s immutable here (needs root on a filesystem with attributes): %v %s", dbFile, err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", dbFile).Run() })

	code, out, errOut := fakeRun("refresh", "--data", data, "--base-url", newer, "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	if !strings.Contains(errOut, "failed to move cudb.db into place") || !strings.Contains(errOut, "every file was restored, nothing was written") {
		t.Fatalf("stderr does not explain the rollback:\n%s", errOut)
	}
	var rep scraper.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Written) != 0 || rep.Error == "" {
		t.Fatalf("report %s (%v): want an error and nothing written", out, err)
	}
	sameState(t, "after the failed move", before, dataState(t, data))
	// the same without --json: no "wrote" line
	code, _, errOut = fakeRun("refresh", "--data", data, "--base-url", newer)
	if code != 1 || strings.Contains(errOut, "refresh: wrote") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	sameState(t, "after the second failed move", before, dataState(t, data))
	// once the file can be replaced, the same refresh goes through whole
	exec.Command(chattr, "-i", dbFile).Run()
	if code, _, errOut := fakeRun("refresh", "--data", data, "--base-url", newer); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestRefreshNeverReplacesANonFile: a data file that is not a regular
// file (here a folder) is refused before anything moves.
func TestRefreshNeverReplacesANonFile(t *testing.T) {
	data, _, newer := seedFakes(t)
	blocker := filepath.Join(data, "sources", "fake-b.json")
	os.Remove(blocker)
	if err := os.MkdirAll(filepath.Join(blocker, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := dataState(t, data)
	code, _, errOut := fakeRun("refresh", "--data", data, "--base-url", newer)
	if code != 1 || !strings.Contains(errOut, "is not a regular file; refusing to replace it (nothing was written)") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sameState(t, "after the refused refresh", before, dataState(t, data))
}

// crashMidMove runs a refresh that dies (panics) right after moving the
// first file: the journal and the staged files stay, the directory holds
// a mix until something recovers it.
func crashMidMove(t *testing.T, data, base string) {
	t.Helper()
	s, _, _ := cli.TestStreams("")
	f := fakeFactory(s)
	f.RefreshHook = func(step string) {
		if step == "moved sources/fake-a.json" {
			panic("killed")
		}
	}
	func() {
		defer func() { recover() }()
		app.Run(f, []string{"refresh", "--data", data, "--base-url", base})
		t.Fatal("the refresh was not interrupted")
	}()
	if _, err := os.Stat(datadir.JournalPath(data)); err != nil {
		t.Fatalf("no pending journal after the crash: %v", err)
	}
}

// TestDBCheckRecoversAndReportsJournal: `db check` used to exit 0 on a
// per-file mix without mentioning the journal. While a refresh holds the
// lock it reports the pending commit and exits 1; once the refresh is
// gone it completes the commit and says so.
func TestDBCheckRecoversAndReportsJournal(t *testing.T) {
	data, _, newer := seedFakes(t)
	want := dataState(t, copyOf(t, data, newer))
	crashMidMove(t, data, newer)

	lock, err := datadir.AcquireLock(data)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := fakeRun("db", "check", "--db", filepath.Join(data, "cudb.db"), "--json")
	if code != 1 || !strings.Contains(out, `"journal": "pending: a refresh is committing into`) {
		t.Fatalf("db check during the commit: exit %d\n%s\n%s", code, out, errOut)
	}
	lock.Release()

	code, out, errOut = fakeRun("db", "check", "--db", filepath.Join(data, "cudb.db"))
	if code != 0 || !strings.Contains(out, "refresh journal: an interrupted refresh was pending in "+data+"; recovery completed it") {
		t.Fatalf("db check after the crash: exit %d\n%s\n%s", code, out, errOut)
	}
	sameState(t, "after db check recovered", want, dataState(t, data))
}

// TestReadReportsAPendingCommit: a command reading --db beside a killed
// commit used to recover it (a read that writes). It now says that one is
// pending and names the command that recovers it, and leaves the folder
// as it was; `db check` then recovers it.
func TestReadReportsAPendingCommit(t *testing.T) {
	data, _, newer := seedFakes(t)
	want := dataState(t, copyOf(t, data, newer))
	crashMidMove(t, data, newer)
	mid := dataState(t, data)

	file := filepath.Join(data, "cudb.db")
	for i := 0; i < 2; i++ {
		code, out, errOut := fakeRun("db", "info", "--db", file, "--json")
		if code != 0 || !strings.Contains(out, `"origin": "`+file+`"`) {
			t.Fatalf("db info beside a pending commit: exit %d\n%s\n%s", code, out, errOut)
		}
		for _, w := range []string{"note: a refresh is moving files into " + data + ", or was killed doing so", "`cudb db check --db " + file + "` recovers"} {
			if !strings.Contains(errOut, w) {
				t.Errorf("db info's notice lacks %q:\n%s", w, errOut)
			}
		}
	}
	if _, err := os.Stat(datadir.JournalPath(data)); err != nil {
		t.Fatalf("a read recovered the commit: %v", err)
	}
	sameState(t, "after two reads", mid, dataState(t, data))
	if code, _, errOut := fakeRun("db", "info", "--db", file, "--quiet"); code != 0 || errOut != "" {
		t.Errorf("db info --quiet: exit %d: %q", code, errOut)
	}

	code, out, errOut := fakeRun("db", "check", "--db", file)
	if code != 0 || !strings.Contains(out, "recovery completed it") || strings.Contains(errOut, "note:") {
		t.Fatalf("db check: exit %d\n%s\n%s", code, out, errOut)
	}
	sameState(t, "after db check recovered", want, dataState(t, data))
}

// TestDBBuildRecoversAndHonoursTheLock: `db build --data` used to ignore
// both the lock and the journal.
func TestDBBuildRecoversAndHonoursTheLock(t *testing.T) {
	data, _, newer := seedFakes(t)
	want := dataState(t, copyOf(t, data, newer))
	crashMidMove(t, data, newer)

	lock, err := datadir.AcquireLock(data)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := fakeRun("db", "build", "--data", data)
	if code != 1 || !strings.Contains(errOut, "another refresh is running") {
		t.Fatalf("db build under a held lock: exit %d: %s", code, errOut)
	}
	lock.Release()
	if code, _, errOut := fakeRun("db", "build", "--data", data); code != 0 {
		t.Fatalf("db build: exit %d: %s", code, errOut)
	}
	sameState(t, "after db build", want, dataState(t, data))

	typo := filepath.Join(t.TempDir(), "dta")
	if code, _, errOut := fakeRun("db", "build", "--data", typo); code != 2 || !strings.Contains(errOut, "is not a cudb data directory") {
		t.Fatalf("db build --data typo: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Fatalf("db build created %s", typo)
	}
}

// copyOf copies data and refreshes the copy from base: the state a
// completed refresh gives.
func copyOf(t *testing.T, data, base string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	for rel, content := range dataState(t, data) {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := fakeRun("refresh", "--data", dst, "--base-url", base); code != 0 {
		t.Fatalf("refresh of the copy: exit %d: %s", code, errOut)
	}
	return dst
}

// TestRefreshDataDirPolicy: `--data <typo>` used to create the folder and
// build without overrides.yaml; outside the repository with no data/ and
// no network a failed refresh wrote an empty database.
func TestRefreshDataDirPolicy(t *testing.T) {
	down := serve(t, map[string]string{}) // every page 404s
	root := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"typo", []string{"--data", filepath.Join(root, "dta")}, 2, "does not exist"},
		{"default data/ absent (outside the repository)", nil, 2, "data directory data does not exist"},
		{"parent missing", []string{"--init", "--data", filepath.Join(root, "no", "data")}, 2, "does not exist"},
		{"not a data directory", []string{"--data", root}, 2, "is not a cudb data directory"},
		{"empty without --init", []string{"--data", mkdir(t, root, "empty")}, 2, "is empty"},
		{"new, offline", []string{"--init", "--data", filepath.Join(root, "new")}, 1, "sources failed"},
		{"empty, offline", []string{"--init", "--data", filepath.Join(root, "empty")}, 1, "sources failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := dataState(t, root)
			dirs, _ := os.ReadDir(root)
			code, _, errOut := fakeRun(append([]string{"refresh", "--base-url", down}, c.args...)...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, c.code, c.want, errOut)
			}
			sameState(t, c.name, before, dataState(t, root))
			if after, _ := os.ReadDir(root); len(after) != len(dirs) {
				t.Errorf("a folder was created or removed: %d entries, was %d", len(after), len(dirs))
			}
			if _, err := os.Stat("data"); !os.IsNotExist(err) {
				t.Errorf("data/ was created in the working directory")
			}
		})
	}
	// what --init is for: a new data directory that a refresh fills
	ok := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	if code, _, errOut := fakeRun("refresh", "--init", "--data", filepath.Join(root, "new"), "--base-url", ok); code != 0 {
		t.Fatalf("--init: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "new", "cudb.db")); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, parts ...string) string {
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRefreshMarkdownNeedsItsFolder: `--markdown /nonexistent/x.md` used
// to create /nonexistent.
func TestRefreshMarkdownNeedsItsFolder(t *testing.T) {
	data, before, newer := seedFakes(t)
	md := filepath.Join(t.TempDir(), "nonexistent", "x.md")
	code, _, errOut := fakeRun("refresh", "--data", data, "--base-url", newer, "--markdown", md)
	if code != 2 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Dir(md)); !os.IsNotExist(err) {
		t.Fatal("the markdown's folder was created")
	}
	sameState(t, "after a refused --markdown", before, dataState(t, data))
}

// TestRefreshJSONWhileLockedKeepsData: the report's sources were null
// when the lock was held (docs/json.md promises []); over a real data
// directory, nothing is touched.
func TestRefreshJSONWhileLockedKeepsData(t *testing.T) {
	data, before, newer := seedFakes(t)
	lock, err := datadir.AcquireLock(data)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	code, out, errOut := fakeRun("refresh", "--data", data, "--base-url", newer, "--json")
	if code != 1 || !strings.Contains(errOut, "another refresh is running") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, k := range []string{"sources", "failed", "written"} {
		if string(raw[k]) != "[]" {
			t.Errorf("%s = %s, want []", k, raw[k])
		}
	}
	lock.Release()
	sameState(t, "while locked", before, dataState(t, data))
}
