package version

import (
	"fmt"
	"strings"
)

// Specifiers follow PEP 440 "Version specifiers" with Python's packaging
// library as the reference for the corners PEP 440 leaves to tools (how a
// pre-release is "explicitly named", how exclusive bounds treat post and
// local versions). They are implemented here, not with
// github.com/aquasecurity/go-pep440-version, because cudb needs the
// pre-release switch per call and exact control over local labels
// ("==2.1" must match "2.1.0+cu121"; "==2.1.0+cu121" must not match
// "2.1.0+cu118").

// Specifier is one clause: an operator and a version, e.g. ">=2.1" or
// "==2.1.*".
type Specifier struct {
	op       string
	v        Version
	wildcard bool
}

// Op returns the operator: "==", "!=", "<=", ">=", "<", ">" or "~=".
func (s Specifier) Op() string { return s.op }

// Version returns the version the clause names (for "==2.1.*", 2.1).
func (s Specifier) Version() Version { return s.v }

// Wildcard reports a "==X.*" or "!=X.*" clause.
func (s Specifier) Wildcard() bool { return s.wildcard }

// String returns the clause with its version in normal form.
func (s Specifier) String() string {
	t := s.op + s.v.String()
	if s.wildcard {
		t += ".*"
	}
	return t
}

// Specifiers is a comma-separated list of clauses that must all hold. An
// empty list accepts every final release.
type Specifiers []Specifier

var specOps = []string{"===", "==", "!=", "<=", ">=", "~=", "<", ">"}

// ParseSpecifiers reads a PEP 440 specifier list such as ">=2,<2.3",
// "==2.1.*", "~=2.1" or "==2.1.0+cu121". "" gives an empty list.
// Arbitrary equality ("===") is rejected: it compares raw strings, which
// cudb never needs, and accepting it would make "torch===2.1" silently mean
// something other than "==2.1".
func ParseSpecifiers(s string) (Specifiers, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out Specifiers
	for _, raw := range strings.Split(s, ",") {
		sp, err := parseSpecifier(strings.TrimSpace(raw))
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

func parseSpecifier(c string) (Specifier, error) {
	op := ""
	for _, o := range specOps {
		if strings.HasPrefix(c, o) {
			op = o
			break
		}
	}
	switch op {
	case "":
		return Specifier{}, fmt.Errorf("version: %q: specifier needs an operator (==, !=, <=, >=, <, >, ~=)", c)
	case "===":
		return Specifier{}, fmt.Errorf("version: %q: arbitrary equality (===) is not supported", c)
	}
	text := strings.TrimSpace(c[len(op):])
	sp := Specifier{op: op}
	if strings.HasSuffix(text, ".*") {
		if op != "==" && op != "!=" {
			return Specifier{}, fmt.Errorf("version: %q: wildcard \".*\" only works with == and !=", c)
		}
		sp.wildcard = true
		text = strings.TrimSuffix(text, ".*")
	}
	if text == "" {
		return Specifier{}, fmt.Errorf("version: %q: operator %s needs a version", c, op)
	}
	v, err := Parse(text)
	if err != nil || text != strings.TrimSpace(text) {
		return Specifier{}, fmt.Errorf("version: %q: %q is not a PEP 440 version", c, text)
	}
	sp.v = v
	switch {
	case sp.wildcard && (v.preL != "" || v.hasPost || v.hasDev || len(v.local) > 0):
		return Specifier{}, fmt.Errorf("version: %q: a wildcard may follow only a release like 2.1", c)
	case len(v.local) > 0 && op != "==" && op != "!=":
		return Specifier{}, fmt.Errorf("version: %q: a local label (+%s) is only allowed with == and !=", c, v.Local())
	case op == "~=" && len(v.release) < 2:
		return Specifier{}, fmt.Errorf("version: %q: ~= needs at least two release numbers (e.g. ~=2.1)", c)
	}
	return sp, nil
}

// Check reports whether v satisfies every clause. Pre-releases (including
// dev releases) are rejected unless allowPre is set or one of the clauses
// that can select a version (==, >=, <=, ~=) names a pre-release itself, as
// pip does.
func (s Specifiers) Check(v Version, allowPre bool) bool {
	if v.IsPrerelease() && !allowPre && !s.namesPrerelease() {
		return false
	}
	for _, c := range s {
		if !c.match(v) {
			return false
		}
	}
	return true
}

func (s Specifiers) namesPrerelease() bool {
	for _, c := range s {
		switch c.op {
		case "==", ">=", "<=", "~=":
			if !c.wildcard && c.v.IsPrerelease() {
				return true
			}
		}
	}
	return false
}

// match applies one clause, ignoring the pre-release policy.
func (s Specifier) match(v Version) bool {
	switch s.op {
	case "==":
		return s.equal(v)
	case "!=":
		return !s.equal(v)
	case "~=":
		prefix := Specifier{op: "==", v: s.v.base(), wildcard: true}
		prefix.v.release = s.v.release[:len(s.v.release)-1]
		return v.public().Compare(s.v) >= 0 && prefix.equal(v)
	case "<=":
		return v.public().Compare(s.v) <= 0
	case ">=":
		return v.public().Compare(s.v) >= 0
	case "<":
		// "<2.1" must not admit 2.1rc1: a pre-release of the bound itself is
		// excluded unless the bound is a pre-release.
		if v.Compare(s.v) >= 0 {
			return false
		}
		return s.v.IsPrerelease() || !v.IsPrerelease() || v.base().Compare(s.v.base()) != 0
	case ">":
		// ">2.1" must not admit 2.1.post1 (unless the bound is a post
		// release) nor 2.1+local.
		if v.Compare(s.v) <= 0 {
			return false
		}
		if !s.v.hasPost && v.hasPost && v.base().Compare(s.v.base()) == 0 {
			return false
		}
		return len(v.local) == 0 || v.base().Compare(s.v.base()) != 0
	}
	return false
}

// equal implements "==": a wildcard is a release-prefix match on the public
// version; without a wildcard the local label of v is ignored unless the
// clause has one.
func (s Specifier) equal(v Version) bool {
	if s.wildcard {
		if v.epoch != s.v.epoch {
			return false
		}
		for i, n := range s.v.release {
			if at(v.release, i) != n {
				return false
			}
		}
		return true
	}
	if len(s.v.local) == 0 {
		v = v.public()
	}
	return v.Compare(s.v) == 0
}

// String returns the clauses joined by ",".
func (s Specifiers) String() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}

// IsExact reports a single "==" clause without wildcard: a pin to one
// version (still matching any local label when the pin has none).
func (s Specifiers) IsExact() bool {
	return len(s) == 1 && s[0].op == "==" && !s[0].wildcard
}

// Intersects reports whether some version satisfies both lists, as pip
// must find one version of a package that every requirement on it admits.
// It tries each clause's boundary version and the versions just past it
// (a post release, the next micro release), which covers exact pins,
// half-open ranges and wildcards; pre-releases count.
func (s Specifiers) Intersects(o Specifiers) bool {
	if len(s) == 0 || len(o) == 0 {
		return true
	}
	var probes []Version
	for _, c := range append(append(Specifiers{}, s...), o...) {
		v := c.v
		probes = append(probes, v)
		up := v.base()
		up.hasPost, up.post = true, 1
		probes = append(probes, up)
		next := v.base()
		next.release = append(append([]int(nil), next.release...), 1)
		probes = append(probes, next)
		if len(v.release) > 0 {
			bump := v.base()
			bump.release = append([]int(nil), bump.release...)
			bump.release[len(bump.release)-1]++
			probes = append(probes, bump)
		}
	}
	for _, v := range probes {
		if s.Check(v, true) && o.Check(v, true) {
			return true
		}
	}
	return false
}
