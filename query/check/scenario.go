package check

import (
	"fmt"
	"strings"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/frameworks"
)

// scenarios lists, in the order they appear, the scenarios whose lines
// install a framework: each is judged on its own with the lines every
// scenario shares. None when the unit has no alternatives.
func scenarios(u *Unit, table frameworks.Table) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range u.Reqs {
		if r.Scenario == "" || seen[r.Scenario] || r.Constraint {
			continue
		}
		if _, fw := canonical(table, r.Name, r.Installer); fw == "" {
			continue
		}
		seen[r.Scenario] = true
		out = append(out, r.Scenario)
	}
	return out
}

// only is the unit as scenario sc installs it: the shared lines and
// sc's own, and lines of scenarios that install no framework. alt says
// that the unit offers other scenarios beside this one.
func (u *Unit) only(sc string, alt bool, table frameworks.Table) *Unit {
	framework := map[string]bool{}
	for _, s := range scenarios(u, table) {
		framework[s] = true
	}
	cp := *u
	cp.Reqs = nil
	for _, r := range u.Reqs {
		if r.Scenario == "" || r.Scenario == sc || !framework[r.Scenario] {
			cp.Reqs = append(cp.Reqs, r)
		}
	}
	cp.alt = alt
	return &cp
}

// keepScenarios drops the lines of extras and groups an install does
// not select (pip install ".[gpu]", uv sync --extra cu128): what is
// selected is installed with the base lines. "*" selects every extra.
func keepScenarios(reqs []Requirement, extras []string, groups bool) []Requirement {
	var out []Requirement
	for _, r := range reqs {
		switch {
		case r.Scenario == "":
		case strings.HasPrefix(r.Scenario, "extra "):
			name := strings.TrimPrefix(r.Scenario, "extra ")
			if !contains(extras, name) && !contains(extras, "*") {
				continue
			}
			if len(extras) == 1 || contains(extras, name) && !contains(extras, "*") {
				r.Scenario = ""
			}
		case strings.HasPrefix(r.Scenario, "group "):
			// uv sync installs the dev group by default; pip installs no
			// group.
			if !groups || r.Scenario != "group dev" {
				continue
			}
			r.Scenario = ""
		case strings.HasPrefix(r.Scenario, "index "):
			if v := strings.TrimPrefix(r.Scenario, "index "); contains(extras, v) {
				r.Scenario = ""
			} else if len(extras) > 0 && !contains(extras, "*") && anyIndexScenario(reqs, extras) {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func anyIndexScenario(reqs []Requirement, extras []string) bool {
	for _, r := range reqs {
		if contains(extras, strings.TrimPrefix(r.Scenario, "index ")) {
			return true
		}
	}
	return false
}

// Read says what check read: every framework build it judged and every
// install step it did not follow (docs/json.md).
type Read struct {
	Frameworks  []ReadBuild `json:"frameworks"`
	NotFollowed []ReadStep  `json:"not_followed"`
}

// ReadBuild is one framework build judged, at the line that installs it.
type ReadBuild struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Unit     string `json:"unit,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Build    string `json:"build"`
}

// ReadStep is an install step check did not follow.
type ReadStep struct {
	File string `json:"file"`
	Line int    `json:"line"`
	What string `json:"what"`
}

// Line is the first line of text output: the builds judged and the
// steps not followed, or that no framework was read at all.
func (r Read) Line() string {
	var b strings.Builder
	if len(r.Frameworks) == 0 {
		b.WriteString("read: no framework build (nothing installs torch, tensorflow, jax or onnxruntime-gpu that cudb could follow)")
	} else {
		b.WriteString("read: ")
		for i, f := range r.Frameworks {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s (%s:%d", f.Build, f.File, f.Line)
			if f.Scenario != "" {
				b.WriteString(", " + f.Scenario)
			}
			b.WriteString(")")
		}
	}
	if n := len(r.NotFollowed); n > 0 {
		fmt.Fprintf(&b, "; not followed: ")
		for i, s := range r.NotFollowed {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s:%d", s.File, s.Line)
		}
	}
	return b.String()
}

// judged records a framework build judged.
func (c *checker) judged(u *Unit, g *fwGroup) {
	rb := ReadBuild{File: g.main.File, Line: g.main.Line, Unit: u.Name, Scenario: g.main.Scenario, Build: stackLabel(g.stack)}
	for _, x := range c.readOut.Frameworks {
		if x == rb {
			return
		}
	}
	c.readOut.Frameworks = append(c.readOut.Frameworks, rb)
}

// judgedFallback records a build judged for the host alone: the line
// as written matches no installable build.
func (c *checker) judgedFallback(u *Unit, g *fwGroup) {
	c.readOut.Frameworks = append(c.readOut.Frameworks, ReadBuild{File: g.main.File, Line: g.main.Line, Unit: u.Name, Scenario: g.main.Scenario,
		Build: stackLabel(g.stack) + " (as named; not installable as written)"})
}

// notFollowed records, and reports as a warning, a step check could
// not follow.
func (c *checker) notFollowed(u *Unit, line int, msg string) {
	c.notFollowedAt(u, u.File, line, msg, "")
}

func (c *checker) notFollowedAt(u *Unit, file string, line int, msg, fix string) {
	c.add(Finding{File: file, Line: line, Category: CatNotJudged, Severity: findings.SevWarning, Unit: u.Name, Message: msg, Fix: fix})
	st := ReadStep{File: file, Line: line, What: msg}
	for _, x := range c.readOut.NotFollowed {
		if x == st {
			return
		}
	}
	c.readOut.NotFollowed = append(c.readOut.NotFollowed, st)
}
