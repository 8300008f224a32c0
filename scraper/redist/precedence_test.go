package redist_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/redist"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// The manifests come after NVIDIA's tables: where the release notes and a
// manifest state the same toolkit's driver, they agree on the committed
// data (13.1.1: 590.48.01); where a manifest says otherwise, the release
// notes' value is kept and the difference is a conflict db check lists.
func TestManifestsYieldToTheReleaseNotes(t *testing.T) {
	root := sourcestest.RepoRoot(t)
	var srcs []scraper.Source
	for _, s := range all.Sources() {
		if s.Name() == "cudadriver" || s.Name() == redist.Name {
			srcs = append(srcs, s)
		}
	}
	if len(srcs) != 2 || srcs[0].Name() != "cudadriver" {
		t.Fatalf("want cudadriver before %s in scraper/all, got %v", redist.Name, srcs)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sources"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range srcs {
		b, err := os.ReadFile(scraper.SnapshotPath(filepath.Join(root, "data"), s.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() == redist.Name {
			b = []byte(strings.Replace(string(b), `"driver_version": "590.48.01"`, `"driver_version": "590.48.07"`, 1))
		}
		if err := os.WriteFile(scraper.SnapshotPath(dir, s.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _, err := scraper.Facts(dir, srcs)
	if err != nil {
		t.Fatal(err)
	}
	kept := ""
	for _, c := range f.CUDADrivers {
		if c.CUDA == "13.1.1" && c.OS == "linux" && c.Kind == "toolkit" {
			kept = c.MinDriver
		}
	}
	if kept != "590.48.01" {
		t.Errorf("13.1.1 Linux floor = %q, want the release notes' 590.48.01", kept)
	}
	found := false
	for _, c := range f.Conflicts {
		if c.Subject == "cuda_driver 13.1.1 linux toolkit" && c.Kept == "590.48.01" && c.Other == "590.48.07" && strings.Contains(c.OtherSource, redist.Name) {
			found = true
		}
	}
	if !found {
		t.Errorf("no conflict recorded for the manifest's different driver: %+v", f.Conflicts)
	}
}
