package figures

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/testenv"
)

// TestDocsFiguresCurrent fails when a document states a figure (page
// weight, site size, schema version, test counts) that the code no longer
// gives: run `make docs-figures` to write the new values in.
func TestDocsFiguresCurrent(t *testing.T) {
	root := testenv.RepoRoot(t)
	figs, err := Compute(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	drift, err := Update(root, figs, false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, d := range drift {
		lines = append(lines, d.String())
	}
	if len(lines) > 0 {
		t.Errorf("stale figures in the docs (make docs-figures writes them):\n%s", strings.Join(lines, "\n"))
	}
	for _, want := range []string{"install-first-load", "site-size", "schema-version", "tests"} {
		if figs[want] == "" {
			t.Errorf("no figure %s", want)
		}
	}
	t.Logf("figures: %v", figs)
}
