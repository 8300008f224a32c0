package pytorch

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/scraper"
)

// supportEdits are maintainers' edits of RELEASE.md's "PyTorch CUDA
// Support Matrix", captured as the unified diff their pull request shows
// (captures/CAPTURES.md). The page is edited in place, so the support
// matrix of a release that a newer heading no longer names survives only
// in such an edit: the diff's old side is the table as RELEASE.md stated
// it before the edit, its new side the table the edit wrote. Each side is
// read as a RELEASE.md of its own. Snapshot-only, like the captures.
var supportEdits = []quotedDoc{
	// pytorch/pytorch#175253 (2026-02-18, "Update release 2.11 to latest
	// supported matrix"): old side "For Release 2.9 and 2.10", new side
	// "For Release 2.11".
	{doc{page: "https://github.com/pytorch/pytorch/pull/175253", capture: "RELEASE.md-diff@pytorch-pr-175253.md"},
		"the CUDA support matrix edit", parseSupportDiff},
}

func scrapeSupportEdits(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return scrapeQuoted(ctx, in, supportEdits)
}

// diffSide is one side of a unified diff: its lines, and for each the
// 1-based line of the capture it came from.
type diffSide struct {
	name  string
	lines []string
	from  []int
}

// diffSides splits a unified diff into its old side (context and "-"
// lines) and new side (context and "+" lines). Fence lines and "@@"
// headers belong to neither.
func diffSides(src []byte) [2]diffSide {
	sides := [2]diffSide{{name: "before the edit"}, {name: "after the edit"}}
	add := func(i int, line string, which ...int) {
		for _, w := range which {
			sides[w].lines = append(sides[w].lines, line)
			sides[w].from = append(sides[w].from, i+1)
		}
	}
	for i, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "```"), strings.HasPrefix(line, "@@"):
		case strings.HasPrefix(line, "-"):
			add(i, line[1:], 0)
		case strings.HasPrefix(line, "+"):
			add(i, line[1:], 1)
		default:
			add(i, strings.TrimPrefix(line, " "), 0, 1)
		}
	}
	return sides
}

// parseSupportDiff reads both sides of a support-matrix edit. Rows are
// keyed by host, CUDA and the releases their side names, so the two sides
// (and the newer capture's table) stay apart.
func parseSupportDiff(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	for _, side := range diffSides(src) {
		rows := parseCUDASupport([]byte(strings.Join(side.lines, "\n")), ref)
		if len(rows) == 0 {
			return nil, fmt.Errorf("the diff's side %s has no CUDA support table under a 'For Release' heading", side.name)
		}
		for _, r := range rows {
			line := 0
			fmt.Sscanf(strings.TrimPrefix(r.Ref, ref+":"), "%d", &line)
			if line >= 1 && line <= len(side.from) {
				line = side.from[line-1]
			}
			r.Key += "|" + r.Fields["releases"]
			r.Ref = fmt.Sprintf("%s:%d (PyTorch CUDA Support Matrix, %s)", ref, line, side.name)
			recs = append(recs, r)
		}
	}
	return recs, nil
}
