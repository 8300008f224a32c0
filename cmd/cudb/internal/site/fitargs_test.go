package site

import (
	"context"
	"slices"
	"testing"

	"github.com/cudb/cudb/query"
)

// TestPicksFillBack: the GPU judgements the page reads are shared
// templates; filled with each stack's own words (FillPick, which the page
// does in fillPick) they are exactly what query.StackGPUFit says for every
// stack of every answer and every compute capability the page offers.
func TestPicksFillBack(t *testing.T) {
	ctx := context.Background()
	d, _, sel := shippedSite(t)
	var ccs []string
	for _, g := range sel.GPUs {
		if !slices.Contains(ccs, g.CC) {
			ccs = append(ccs, g.CC)
		}
	}
	checked, templated := 0, 0
	for key, a := range sel.Answers {
		stacks := sel.stacks[key]
		if len(stacks) != len(a.Stacks) {
			t.Fatalf("%s: %d stacks, %d resolved", key, len(a.Stacks), len(stacks))
		}
		for i, ss := range a.Stacks {
			args := FitArgs{}
			if ss.FitArgs != nil {
				args = *ss.FitArgs
			}
			for _, cc := range ccs {
				f, keep, gap := query.StackGPUFit(ctx, d, &stacks[i], cc)
				p := sel.Picks[sel.Fits[ss.Fit][cc]]
				if got := FillPick(p.Detail, args, cc); got != f.Detail || p.Support != f.Support || p.Keep != keep {
					t.Fatalf("%s %s on %s: page says %s %v %q, resolve %s %v %q", key, ss.Variant, cc, p.Support, p.Keep, got, f.Support, keep, f.Detail)
				}
				if got := FillPick(p.Gap, args, cc); got != gap {
					t.Fatalf("%s %s on %s: gap %q, resolve %q", key, ss.Variant, cc, got, gap)
				}
				if p.Detail != f.Detail || p.Gap != gap {
					templated++
				}
				checked++
			}
		}
	}
	t.Logf("%d judgements checked, %d of them shared templates; %d distinct picks, %d fits", checked, templated, len(sel.Picks), len(sel.Fits))
	if checked < 5000 || templated == 0 {
		t.Errorf("too little checked: %d (%d templated)", checked, templated)
	}
}
