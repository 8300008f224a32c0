package query

import (
	"fmt"
	"sort"
	"strings"
)

// ConflictLines summarises conflicts: one line per pair of builds naming
// the first component they disagree on and how many more there are, or
// every conflict with all. cudb resolve prints them; the site's install
// selector shows the same lines.
func ConflictLines(ks []Incompatibility, all bool) []string {
	var lines []string
	if all {
		for _, k := range ks {
			lines = append(lines, fmt.Sprintf("conflict (%s): %s", k.Kind, k.Message))
		}
		return lines
	}
	type group struct {
		first Incompatibility
		more  []string
	}
	// The conflict shown for a pair: a disagreement on CUDA, cuDNN,
	// Python or platform first, then a cuDNN pin, then the first pin.
	rank := func(k Incompatibility) int {
		switch {
		case k.Kind != "pin":
			return 0
		case strings.Contains(k.Package, "cudnn"):
			return 1
		}
		return 2
	}
	what := func(k Incompatibility) string {
		if k.Package != "" {
			return k.Package
		}
		return k.Kind
	}
	var order []string
	groups := map[string]*group{}
	for _, k := range ks {
		key := strings.Join(k.Between, "\x00")
		g, ok := groups[key]
		switch {
		case !ok:
			groups[key] = &group{first: k}
			order = append(order, key)
		case rank(k) < rank(g.first):
			g.more = append(g.more, what(g.first))
			g.first = k
		default:
			g.more = append(g.more, what(k))
		}
	}
	for _, key := range order {
		g := groups[key]
		sort.Strings(g.more)
		line := fmt.Sprintf("conflict (%s): %s", g.first.Kind, g.first.Message)
		if len(g.more) > 0 {
			line += fmt.Sprintf(" (and %d more: %s; --explain lists each)", len(g.more), strings.Join(g.more, ", "))
		}
		lines = append(lines, line)
	}
	return lines
}
