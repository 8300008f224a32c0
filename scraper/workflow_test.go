package scraper_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
	_ "github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// TestWorkflowRefreshesEverySource keeps the nightly workflow in step
// with the source list: every source has its own refresh step.
func TestWorkflowRefreshesEverySource(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sourcestest.RepoRoot(t), ".github", "workflows", "refresh.yml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := string(b)
	for _, s := range scraper.Sources() {
		if !strings.Contains(wf, "./cudb refresh --source "+s.Name()+" ") {
			t.Errorf("the refresh workflow has no step for source %s", s.Name())
		}
	}
}
