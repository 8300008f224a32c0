package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/query/querytest"
)

// pin -o on what is not a regular file: a character device is written
// through and its error reported (/dev/full), a FIFO is written through,
// a link to a regular file replaces that file and keeps the link, a
// folder is refused; none of them is ever replaced by a regular file.
func TestPinOutputTargets(t *testing.T) {
	dbPath := querytest.PinPath(t)
	args := func(out string) []string {
		return []string{"pin", "torch==2.1.0", "--cuda", "11.8", "--db", dbPath, "-o", out}
	}
	if st, err := os.Stat("/dev/full"); err == nil && st.Mode()&fs.ModeCharDevice != 0 {
		code, _, stderr := run(args("/dev/full")...)
		if code != 1 || !strings.Contains(stderr, "failed to write /dev/full: no space left on device") {
			t.Errorf("/dev/full: exit %d: %s", code, stderr)
		}
		if st, _ := os.Lstat("/dev/full"); st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("/dev/full is now %v", st.Mode())
		}
		if code, _, stderr := run(args("/dev/null")...); code != 0 {
			t.Errorf("/dev/null: exit %d: %s", code, stderr)
		}
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}()
		if code, _, stderr := run(args(fifo)...); code != 0 {
			t.Errorf("fifo: exit %d: %s", code, stderr)
		}
		if s := <-got; !strings.Contains(s, "torch==2.1.0+cu118") {
			t.Errorf("fifo reader got %q", s)
		}
		if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("the FIFO became %v", st.Mode())
		}
	}

	real := filepath.Join(dir, "requirements.txt")
	os.WriteFile(real, []byte("old\n"), 0o600)
	link := filepath.Join(dir, "req-link.txt")
	os.Symlink(real, link)
	if code, _, stderr := run(args(link)...); code != 0 {
		t.Fatalf("link: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(real)
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 || !strings.Contains(string(b), "torch==2.1.0+cu118") {
		t.Errorf("link: %v %q", st.Mode(), b)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("the file lost its permissions: %v", st.Mode())
	}
	code, _, stderr := run(args(dir)...)
	if code != 1 || !strings.Contains(stderr, "is a folder") {
		t.Errorf("folder: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(args(filepath.Join(dir, "nope", "r.txt"))...)
	if code != 1 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("missing folder: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
		t.Error("pin -o created a folder")
	}
}

// refresh --markdown writes through a FIFO like pin -o, and a missing
// folder is a usage error before any work (no folder is created).
func TestRefreshMarkdownTargets(t *testing.T) {
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	dir := t.TempDir()
	code, _, stderr := fakeRun("refresh", "--init", "--data", t.TempDir(), "--base-url", base, "--markdown", filepath.Join(dir, "missing", "pr.md"))
	if code != 2 || !strings.Contains(stderr, "does not exist") || !strings.Contains(stderr, "Try: ") {
		t.Errorf("missing folder: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("refresh created the folder")
	}
	fifo := filepath.Join(dir, "pr.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	code, _, stderr = fakeRun("refresh", "--init", "--data", t.TempDir(), "--base-url", base, "--markdown", fifo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if s := <-got; !strings.Contains(s, "fake-a") {
		t.Errorf("markdown through the FIFO: %q", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v", st.Mode())
	}
}

// gen site: / is refused, someone else's folder is refused unless
// --force, its own folder (the marker, a manifest of its files) is
// replaced whole, and a file its manifest does not list is never deleted.
func TestGenSiteTargets(t *testing.T) {
	dbPath := querytest.Path(t)
	code, _, stderr := run("gen", "site", "--out", "/", "--db", dbPath)
	if code != 2 || !strings.Contains(stderr, "root of the file system") {
		t.Errorf("--out /: exit %d: %s", code, stderr)
	}
	parent := t.TempDir()
	theirs := filepath.Join(parent, "docs")
	os.Mkdir(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "notes.txt"), []byte("mine"), 0o644)
	code, _, stderr = run("gen", "site", "--out", theirs, "--db", dbPath)
	if code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("someone else's folder: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(theirs, "notes.txt")); string(b) != "mine" {
		t.Error("someone else's folder changed")
	}
	if code, _, stderr = run("gen", "site", "--out", theirs, "--force", "--db", dbPath); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(theirs, "notes.txt")); err == nil {
		t.Error("--force kept the old files")
	}
	if _, err := os.Stat(filepath.Join(theirs, ".cudb-site")); err != nil {
		t.Error("no marker")
	}
	// Our own site is replaced without --force.
	if code, _, stderr = run("gen", "site", "--out", theirs, "--db", dbPath); code != 0 {
		t.Fatalf("regenerate: exit %d: %s", code, stderr)
	}
	// A file someone added to it is not ours to delete (its manifest does
	// not list it): regenerating is refused, naming it, and it stays.
	os.WriteFile(filepath.Join(theirs, "stale.html"), []byte("old"), 0o644)
	if code, _, stderr = run("gen", "site", "--out", theirs, "--db", dbPath); code != 2 || !strings.Contains(stderr, "stale.html") || !strings.Contains(stderr, "--force") {
		t.Errorf("a hand-added file: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(theirs, "stale.html")); string(b) != "old" {
		t.Error("a file cudb did not write was deleted")
	}
	if _, err := os.Stat(filepath.Join(theirs, "index.html")); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("left beside the site: %v", entries)
	}

	// A folder whose marker is not gen site's manifest (here empty) is
	// not ours, whatever it holds.
	marked := filepath.Join(parent, "marked")
	os.Mkdir(marked, 0o755)
	os.WriteFile(filepath.Join(marked, ".cudb-site"), nil, 0o644)
	os.WriteFile(filepath.Join(marked, "notes.txt"), []byte("mine"), 0o644)
	code, _, stderr = run("gen", "site", "--out", marked, "--db", dbPath)
	if code != 2 || !strings.Contains(stderr, "not the manifest") {
		t.Errorf("empty marker: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(marked, "notes.txt")); string(b) != "mine" {
		t.Error("a folder with a foreign marker changed")
	}
	// A mistyped path: its parents are never created.
	typo := filepath.Join(parent, "pubilc", "site")
	code, _, stderr = run("gen", "site", "--out", typo, "--db", dbPath)
	if code != 2 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("missing parent: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Dir(typo)); err == nil {
		t.Error("gen site created the missing parent")
	}
}

// pin -o keeps the target's mode and owner (a file of another user,
// when run as root), refuses a file with other hard links, and with
// --force writes it in place so the links stay one file.
func TestPinOutputOwnerAndLinks(t *testing.T) {
	dbPath := querytest.PinPath(t)
	args := func(out string, extra ...string) []string {
		return append([]string{"pin", "torch==2.1.0", "--cuda", "11.8", "--db", dbPath, "-o", out}, extra...)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "requirements.txt")
	other := filepath.Join(dir, "shared.txt")
	os.WriteFile(p, []byte("old\n"), 0o640)
	if err := os.Link(p, other); err != nil {
		t.Skip(err)
	}
	code, _, stderr := run(args(p)...)
	if code != 2 || !strings.Contains(stderr, "hard links") || !strings.Contains(stderr, "--force") {
		t.Errorf("hard link: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(other); string(b) != "old\n" {
		t.Errorf("a refused write changed the file: %q", b)
	}
	if code, _, stderr = run(args(p, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	a, _ := os.Stat(p)
	b, _ := os.Stat(other)
	if body, _ := os.ReadFile(other); !os.SameFile(a, b) || !strings.Contains(string(body), "torch==2.1.0+cu118") || a.Mode().Perm() != 0o640 {
		t.Errorf("--force split the links or lost the mode (%v): %q", a.Mode(), body)
	}

	if os.Geteuid() != 0 {
		t.Skip("owner kept: needs root to make a file of another user")
	}
	theirs := filepath.Join(dir, "theirs.txt")
	os.WriteFile(theirs, []byte("old\n"), 0o604)
	if err := os.Chown(theirs, 4321, 4322); err != nil {
		t.Skip(err)
	}
	if code, _, stderr = run(args(theirs)...); code != 0 {
		t.Fatalf("another user's file: exit %d: %s", code, stderr)
	}
	st, _ := os.Stat(theirs)
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 4321 || sys.Gid != 4322 || st.Mode().Perm() != 0o604 {
		t.Errorf("owner %d:%d mode %v, want 4321:4322 -rw----r--", sys.Uid, sys.Gid, st.Mode())
	}
	if body, _ := os.ReadFile(theirs); !strings.Contains(string(body), "torch==2.1.0+cu118") {
		t.Errorf("not written: %q", body)
	}
}

// refresh --json while another refresh holds the lock: the documented
// shape (docs/json.md), lists as [] and not null, and exit 1.
func TestRefreshJSONWhileLocked(t *testing.T) {
	data := t.TempDir()
	// A cudb data directory (refresh refuses any other folder).
	if err := os.Mkdir(filepath.Join(data, "sources"), 0o755); err != nil {
		t.Fatal(err)
	}
	// This test process is alive: its pid holds the lock.
	if err := os.WriteFile(filepath.Join(data, datadir.LockName), []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := fakeRun("refresh", "--data", data, "--base-url", "http://127.0.0.1:1", "--json")
	if code != 1 {
		t.Errorf("exit %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	for _, k := range []string{"sources", "failed", "written"} {
		if v, ok := rep[k].([]any); !ok || v == nil {
			t.Errorf("%s = %#v, want []", k, rep[k])
		}
	}
	if e, _ := rep["error"].(string); !strings.Contains(e, "lock") && !strings.Contains(e, "refresh") {
		t.Errorf("error = %q", e)
	}
}
