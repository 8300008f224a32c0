package safewrite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fillWith(names ...string) func(string) error {
	return func(tmp string) error {
		for _, n := range names {
			p := filepath.Join(tmp, n)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestDirDeletesOnlyWhatItListed: a folder is replaced only when its
// marker is the manifest Dir wrote and it holds nothing the manifest does
// not list; a mistyped path's missing parent is never created.
func TestDirDeletesOnlyWhatItListed(t *testing.T) {
	opts := DirOptions{Marker: ".m", MarkerText: "made by test\n"}
	out := filepath.Join(t.TempDir(), "site")
	if err := Dir(out, opts, fillWith("index.html", "data/a.json")); err != nil {
		t.Fatal(err)
	}
	m, _ := os.ReadFile(filepath.Join(out, ".m"))
	if string(m) != "made by test\nfiles:\ndata/a.json\nindex.html\n" {
		t.Fatalf("manifest: %q", m)
	}
	if err := Dir(out, opts, fillWith("index.html")); err != nil {
		t.Fatalf("its own folder: %v", err)
	}
	// A file added by hand is not deleted.
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	err := Dir(out, opts, fillWith("index.html"))
	var r *RefusedError
	if !errors.As(err, &r) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("a hand-added file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Fatal("the hand-added file is gone")
	}
	// A marker that is not a manifest (empty, or another tool's).
	other := filepath.Join(t.TempDir(), "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, ".m"), nil, 0o644)
	os.WriteFile(filepath.Join(other, "precious.txt"), []byte("x"), 0o644)
	if err := Dir(other, opts, fillWith("index.html")); !errors.As(err, &r) || !strings.Contains(err.Error(), "not the manifest") {
		t.Fatalf("an empty marker: %v", err)
	}
	// The parent of a mistyped path is not created.
	typo := filepath.Join(t.TempDir(), "pubic", "site")
	if err := Dir(typo, opts, fillWith("index.html")); !errors.As(err, &r) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing parent: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(typo)); err == nil {
		t.Fatal("the missing parent was created")
	}
}

// TestFileKeepsLinksAndMode: a target with other hard links is refused
// (a rename would split them); with Force it is written in place, every
// link seeing the new bytes; its mode is kept either way.
func TestFileKeepsLinksAndMode(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "requirements.txt"), filepath.Join(dir, "linked.txt")
	os.WriteFile(target, []byte("old\n"), 0o600)
	if err := os.Link(target, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	err := FileWith(target, []byte("new\n"), FileOptions{})
	var le *LinkedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "2 hard links") {
		t.Fatalf("linked target: %v", err)
	}
	if b, _ := os.ReadFile(link); string(b) != "old\n" {
		t.Fatal("the refused target was written")
	}
	if err := FileWith(target, []byte("new\n"), FileOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(link); string(b) != "new\n" {
		t.Fatalf("the other link reads %q: the links were split", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	// A file alone is replaced whole, keeping its mode.
	alone := filepath.Join(dir, "alone.txt")
	os.WriteFile(alone, []byte("old\n"), 0o640)
	if err := File(alone, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(alone); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", st.Mode().Perm())
	}
}

// TestFileKeepsOwner: replacing another user's file (as root) gives the
// new file to that user, not to root.
func TestFileKeepsOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	p := filepath.Join(t.TempDir(), "requirements.txt")
	os.WriteFile(p, []byte("old\n"), 0o644)
	if err := os.Chown(p, 12345, 12345); err != nil {
		t.Skipf("chown: %v", err)
	}
	if err := File(p, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if uid, gid, _, ok := fileOwner(st); ok && (uid != 12345 || gid != 12345) {
		t.Fatalf("owner %d:%d, want 12345:12345", uid, gid)
	}
}
