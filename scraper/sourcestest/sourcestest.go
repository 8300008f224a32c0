// Package sourcestest finds the shared source snapshots (../shared/sources
// beside the repository) for tests, and skips the test with a message
// when they are absent (a fresh clone outside the workspace).
package sourcestest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cudb/cudb/internal/testenv"
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	return testenv.RepoRoot(t)
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
		testenv.SkipNoShared(t, "source snapshots not found at "+dir+" (set CUDB_SOURCES to a directory laid out like shared/sources to run this test)")
	}
	return dir
}

// File returns dir/rel under the snapshot directory, or skips the test
// when it is missing.
func File(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), rel)
	if _, err := os.Stat(p); err != nil {
		testenv.SkipNoShared(t, "snapshot "+rel+" not found")
	}
	return p
}
