package nvidia

import (
	"sort"
	"strings"
)

// Suggestions for a GPU name that matches none: near names and a search
// term for matrix gpu.

// nearGPUNames are the GPUs whose normalized name is within a few edits
// of want (a typo: "rtx4099" → "GeForce RTX 4090"), closest first.
func nearGPUNames(gs []GPU, want string) []string {
	type cand struct {
		name string
		dist int
	}
	limit := max(2, len(want)/4)
	var cs []cand
	for _, g := range gs {
		best := -1
		for _, n := range append([]string{g.Name}, g.Aliases...) {
			if d := editDistance(normGPU(n), want); best < 0 || d < best {
				best = d
			}
		}
		if best >= 0 && best <= limit {
			cs = append(cs, cand{g.Name, best})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		return cs[i].dist < cs[j].dist || (cs[i].dist == cs[j].dist && cs[i].name < cs[j].name)
	})
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// searchTerm is the last word of a GPU name with a digit in it ("4099"
// of "RTX 4099"), else the name: a useful --name for matrix gpu.
func searchTerm(name string) string {
	f := strings.Fields(name)
	for i := len(f) - 1; i >= 0; i-- {
		if strings.ContainsAny(f[i], "0123456789") {
			return f[i]
		}
	}
	return name
}
