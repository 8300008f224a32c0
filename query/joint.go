package query

import (
	"context"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
)

// JointCombination is one combination Resolve tries for a request naming
// two or more frameworks: one stack per framework (Parts, indices into
// Joint.Stacks) and merge's verdict on them, the merged stack or the
// conflicts that keep them apart.
type JointCombination struct {
	Parts     []int
	Stack     *Stack
	Conflicts []Incompatibility
}

// Joint is everything Resolve judges for a request naming two or more
// frameworks and no host constraint: each framework's stacks, in the
// order Resolve ranks them, and every combination in the order combine
// walks them. The site's install selector precomputes it (CombineStacks
// on each release's own answer), so its page only looks up Go's
// verdicts: with a driver or GPU chosen it drops the stacks Resolve would
// drop before combining and walks the same order.
type Joint struct {
	Stacks       [][]Stack
	Combinations []JointCombination
}

// Combinations answers r (two or more frameworks, no --driver, --gpu or
// --sm) with every combination merge judges: each framework resolved as
// Resolve does, then CombineStacks. A request whose product of stacks is
// past what combine tries is refused. The tests hold it to Resolve.
func Combinations(ctx context.Context, d *db.DB, r ResolveRequest) (*Joint, error) {
	if r.Driver != "" || r.GPU != "" || r.SM != "" {
		return nil, errs.Usage("joint combinations are judged without a driver or GPU")
	}
	p, err := parseRequest(r)
	if err != nil {
		return nil, err
	}
	if len(p.frameworks) < 2 {
		return nil, errs.Usage("joint combinations need two or more frameworks")
	}
	cs, err := newConstraints(ctx, d, p)
	if err != nil {
		return nil, err
	}
	var per [][]Stack
	for _, fr := range p.frameworks {
		stacks, err := frameworkStacks(ctx, d, p, fr, cs)
		if err != nil {
			return nil, err
		}
		per = append(per, stacks)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, stacks := range per {
		for i := range stacks {
			finish(&stacks[i], p.Explain)
		}
	}
	return CombineStacks(per, p.Platform)
}

// CombineStacks is Combinations for stacks already resolved: per holds
// each framework's stacks as Resolve answers that framework alone for
// the same OS and channel (no driver or GPU), in its order. The site's
// install selector resolves each release once and pairs the answers.
func CombineStacks(per [][]Stack, platform string) (*Joint, error) {
	j := &Joint{Stacks: per}
	n := 1
	for _, stacks := range per {
		n *= len(stacks)
	}
	if n > maxPairs {
		return nil, errs.Errorf(errs.CodeNotFound, "%d combinations: past the %d resolve tries", n, maxPairs)
	}
	var walk func(i int, idx []int, acc []Stack)
	walk = func(i int, idx []int, acc []Stack) {
		if i == len(per) {
			c := JointCombination{Parts: append([]int(nil), idx...)}
			merged, conflicts := merge(append([]Stack(nil), acc...), platform)
			if len(conflicts) == 0 {
				// The parts were finished (their citations kept or
				// dropped) as Resolve finishes them: keep what they carry.
				finish(&merged, true)
				c.Stack = &merged
			} else {
				c.Conflicts = conflicts
			}
			j.Combinations = append(j.Combinations, c)
			return
		}
		for k, s := range per[i] {
			walk(i+1, append(idx, k), append(acc, s))
		}
	}
	walk(0, nil, nil)
	return j, nil
}
