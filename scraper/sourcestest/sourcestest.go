// Package sourcestest finds the shared source snapshots (../shared/sources
// beside the repository) for tests, and skips the test with a message
// when they are absent (a fresh clone outside the workspace).
package sourcestest

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the directory holding go.mod.
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

// Dir returns the snapshot directory (laid out like shared/sources), or
// skips the test. CUDB_SOURCES overrides the location.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CUDB_SOURCES")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared", "sources")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("source snapshots not found at %s (set CUDB_SOURCES to a directory laid out like shared/sources to run this test)", dir)
	}
	return dir
}

// File returns dir/rel under the snapshot directory, or skips the test
// when it is missing.
func File(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("snapshot %s not found", rel)
	}
	return p
}
