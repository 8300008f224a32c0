//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/fakesource"
)

// childEnv makes the test binary run cudb itself (see TestMain): the kill
// test's processes are the real command tree with two fake sources added
// and a step hook, and the release binary carries neither.
const childEnv = "CUDB_KILLTEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(child(os.Args[1:]))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// child runs cudb with the fake sources fake-a and fake-b besides the
// real ones; with CUDB_REFRESH_TEST_DELAY set it announces each refresh
// step on stderr and sleeps there (only at CUDB_REFRESH_TEST_STEP when
// that is set), so the test can SIGKILL it between any two steps.
func child(args []string) int {
	f := cli.NewFactory(cli.SystemStreams())
	f.Sources = func() []scraper.Source {
		return append(all.Sources(), fakesource.New("fake-a"), fakesource.New("fake-b"))
	}
	if v := os.Getenv("CUDB_REFRESH_TEST_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "CUDB_REFRESH_TEST_DELAY: %v\n", err)
			return 2
		}
		only := os.Getenv("CUDB_REFRESH_TEST_STEP")
		f.RefreshHook = func(step string) {
			fmt.Fprintf(os.Stderr, "testhook: %s\n", step)
			if only == "" || only == step {
				time.Sleep(d)
			}
		}
	}
	return app.Run(f, args)
}

// cudb is a command running the test binary as cudb (see child).
func cudb(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	return cmd
}

// TestRefreshSurvivesSIGKILL kills `cudb refresh` (the real command tree,
// run by the test binary itself with the fake sources fake-a and fake-b
// and the step hook) with SIGKILL at each step, and checks that the
// database still passes `cudb db check` and that the data directory holds
// exactly the old state or (after the recovery the next refresh runs) the
// new one.
func TestRefreshSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cudb as a child process at every step")
	}
	v1, v2 := t.TempDir(), t.TempDir()
	writePage(t, v1, "fake-a", 30, "")
	writePage(t, v1, "fake-b", 40, "")
	writePage(t, v2, "fake-a", 31, "2024-02-02")
	writePage(t, v2, "fake-b", 41, "")

	refresh := func(snaps, data string) {
		t.Helper()
		cmd := cudb("refresh", "--init", "--snapshots", snaps, "--data", data, "--source", "fake-a", "--source", "fake-b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("refresh: %v\n%s", err, out)
		}
	}
	base := t.TempDir()
	refresh(v1, base)
	oldState := dataFiles(t, base)
	newDir := copyDir(t, base)
	refresh(v2, newDir)
	newState := dataFiles(t, newDir)
	if oldState["cudb.db"] == newState["cudb.db"] || oldState["sources/fake-a.json"] == newState["sources/fake-a.json"] {
		t.Fatal("the two states do not differ; the test would prove nothing")
	}

	steps := []string{"scraped fake-a", "scraped fake-b", "built", "staged", "journal",
		"moved sources/fake-a.json", "moved sources/fake-b.json", "moved cudb.db", "moved manifest.json", "committed"}
	for _, step := range steps {
		t.Run(strings.ReplaceAll(step, "/", "_"), func(t *testing.T) {
			dir := copyDir(t, base)
			cmd := cudb("refresh", "--snapshots", v2, "--data", dir, "--source", "fake-a", "--source", "fake-b")
			cmd.Env = append(cmd.Env, "CUDB_REFRESH_TEST_DELAY=1m", "CUDB_REFRESH_TEST_STEP="+step)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The binary sleeps right after announcing the step, so the
			// kill lands exactly there.
			seen := waitFor(t, stderr, step)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if !seen {
				t.Fatalf("step %q never announced", step)
			}

			chk := cudb("db", "check", "--db", filepath.Join(dir, "cudb.db"))
			if out, err := chk.CombinedOutput(); err != nil {
				t.Fatalf("db check after SIGKILL at %q: %v\n%s", step, err, out)
			}
			got := dataFiles(t, dir)
			for name, content := range got {
				if content != oldState[name] && content != newState[name] {
					t.Errorf("%s is neither the old nor the new file", name)
				}
			}
			// What the next refresh does first: take over the stale lock
			// and recover.
			lock, err := datadir.AcquireLock(dir)
			if err != nil {
				t.Fatalf("stale lock not taken over: %v", err)
			}
			if err := datadir.Recover(dir); err != nil {
				t.Fatal(err)
			}
			lock.Release()
			got = dataFiles(t, dir)
			switch {
			case equal(got, oldState):
				t.Logf("killed at %q: old state kept", step)
			case equal(got, newState):
				t.Logf("killed at %q: new state completed", step)
			default:
				t.Fatalf("killed at %q: the data is a mix of old and new", step)
			}
			if left := allFiles(t, dir); len(left) != len(got) {
				t.Fatalf("leftovers after recovery: %v", left)
			}
		})
	}
}

// waitFor reads the hook's announcements until step.
func waitFor(t *testing.T, stderr interface{ Read([]byte) (int, error) }, step string) bool {
	t.Helper()
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if sc.Text() == "testhook: "+step {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		return ok
	case <-time.After(5 * time.Minute):
		return false
	}
}

func writePage(t *testing.T, dir, name string, n int, firstDate string) {
	t.Helper()
	var rows [][3]string
	for i := 0; i < n; i++ {
		d := "2024-01-01"
		if i == 0 && firstDate != "" {
			d = firstDate
		}
		rows = append(rows, [3]string{fmt.Sprintf("2.%d", i), fmt.Sprintf("2.%d", i), d})
	}
	p := fakesource.SnapshotFile(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(fakesource.Page(rows...)), 0o644); err != nil {
		t.Fatal(err)
	}
}

var dataNames = []string{"sources/fake-a.json", "sources/fake-b.json", "cudb.db", "cudb.cols", "manifest.json"}

func dataFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, n := range dataNames {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		m[n] = string(b)
	}
	return m
}

// imageCache is the column image cudb keeps beside a --db file it read
// (db.OpenFileCached: a dot-name holding the file's sha256): cudb's own
// cache of the current content, not a leftover of the refresh.
var imageCache = regexp.MustCompile(`^\.cudb\.db\.[0-9a-f]{64}\.CUDBCOL1\.cache$`)

func allFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !imageCache.MatchString(d.Name()) {
			out = append(out, p)
		}
		return err
	})
	return out
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, n := range dataNames {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, n)), 0o755)
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
