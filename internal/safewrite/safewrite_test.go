package safewrite

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "req.txt")
	if err := File(p, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 || read(t, p) != "one\n" {
		t.Errorf("new file: %v %q", st.Mode(), read(t, p))
	}
	os.Chmod(p, 0o600)
	if err := File(p, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 || read(t, p) != "two\n" {
		t.Errorf("replaced file: %v %q", st.Mode(), read(t, p))
	}
	// A link to a regular file replaces the file; the link stays a link.
	link := filepath.Join(dir, "link.txt")
	os.Symlink(p, link)
	if err := File(link, []byte("three\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 || read(t, p) != "three\n" {
		t.Errorf("through a link: %v %q", st.Mode(), read(t, p))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestFileRefusals(t *testing.T) {
	dir := t.TempDir()
	if err := File(filepath.Join(dir, "missing", "x.md"), nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("the missing folder was created")
	}
	if err := File(dir, nil); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	if err := File(dangling, []byte("x")); err == nil {
		t.Error("a dangling link was replaced")
	}
	if st, _ := os.Lstat(dangling); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the dangling link is gone")
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	if err := File(sock, []byte("x")); err == nil || !strings.Contains(err.Error(), "socket") {
		t.Errorf("socket: %v", err)
	}
	if st, _ := os.Lstat(sock); st.Mode()&fs.ModeSocket == 0 {
		t.Error("the socket was replaced")
	}
}

// A FIFO is written through, never replaced.
func TestFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := File(p, []byte("through\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through\n" {
		t.Errorf("reader got %q", s)
	}
	if st, _ := os.Lstat(p); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v", st.Mode())
	}
	// Through a symbolic link (as /dev/stdout is one): the link stays.
	link := filepath.Join(filepath.Dir(p), "link")
	os.Symlink(p, link)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := File(link, []byte("linked\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "linked\n" {
		t.Errorf("reader got %q", s)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link became %v", st.Mode())
	}
}

// Character devices are written through: /dev/null takes the bytes,
// /dev/full reports its error, and both stay device nodes.
func TestFileCharDevices(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		st, err := os.Stat(dev)
		if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Skipf("%s: %v", dev, err)
		}
	}
	if err := File("/dev/null", []byte("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	err := File("/dev/full", []byte("x"))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("/dev/full: %v, want ENOSPC", err)
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if st, _ := os.Lstat(dev); st.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device: %v", dev, st.Mode())
		}
	}
}

const marker = ".made-by-test"

func TestDir(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	opts := DirOptions{Marker: marker, MarkerText: "test\n"}
	fill := func(files ...string) func(string) error {
		return func(tmp string) error {
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(tmp, f), []byte(f), 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := Dir(out, opts, fill("a.html", "b.html")); err != nil {
		t.Fatal(err)
	}
	// Ours (the marker): replaced whole, stale files gone.
	if err := Dir(out, opts, fill("a.html")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "b.html")); err == nil {
		t.Error("a stale file survived")
	}
	// A failed fill leaves the old tree as it was and nothing beside it.
	full := errors.New("no space left on device")
	err := Dir(out, opts, func(tmp string) error {
		fill("a.html", "half.html")(tmp)
		return full
	})
	if !errors.Is(err, full) {
		t.Errorf("fill error: %v", err)
	}
	if read(t, filepath.Join(out, "a.html")) != "a.html" {
		t.Error("the old site changed")
	}
	if _, err := os.Stat(filepath.Join(out, "half.html")); err == nil {
		t.Error("a partial site is in place")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("left beside the site: %v", entries)
	}

	// Someone else's folder: refused, untouched, unless forced.
	theirs := filepath.Join(parent, "theirs")
	os.Mkdir(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "notes.txt"), []byte("mine"), 0o644)
	if err := Dir(theirs, opts, fill("a.html")); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("someone else's folder: %v", err)
	}
	if read(t, filepath.Join(theirs, "notes.txt")) != "mine" {
		t.Error("someone else's folder changed")
	}
	forced := opts
	forced.Force = true
	if err := Dir(theirs, forced, fill("a.html")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(theirs, "notes.txt")); err == nil {
		t.Error("--force kept the old content")
	}
	// An empty folder is fine without the marker.
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	if err := Dir(empty, opts, fill("a.html")); err != nil {
		t.Errorf("empty folder: %v", err)
	}
}

func TestDirRefusals(t *testing.T) {
	opts := DirOptions{Marker: marker, Force: true}
	called := false
	fill := func(string) error { called = true; return nil }
	if err := Dir("/", opts, fill); err == nil || !strings.Contains(err.Error(), "root") {
		t.Errorf("/: %v", err)
	}
	wd, _ := os.Getwd()
	for _, p := range []string{".", wd, filepath.Dir(wd)} {
		if err := Dir(p, opts, fill); err == nil || !strings.Contains(err.Error(), "current folder") {
			t.Errorf("%s: %v", p, err)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := Dir(file, opts, fill); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("file: %v", err)
	}
	link := filepath.Join(dir, "l")
	os.Symlink(dir, link)
	if err := Dir(link, opts, fill); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("link: %v", err)
	}
	if called {
		t.Error("fill ran for a refused target")
	}
}
