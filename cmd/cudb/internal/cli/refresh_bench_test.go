package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// BenchmarkRefreshSnapshots is the offline refresh of every source from
// the shared snapshots (target: < 2 s per op). The first iteration
// writes the files; later ones find nothing changed, the nightly common
// case.
func BenchmarkRefreshSnapshots(b *testing.B) {
	snaps := sourcestest.Dir(b)
	srcs := all.Sources()
	if len(srcs) == 0 {
		b.Skip("no sources registered on this branch: nothing to refresh")
	}
	data := b.TempDir()
	if ov, err := os.ReadFile(filepath.Join(sourcestest.RepoRoot(b), "data", "overrides.yaml")); err == nil {
		os.WriteFile(filepath.Join(data, "overrides.yaml"), ov, 0o644)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
			Input: scraper.Input{Snapshots: snaps}, DataDir: data, Sources: srcs, All: srcs,
		}); err != nil {
			b.Fatal(err)
		}
	}
}
