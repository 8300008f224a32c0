package datadir_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cudb/cudb/internal/datadir"
)

// tree maps each regular file under dir (slash-separated) to its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRecoverFinishesJournaledCommit(t *testing.T) {
	data := t.TempDir()
	stage := filepath.Join(data, ".refresh-staging")
	os.MkdirAll(filepath.Join(stage, "sources"), 0o755)
	os.WriteFile(filepath.Join(stage, "sources", "a.json"), []byte("new a"), 0o644)
	os.WriteFile(filepath.Join(data, "manifest.json"), []byte("new manifest"), 0o644) // already moved
	os.WriteFile(filepath.Join(data, ".refresh-commit.json"), []byte(`{"files":["sources/a.json","manifest.json"]}`), 0o644)
	os.WriteFile(filepath.Join(data, ".cudb.db.tmp-123"), []byte("x"), 0o644)
	if err := datadir.Recover(data); err != nil {
		t.Fatal(err)
	}
	got := tree(t, data)
	if len(got) != 2 || got["sources/a.json"] != "new a" || got["manifest.json"] != "new manifest" {
		t.Fatalf("after recover: %v", got)
	}
	// without a journal, staged files are dropped
	os.MkdirAll(stage, 0o755)
	os.WriteFile(filepath.Join(stage, "cudb.db"), []byte("half"), 0o644)
	if err := datadir.Recover(data); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, data); len(got) != 2 {
		t.Fatalf("staging kept: %v", got)
	}
}

func TestLock(t *testing.T) {
	data := t.TempDir()
	lock, err := datadir.AcquireLock(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := datadir.AcquireLock(data); !errors.Is(err, datadir.ErrLocked) {
		t.Fatalf("second lock: want ErrLocked, got %v", err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	// a lock left by a process that is gone is taken over
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, datadir.LockName), []byte(fmt.Sprintf("%d\n", cmd.Process.Pid)), 0o644)
	lock, err = datadir.AcquireLock(data)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	lock.Release()
	if got := tree(t, data); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.json")
	for _, body := range []string{"one", "two"} {
		if err := datadir.WriteFileAtomic(p, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if got := tree(t, dir); len(got) != 1 || got["sub/f.json"] != body {
			t.Fatalf("after writing %q: %v", body, got)
		}
	}
}
