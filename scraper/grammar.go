package scraper

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cudb/cudb/internal/version"
)

// Grammar is the form a field's values take. Every value of every record
// is checked before a snapshot may replace the previous one: a value that
// does not have its field's grammar fails the source (a shifted column,
// "13.x.1" where a CUDA version belongs), whatever Normalize would do
// with it.
type Grammar struct {
	// Name says the grammar in errors ("a dotted version").
	Name  string
	valid func(v string) bool
}

// Valid reports whether v has the grammar.
func (g Grammar) Valid(v string) bool { return g.valid == nil || g.valid(v) }

// Pattern is a grammar matched by a whole-value regular expression (RE2
// syntax; anchored for you).
func Pattern(name, re string) Grammar {
	// Compiled on first use: the grammars are package variables, and
	// every cudb start (a query as much as a refresh) would otherwise
	// compile them all (TestGrammarPatternsCompile keeps them valid).
	r := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + re + `)$`) })
	return Grammar{Name: name, valid: func(v string) bool { return r().MatchString(v) }}
}

// OrEmpty accepts g or the empty value.
func OrEmpty(g Grammar) Grammar {
	return Grammar{Name: g.Name + " or empty", valid: func(v string) bool { return v == "" || g.Valid(v) }}
}

// OrPlaceholder accepts g, the empty value or a placeholder (N/A, -, TBD).
func OrPlaceholder(g Grammar) Grammar {
	return Grammar{Name: g.Name + " or a placeholder", valid: func(v string) bool {
		return placeholders[strings.ToLower(strings.TrimSpace(v))] || g.Valid(v)
	}}
}

// The grammars sources declare (see Fielded); fields they do not declare
// get VersionText or DateText by their name (IsVersionField, IsDateField)
// and Text otherwise.
var (
	// Text is any value; like every value it must hold no control
	// character (tab and newline, which table cells can hold, aside).
	Text = Grammar{Name: "text"}
	// VersionText is an upstream version cell, as VersionLike says.
	VersionText = Grammar{Name: "a version", valid: VersionLike}
	// DateText is a date ParseDate reads (or a placeholder).
	DateText = Grammar{Name: "a date", valid: func(v string) bool { _, ok := ParseDate(v); return ok }}
	// Dotted is a plain dotted version: 12, 12.0, 12.0.1, 8.9.2.26.
	Dotted = Pattern("a dotted version", `\d+(?:\.\d+)*`)
	// DottedOrEmpty is Dotted or "" (the row does not say).
	DottedOrEmpty = OrEmpty(Dotted)
	// Driver is an NVIDIA driver version: 525, 525.60, 525.60.13.
	Driver = Pattern("a driver version", `\d{3}(?:\.\d{1,3}){0,2}`)
	// DriverOrEmpty is Driver or "".
	DriverOrEmpty = OrEmpty(Driver)
	// SM is a GPU architecture: sm_90, sm_90a, sm_100f.
	SM = Pattern("an sm_XY architecture", `sm_\d{2,3}[a-z]?`)
	// Capability is a compute capability: 8.6, 9.0, or 5.x for a family.
	// Its range is the CLI's --sm range (version.ValidCapability).
	Capability = Grammar{Name: "a compute capability (1.0 to 19.9, or N.x)", valid: func(v string) bool { return version.ValidCapability(v, true) }}
	// Python is a Python interpreter's version: 3.12, 3.12.3 (the CLI's
	// --python grammar, version.ValidPython).
	Python = Grammar{Name: "a Python version (3.12, 3.12.3)", valid: version.ValidPython}
	// PEP440 is a Python package version: 2.1.0, 2.1.0+cu121, 2.15.0rc1.
	PEP440 = Pattern("a PEP 440 version", `v?\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d*)?(?:\+[0-9A-Za-z]+(?:[._-][0-9A-Za-z]+)*)?`)
	// Specifier is a PEP 440 version or specifier list: ==8.9.2.26,
	// >=12.5.3.2,<13.0, 2.1.0.
	Specifier = Pattern("a version specifier", specItem+`(?:\s*,\s*`+specItem+`)*`)
)

const specItem = `(?:(?:==|>=|<=|!=|~=|>|<)\s*)?v?\d+(?:\.\d+)*(?:\.\*)?(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d*)?(?:\+[0-9A-Za-z.]+)?`

// Fielded is implemented by sources that give the grammar of their
// fields, per table then per field, where the naming convention is too
// loose (a CUDA version that must be dotted, a driver floor). Fields it
// does not name get the grammar their name implies.
type Fielded interface {
	Fields() map[string]map[string]Grammar
}

// IsVersionField reports whether a field name holds a version by the
// naming convention: "version", or ending in "version" / "_ver".
func IsVersionField(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, "version") || strings.HasSuffix(n, "_ver")
}

// IsDateField reports whether a field name holds a date by the naming
// convention: "date", "*_date", "released_on", "*_on".
func IsDateField(name string) bool {
	n := strings.ToLower(name)
	return n == "date" || strings.HasSuffix(n, "_date") || strings.HasSuffix(n, "_on")
}

// grammarOf is the grammar of table.field for src.
func grammarOf(declared map[string]map[string]Grammar, table, field string) (g Grammar, isDate bool) {
	if g, ok := declared[table][field]; ok {
		return g, g.Name == DateText.Name
	}
	switch {
	case IsVersionField(field):
		return VersionText, false
	case IsDateField(field):
		return DateText, true
	}
	return Text, false
}

// CleanText reports why s cannot be stored, or "" when it can: it must be
// valid UTF-8 and hold no control character but tab and newline (NUL,
// escape sequences and carriage returns are refused).
func CleanText(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	for _, r := range s {
		if r == '\t' || r == '\n' {
			continue
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return fmt.Sprintf("holds the control character %U", r)
		}
	}
	return ""
}

func checkFields(src Source, recs []Record, now time.Time) error {
	var declared map[string]map[string]Grammar
	if f, ok := src.(Fielded); ok {
		declared = f.Fields()
	}
	for _, r := range recs {
		for what, v := range map[string]string{"table": r.Table, "key": r.Key, "ref": r.Ref, "url": r.URL} {
			if why := CleanText(v); why != "" {
				return fmt.Errorf("%q/%q: the %s %s", r.Table, r.Key, what, why)
			}
		}
		names := make([]string, 0, len(r.Fields))
		for k := range r.Fields {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := r.Fields[k]
			if why := CleanText(k); why != "" {
				return fmt.Errorf("%s/%s: field name %q %s", r.Table, r.Key, k, why)
			}
			if why := CleanText(v); why != "" {
				return fmt.Errorf("%s/%s: field %s: %q %s", r.Table, r.Key, k, v, why)
			}
			g, isDate := grammarOf(declared, r.Table, k)
			if !g.Valid(v) {
				switch {
				case g.Name == DateText.Name:
					return fmt.Errorf("%s/%s: field %s: %q does not parse as a date", r.Table, r.Key, k, v)
				case g.Name == VersionText.Name:
					return fmt.Errorf("%s/%s: field %s: %q does not parse as a version", r.Table, r.Key, k, v)
				case strings.Contains(g.Name, "version"):
					return fmt.Errorf("%s/%s: field %s: %q does not parse as a version (want %s)", r.Table, r.Key, k, v, g.Name)
				}
				return fmt.Errorf("%s/%s: field %s: %q is not %s", r.Table, r.Key, k, v, g.Name)
			}
			if isDate {
				if t, _ := ParseDate(v); t.After(now) {
					return fmt.Errorf("%s/%s: field %s: date %s is in the future", r.Table, r.Key, k, v)
				}
			}
		}
	}
	return nil
}

var (
	placeholders = map[string]bool{"": true, "-": true, "—": true, "–": true, "n/a": true, "na": true, "none": true, "tbd": true, "unknown": true, "?": true}
	// branchWords stand where a version would on real pages ("master
	// (nightly snapshot)", "main snapshot (~2.10 dev)").
	branchWords = map[string]bool{"master": true, "main": true, "nightly": true, "latest": true, "stable": true, "dev": true, "head": true, "trunk": true}
	// versionCell is a version cell as upstream tables write one: one or
	// more versions (each with an optional operator, "v", pre/dev/post
	// suffix, local label, trailing wildcard or platform suffix) joined by
	// , ; / - "or" "to", optionally followed by a note after a space or a
	// parenthesis. A wildcard ends its version: "13.x.1" is not one.
	versionCell = sync.OnceValue(func() *regexp.Regexp {
		item := `(?:(?:==|>=|<=|!=|~=|>|<|=)\s*)?v?\d+(?:\.\d+)*(?:\.[x*])?` +
			`(?:[-_.]?(?:a|b|rc|alpha|beta|dev|post|pre)\d*)*(?:\+[0-9A-Za-z.]*)?(?:-[A-Za-z][A-Za-z0-9_]*)?`
		variant := `(?:cpu|cuda|rocm|xpu)(?:-[a-z0-9_]+)?`
		one := `(?:` + item + `|` + variant + `)`
		sep := `(?:\s*[,;/]\s*|\s+-\s+|-|\s+(?:or|to)\s+)`
		return regexp.MustCompile(`(?s)^` + one + `(?:` + sep + one + `)*(?:$|[\s(\[].*$)`)
	})
)

// VersionLike reports whether v could be a version field's value as an
// upstream page writes it: empty or a placeholder (n/a, -), a version or
// a list or range of versions with an optional note ("2.1.0+cu121",
// ">=525.60", "3.8-3.11", "1.24 dev (main, Nov 2025)", "12.x",
// "cuda-aarch64"), or a branch word leading a note ("master (nightly
// snapshot)"). It refuses prose where a version belongs ("see notes", a
// shifted column) and malformed versions ("13.x.1"); PEP 440 nits are
// left to Normalize.
func VersionLike(v string) bool {
	v = strings.TrimSpace(v)
	if placeholders[strings.ToLower(v)] || versionCell().MatchString(v) {
		return true
	}
	first, _, _ := strings.Cut(strings.ToLower(v), " ")
	return branchWords[strings.Trim(first, "()[],;:")]
}

var dateLayouts = []string{
	"2006-01-02", "2006-01", "2006", "2006/01/02", "2006/1/2", "2006-01-02T15:04:05Z07:00",
	"January 2, 2006", "Jan 2, 2006", "January 2006", "Jan 2006", "2 January 2006", "2 Jan 2006",
	"January, 2006", "Jan. 2, 2006",
}

// ParseDate parses the date layouts upstream pages use. Empty values and
// placeholders parse as the zero time (never in the future).
func ParseDate(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if placeholders[strings.ToLower(v)] {
		return time.Time{}, true
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
