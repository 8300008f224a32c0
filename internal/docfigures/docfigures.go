// Package docfigures keeps the numbers the documentation states (page
// weight, site size, schema version, test counts) equal to what the code
// produces: `make docs-figures` computes them and writes them in, and a
// test fails when a document states another value.
//
// A figure in prose is marked `<!-- figure NAME -->VALUE<!-- /figure -->`
// (the comments do not render). Inside code blocks, where a comment would
// show, a Rule names the value by a regular expression instead.
package docfigures

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Rule finds a figure in a code block: Pattern's first group is the value.
type Rule struct {
	File    string // relative to the repository root
	Figure  string
	Pattern *regexp.Regexp
}

// Drift is a figure a document states differently.
type Drift struct {
	File, Figure, Stated, Actual string
}

func (d Drift) String() string {
	if strings.Contains(d.Stated+d.Actual, "\n") {
		// A block: name its first line that differs.
		a, b := strings.Split(d.Stated, "\n"), strings.Split(d.Actual, "\n")
		for i := 0; i < max(len(a), len(b)); i++ {
			x, y := "", ""
			if i < len(a) {
				x = a[i]
			}
			if i < len(b) {
				y = b[i]
			}
			if x != y {
				return fmt.Sprintf("%s: %s differs at its line %d: %q, the code gives %q", d.File, d.Figure, i+1, x, y)
			}
		}
	}
	return fmt.Sprintf("%s: %s is %q, the code gives %q", d.File, d.Figure, d.Stated, d.Actual)
}

var markerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<!-- figure ([a-z0-9-]+) -->(.*?)<!-- /figure -->`)
})

// Apply writes figs into text (the document file) wherever a marker or
// one of rules places them, and returns the new text and what differed.
// A marker naming a figure figs lacks is an error: a typo would otherwise
// keep a number forever.
func Apply(file, text string, figs map[string]string, rules []Rule) (string, []Drift, error) {
	var drift []Drift
	var missing []string
	out := markerRE().ReplaceAllStringFunc(text, func(m string) string {
		g := markerRE().FindStringSubmatch(m)
		v, ok := figs[g[1]]
		if !ok {
			missing = append(missing, g[1])
			return m
		}
		if g[2] != v {
			drift = append(drift, Drift{file, g[1], g[2], v})
		}
		return "<!-- figure " + g[1] + " -->" + v + "<!-- /figure -->"
	})
	for _, r := range rules {
		if r.File != file {
			continue
		}
		v, ok := figs[r.Figure]
		if !ok {
			missing = append(missing, r.Figure)
			continue
		}
		found := false
		out = replaceGroup(r.Pattern, out, func(stated string) string {
			found = true
			if stated != v {
				drift = append(drift, Drift{file, r.Figure, stated, v})
			}
			return v
		})
		if !found {
			return "", nil, fmt.Errorf("%s: the rule for %s (%s) matches nothing", file, r.Figure, r.Pattern)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", nil, fmt.Errorf("%s: no figure named %s", file, strings.Join(missing, ", "))
	}
	return out, drift, nil
}

// replaceGroup replaces the first group of every match of re in s.
func replaceGroup(re *regexp.Regexp, s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		if len(m) < 4 || m[2] < 0 {
			continue
		}
		b.WriteString(s[last:m[2]])
		b.WriteString(f(s[m[2]:m[3]]))
		last = m[3]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Files lists the documents that hold a marker, from names (the
// repository's README.md and docs/*.md) and the files rules name.
func Files(names []string, read func(string) (string, error), rules []Rule) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		t, err := read(n)
		if err != nil {
			return nil, err
		}
		if markerRE().MatchString(t) && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, r := range rules {
		if !seen[r.File] {
			seen[r.File] = true
			out = append(out, r.File)
		}
	}
	sort.Strings(out)
	return out, nil
}

// KB writes a size as people read it: "229 kB", "1.9 MB".
func KB(bytes int64) string {
	switch {
	case bytes >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(bytes)/1e6)
	default:
		return fmt.Sprintf("%d kB", (bytes+500)/1000)
	}
}
