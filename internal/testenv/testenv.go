// Package testenv gates the tests that need more than the repository: the
// slow suites (a real browser, a Python virtual environment) that `make
// test-slow` runs, and the shared folder beside the clone (../shared) that
// the snapshot and real-host tests read. Its skip messages start with fixed
// markers, which `make test`'s summary line counts (testenv/summary).
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

const (
	// SlowVar set to 1 runs the slow suites (make test-slow sets it).
	SlowVar = "CUDB_SLOW"
	// SlowMarker starts the skip message of a slow test left out.
	SlowMarker = "[slow suite]"
	// SharedMarker starts the skip message of a test that needs ../shared.
	SharedMarker = "[needs ../shared]"
	// SharedVar overrides where the shared folder is.
	SharedVar = "CUDB_SHARED"
)

// Slow skips the test unless the slow suites were asked for.
func Slow(t testing.TB) {
	t.Helper()
	if os.Getenv(SlowVar) != "1" {
		t.Skip(SlowMarker + " `make test-slow` runs it (" + SlowVar + "=1)")
	}
}

// RepoRoot returns the directory holding go.mod, above the test's
// working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// SkipNoShared skips the test with the shared marker and why.
func SkipNoShared(t testing.TB, what string) {
	t.Helper()
	t.Skip(SharedMarker + " " + what)
}

// Shared returns rel under the shared folder (../shared beside the clone,
// or $CUDB_SHARED), or skips the test with the shared marker when it is
// absent.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	base := os.Getenv(SharedVar)
	if base == "" {
		base = filepath.Join(RepoRoot(t), "..", "shared")
	}
	p := filepath.Join(base, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		SkipNoShared(t, filepath.ToSlash(filepath.Join("shared", rel))+" not found (set "+SharedVar+" to the shared folder to run this test)")
	}
	return p
}

// Fixture returns rel under shared/fixtures, or skips the test.
func Fixture(t testing.TB, rel string) string {
	t.Helper()
	return Shared(t, "fixtures/"+rel)
}
