package version

import (
	"fmt"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// NVIDIA versions are not PEP 440: driver "535.104.05" keeps its leading
// zero in print, "r418.39" names a driver branch, and a requirement such as
// "CUDA 12.1" means the whole 12.1.x series. They get their own small type
// instead of being squeezed through Version.

const (
	maxDottedFields = 6
	maxDottedDigits = 9
)

// Dotted is a dotted numeric version such as CUDA 12.1.1, cuDNN 8.9.2.26,
// driver 535.104.05 or compute capability 8.6.
type Dotted struct {
	fields []int
	text   string // digits and dots as given, without "v"/"r" prefix
	// ordered is the same version for hashicorp/go-version, whose
	// segment-wise numeric order with zero padding is exactly NVIDIA's
	// (12.1 == 12.1.0 < 12.10, 535.104.05 > 535.54.03). ParseDotted
	// validates the text first: go-version also admits pre-release and
	// metadata suffixes, which NVIDIA versions never have.
	ordered *goversion.Version
}

// ParseDotted reads 1 to 6 dot-separated fields of at most 9 digits each,
// with an optional leading "v", "V", "r" or "R" (driver branches are written
// "r418.39") and surrounding spaces.
func ParseDotted(s string) (Dotted, error) {
	d, err := parseDottedFields(s)
	if err != nil {
		return Dotted{}, err
	}
	v, err := goversion.NewVersion(d.text)
	if err != nil {
		return Dotted{}, fmt.Errorf("version: %q is not a dotted version: %w", s, err)
	}
	d.ordered = v
	return d, nil
}

// parseDottedFields is ParseDotted without the go-version form: enough
// for what needs only the fields (DottedKey), and no regular expression
// runs.
func parseDottedFields(s string) (Dotted, error) {
	t := strings.TrimSpace(s)
	if len(t) > 0 && strings.ContainsRune("vVrR", rune(t[0])) {
		t = t[1:]
	}
	if t == "" {
		return Dotted{}, fmt.Errorf("version: %q is not a dotted version", s)
	}
	parts := strings.Split(t, ".")
	if len(parts) > maxDottedFields {
		return Dotted{}, fmt.Errorf("version: %q has more than %d fields", s, maxDottedFields)
	}
	d := Dotted{text: t}
	for _, p := range parts {
		if !isDigits(p) {
			return Dotted{}, fmt.Errorf("version: %q is not a dotted version (field %q)", s, p)
		}
		if len(p) > maxDottedDigits {
			return Dotted{}, fmt.Errorf("version: %q: field %q has more than %d digits", s, p, maxDottedDigits)
		}
		n, _ := atoi(p)
		d.fields = append(d.fields, n)
	}
	return d, nil
}

// MustParseDotted is ParseDotted for constants; it panics on error.
func MustParseDotted(s string) Dotted {
	d, err := ParseDotted(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Compare orders numerically field by field; missing fields count as 0, so
// "12.1" equals "12.1.0" and "470.82.01" equals "470.82.1".
func (d Dotted) Compare(o Dotted) int {
	if d.ordered != nil && o.ordered != nil {
		return d.ordered.Compare(o.ordered)
	}
	// The zero Dotted (no text) orders as 0.
	for i := 0; i < len(d.fields) || i < len(o.fields); i++ {
		if c := cmpInt(at(d.fields, i), at(o.fields, i)); c != 0 {
			return c
		}
	}
	return 0
}

// Fields returns a copy of the numbers.
func (d Dotted) Fields() []int { return append([]int(nil), d.fields...) }

// String returns the version as written, without the "v"/"r" prefix, so
// driver "535.104.05" keeps its zero. The zero value prints as "0".
func (d Dotted) String() string {
	if d.text == "" {
		return "0"
	}
	return d.text
}

// Major returns the first field.
func (d Dotted) Major() int { return at(d.fields, 0) }

// HasPrefix reports whether d lies in the series p: 12.1.1 and 12.1 are in
// 12.1, 12.10 is not. When p is longer than d, d's missing fields count as 0
// (12.1 is in 12.1.0), consistent with Compare.
func (d Dotted) HasPrefix(p Dotted) bool {
	for i := range p.fields {
		if at(d.fields, i) != p.fields[i] {
			return false
		}
	}
	return true
}

// DottedSpec is a comma-separated AND of clauses on a Dotted version. The
// zero value matches everything.
type DottedSpec struct {
	clauses []dottedClause
}

type dottedClause struct {
	op       string // ==, !=, >=, <=, >, <, ~=
	v        Dotted
	wildcard bool // written with ".*"; same meaning as without, kept for String
}

// ParseDottedSpec reads clauses such as "==12.1", "==8.9.*", ">=525.60.13",
// "<13", ">=12,<12.4", "!=12.2" or "~=12.1". "==" and "!=" match whole
// series: "==12.1" is 12.1 or any 12.1.x, because that is what CUDA and
// cuDNN requirements mean. "~=12.1" is ">=12.1" within the 12.x series. A
// bare version ("12.1") means "==". "" matches everything.
func ParseDottedSpec(s string) (DottedSpec, error) {
	var spec DottedSpec
	if strings.TrimSpace(s) == "" {
		return spec, nil
	}
	for _, raw := range strings.Split(s, ",") {
		c := strings.TrimSpace(raw)
		op := ""
		for _, o := range []string{"==", "!=", ">=", "<=", "~=", ">", "<"} {
			if strings.HasPrefix(c, o) {
				op = o
				break
			}
		}
		rest := strings.TrimSpace(c[len(op):])
		if op == "" {
			op = "=="
		}
		cl := dottedClause{op: op}
		if strings.HasSuffix(rest, ".*") {
			if op != "==" && op != "!=" {
				return DottedSpec{}, fmt.Errorf("version: %q: wildcard \".*\" only works with == and !=", c)
			}
			cl.wildcard = true
			rest = strings.TrimSuffix(rest, ".*")
		}
		d, err := ParseDotted(rest)
		if err != nil || rest != strings.TrimSpace(rest) || rest == "" {
			return DottedSpec{}, fmt.Errorf("version: %q is not a dotted version clause", c)
		}
		if op == "~=" && len(d.fields) < 2 {
			return DottedSpec{}, fmt.Errorf("version: %q: ~= needs at least two fields", c)
		}
		cl.v = d
		spec.clauses = append(spec.clauses, cl)
	}
	return spec, nil
}

// Check reports whether d satisfies every clause.
func (s DottedSpec) Check(d Dotted) bool {
	for _, c := range s.clauses {
		if !c.check(d) {
			return false
		}
	}
	return true
}

func (c dottedClause) check(d Dotted) bool {
	cmp := d.Compare(c.v)
	switch c.op {
	case "==":
		return d.HasPrefix(c.v)
	case "!=":
		return !d.HasPrefix(c.v)
	case ">=":
		return cmp >= 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	case "<":
		return cmp < 0
	case "~=":
		series := Dotted{fields: c.v.fields[:len(c.v.fields)-1]}
		return cmp >= 0 && d.HasPrefix(series)
	}
	return false
}

// String returns the clauses joined by ",".
// Matches reports whether the dotted version text v parses and satisfies
// the specifier; unreadable text matches nothing.
func (s DottedSpec) Matches(v string) bool {
	d, err := ParseDotted(v)
	return err == nil && s.Check(d)
}

func (s DottedSpec) String() string {
	parts := make([]string, len(s.clauses))
	for i, c := range s.clauses {
		parts[i] = c.op + c.v.String()
		if c.wildcard {
			parts[i] += ".*"
		}
	}
	return strings.Join(parts, ",")
}

// MajorText is the text before the first dot of a dotted version ("12" for
// "12.1.1"); it does not parse, so it also serves driver branches.
func MajorText(v string) string { m, _, _ := strings.Cut(v, "."); return m }

// CompareDottedText orders two dotted version texts numerically per field.
func CompareDottedText(a, b string) int { return strings.Compare(DottedKey(a), DottedKey(b)) }

// Field is f[i], or 0 past the end: a missing field of a dotted version
// counts as zero.
func Field(f []int, i int) int { return at(f, i) }
