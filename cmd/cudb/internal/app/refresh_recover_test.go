package app_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/internal/datadir"
)

// copyTree copies the regular files and folders under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// deadPid is the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// frozenAt runs the real refresh command over the fake sources and
// returns a copy of the data directory as it was at step, with the lock
// left by a process that is gone: what a refresh killed there leaves.
func frozenAt(t *testing.T, step string, args ...string) string {
	t.Helper()
	var data string
	for i, a := range args {
		if a == "--data" {
			data = args[i+1]
		}
	}
	frozen := filepath.Join(t.TempDir(), "frozen")
	seen := false
	s, _, errOut := cli.TestStreams("")
	f := fakeFactory(s)
	f.RefreshHook = func(got string) {
		if got == step && !seen {
			seen = true
			copyTree(t, data, frozen)
		}
	}
	if code := app.Run(f, args); code != 0 {
		t.Fatalf("refresh: exit %d: %s", code, errOut)
	}
	if !seen {
		t.Fatalf("refresh never reached %q", step)
	}
	if err := os.WriteFile(filepath.Join(frozen, datadir.LockName), []byte(fmt.Sprintf("%d\n", deadPid(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	return frozen
}

// A first refresh (--init) killed at any step before its data landed
// leaves a folder that the next run recovers: without --init the error
// names the exact command, and that command completes it.
func TestRefreshInitKilledIsRecoverable(t *testing.T) {
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	for _, step := range []string{"scraped fake-a", "staged", "journal"} {
		t.Run(step, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "d")
			frozen := frozenAt(t, step, "refresh", "--init", "--data", data, "--base-url", base)
			code, _, stderr := fakeRun("refresh", "--data", frozen, "--base-url", base)
			want := "Try: cudb refresh --data " + frozen + " --init"
			if code != 2 || !strings.Contains(stderr, "interrupted `cudb refresh --init`") || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, want 2 saying %q: %s", code, want, stderr)
			}
			if code, _, stderr = fakeRun("refresh", "--data", frozen, "--base-url", base, "--init"); code != 0 {
				t.Fatalf("the named command: exit %d: %s", code, stderr)
			}
			if code, _, stderr = run("db", "check", "--db", filepath.Join(frozen, "cudb.db")); code != 0 {
				t.Fatalf("db check after recovery: exit %d: %s", code, stderr)
			}
			for _, leftover := range []string{datadir.LockName, ".refresh-staging", ".refresh-commit.json"} {
				if _, err := os.Lstat(filepath.Join(frozen, leftover)); err == nil {
					t.Errorf("%s left behind", leftover)
				}
			}
		})
	}
}

// A refresh killed while moving files, whose journal is then damaged:
// its copy in the staging folder completes the commit; with the copy
// damaged too, db check refuses the directory (exit non-zero, naming the
// journal) and touches nothing.
func TestDBCheckDamagedJournal(t *testing.T) {
	data := filepath.Join(t.TempDir(), "d")
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	if code, _, stderr := fakeRun("refresh", "--init", "--data", data, "--base-url", base); code != 0 {
		t.Fatal(stderr)
	}
	base = serve(t, map[string]string{"fake-a": page(5), "fake-b": page(6)})
	frozen := frozenAt(t, "moved sources/fake-a.json", "refresh", "--data", data, "--base-url", base)
	journal := filepath.Join(frozen, ".refresh-commit.json")
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("no journal at the step: %v", err)
	}
	journalCopy := filepath.Join(frozen, ".refresh-staging", ".journal.json")
	if _, err := os.Stat(journalCopy); err != nil {
		t.Fatalf("no copy of the journal in the staging folder: %v", err)
	}
	// Only the journal damaged: its copy completes the commit.
	onlyJournal := filepath.Join(t.TempDir(), "only-journal")
	copyTree(t, frozen, onlyJournal)
	if err := os.WriteFile(filepath.Join(onlyJournal, ".refresh-commit.json"), []byte(`{"files":["sour`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run("db", "check", "--db", filepath.Join(onlyJournal, "cudb.db"))
	if code != 0 || !strings.Contains(stdout, "its copy in .refresh-staging was used") {
		t.Fatalf("db check with the journal's copy intact: exit %d: %s%s", code, stdout, stderr)
	}
	// Both damaged: refused.
	for _, p := range []string{journal, journalCopy} {
		if err := os.WriteFile(p, []byte(`{"files":["sour`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshotTree(t, frozen)
	code, stdout, stderr = run("db", "check", "--db", filepath.Join(frozen, "cudb.db"))
	if code == 0 || !strings.Contains(stderr, "journal is damaged") || !strings.Contains(stderr, journal) {
		t.Fatalf("db check: exit %d: %s%s", code, stdout, stderr)
	}
	if after := snapshotTree(t, frozen); after != before {
		t.Errorf("the damaged directory was changed:\n%s\nnow:\n%s", before, after)
	}
}

func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == datadir.LockName {
			return err // the dead owner's lock is taken over and released
		}
		c, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(c))
		return nil
	})
	return b.String()
}
