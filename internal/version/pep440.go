package version

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The parser is written here rather than taken from
// github.com/aquasecurity/go-pep440-version because that library keeps the
// parsed pre/post/dev/local parts private: SortKey has to encode each of
// them, Release must return the numbers, and the specifier rules for local
// labels and pre-releases need them too. Writing the grammar once keeps
// Compare, SortKey and Check provably on the same parse.

// pep440Pattern is the PEP 440 appendix grammar (the permissive form that
// normalizes spellings such as "1.0-RC.1" or "1.0-1"). Submatch indexes are
// looked up by name below.
var pep440Pattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^v?` +
		`(?:(?P<epoch>[0-9]+)!)?` +
		`(?P<release>[0-9]+(?:\.[0-9]+)*)` +
		`(?P<pre>[-_.]?(?P<pre_l>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>[0-9]+)?)?` +
		`(?P<post>-(?P<post_n1>[0-9]+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?)?` +
		`(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?` +
		`(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`)
})

var pepGroup = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for i, n := range pep440Pattern().SubexpNames() {
		if n != "" {
			m[n] = i
		}
	}
	return m
})

// maxDigits bounds every number so it fits an int64 and so that SortKey can
// encode the digit count in one character. PEP 440 itself allows unbounded
// numbers; nothing real comes close to 18 significant digits.
const maxDigits = 18

// Version is a parsed PEP 440 version. The zero value is "0". Versions are
// ordered with Compare (not ==, which would see "2.1" and "2.1.0" as
// different).
type Version struct {
	epoch   int
	release []int
	preL    string // "", "a", "b" or "rc"
	preN    int
	hasPost bool
	post    int
	hasDev  bool
	dev     int
	local   []string
}

// Parse reads a PEP 440 version, accepting the spellings PEP 440 normalizes
// (leading "v", "alpha"/"c"/"pre", "-1" post releases, "_" separators, case).
func Parse(s string) (Version, error) {
	t := strings.TrimSpace(s)
	if v, ok := parseSimple(t); ok {
		return v, nil
	}
	return parseGrammar(s, t)
}

// parseSimple reads the spellings nearly every version cudb meets has — a
// release ("2.1.0") with an optional lower-case local label ("+cu121") —
// without the grammar's regular expression, so that a process that only
// reads such versions never compiles it (a cold start pays for that
// compile). ok is false for anything else, which parseGrammar reads; the
// two agree on every input parseSimple takes (FuzzParse checks it).
func parseSimple(t string) (v Version, ok bool) {
	rel, local, hasLocal := strings.Cut(t, "+")
	for _, seg := range strings.Split(rel, ".") {
		if !isDigits(seg) {
			return Version{}, false
		}
		n, ok := atoi(seg)
		if !ok {
			return Version{}, false
		}
		v.release = append(v.release, n)
	}
	if !hasLocal {
		return v, true
	}
	parts := strings.Split(local, ".")
	for _, p := range parts {
		if p == "" {
			return Version{}, false
		}
		for i := 0; i < len(p); i++ {
			if (p[i] < 'a' || p[i] > 'z') && (p[i] < '0' || p[i] > '9') {
				return Version{}, false
			}
		}
		if isDigits(p) && len(strings.TrimLeft(p, "0")) > maxDigits {
			return Version{}, false
		}
	}
	v.local = parts
	return v, true
}

// parseGrammar reads t (s trimmed) with the PEP 440 grammar.
func parseGrammar(s, t string) (Version, error) {
	m := pep440Pattern().FindStringSubmatch(t)
	if m == nil {
		return Version{}, fmt.Errorf("version: %q is not a PEP 440 version", s)
	}
	g := func(name string) string { return m[pepGroup()[name]] }
	bad := func(what string) (Version, error) {
		return Version{}, fmt.Errorf("version: %q: %s has more than %d digits", s, what, maxDigits)
	}
	var v Version
	var ok bool
	if e := g("epoch"); e != "" {
		if v.epoch, ok = atoi(e); !ok {
			return bad("epoch")
		}
	}
	for _, p := range strings.Split(g("release"), ".") {
		n, ok := atoi(p)
		if !ok {
			return bad("release segment")
		}
		v.release = append(v.release, n)
	}
	if l := strings.ToLower(g("pre_l")); l != "" {
		switch l {
		case "alpha", "a":
			v.preL = "a"
		case "beta", "b":
			v.preL = "b"
		default: // c, rc, pre, preview
			v.preL = "rc"
		}
		if v.preN, ok = atoi(g("pre_n")); !ok {
			return bad("pre-release number")
		}
	}
	if g("post") != "" {
		n := g("post_n1") + g("post_n2")
		v.hasPost = true
		if v.post, ok = atoi(n); !ok {
			return bad("post-release number")
		}
	}
	if g("dev") != "" {
		v.hasDev = true
		if v.dev, ok = atoi(g("dev_n")); !ok {
			return bad("dev-release number")
		}
	}
	if l := g("local"); l != "" {
		parts := strings.FieldsFunc(strings.ToLower(l), func(r rune) bool {
			return r == '.' || r == '-' || r == '_'
		})
		for _, p := range parts {
			if isDigits(p) && len(strings.TrimLeft(p, "0")) > maxDigits {
				return bad("local label number")
			}
		}
		v.local = parts
	}
	return v, nil
}

// MustParse is Parse for constants in code and tests; it panics on error.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// atoi parses a run of ASCII digits ("" means 0, as PEP 440 implies for
// "1.0rc" or "1.0.post"). It reports false when the number is too long.
func atoi(s string) (int, bool) {
	t := strings.TrimLeft(s, "0")
	if len(t) > maxDigits {
		return 0, false
	}
	if t == "" {
		return 0, true
	}
	n, err := strconv.Atoi(t)
	return n, err == nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String returns the PEP 440 normal form ("1.0-RC1" -> "1.0rc1",
// "v2.1+CU121" -> "2.1+cu121"). Trailing zeros are kept: "2.1" stays "2.1".
func (v Version) String() string {
	s := v.Public()
	if l := v.Local(); l != "" {
		s += "+" + l
	}
	return s
}

// Public returns the normal form without the local label.
func (v Version) Public() string {
	var b strings.Builder
	if v.epoch != 0 {
		fmt.Fprintf(&b, "%d!", v.epoch)
	}
	if len(v.release) == 0 {
		b.WriteString("0")
	}
	for i, n := range v.release {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(n))
	}
	if v.preL != "" {
		fmt.Fprintf(&b, "%s%d", v.preL, v.preN)
	}
	if v.hasPost {
		fmt.Fprintf(&b, ".post%d", v.post)
	}
	if v.hasDev {
		fmt.Fprintf(&b, ".dev%d", v.dev)
	}
	return b.String()
}

// Local returns the normalized local label ("cu121", "rocm5.6"), or "".
func (v Version) Local() string { return strings.Join(v.local, ".") }

// IsPrerelease reports an alpha, beta, rc or dev release; PEP 440 treats
// "1.0.post1.dev0" as a pre-release too, because it precedes 1.0.post1.
func (v Version) IsPrerelease() bool {
	return v.preL != "" || v.hasDev
}

// Release returns a copy of the release numbers as written ("2.1" -> [2 1]).
func (v Version) Release() []int {
	if len(v.release) == 0 {
		return []int{0}
	}
	return append([]int(nil), v.release...)
}

// base is the version with only epoch and release, as PEP 440 uses for the
// exclusive ordered comparisons.
func (v Version) base() Version {
	return Version{epoch: v.epoch, release: v.release}
}

// public drops the local label.
func (v Version) public() Version {
	v.local = nil
	return v
}

// Compare orders versions the way PEP 440 (and Python's packaging) does and
// returns -1, 0 or +1. Release segments are zero padded ("2.1" == "2.1.0"),
// a local label sorts after the same public version.
func (v Version) Compare(o Version) int {
	if c := cmpInt(v.epoch, o.epoch); c != 0 {
		return c
	}
	for i := 0; i < len(v.release) || i < len(o.release); i++ {
		if c := cmpInt(at(v.release, i), at(o.release, i)); c != 0 {
			return c
		}
	}
	if c := cmpInt(v.preRank(), o.preRank()); c != 0 {
		return c
	}
	if c := cmpInt(v.preN, o.preN); c != 0 && v.preL != "" {
		return c
	}
	if c := cmpOpt(v.hasPost, v.post, o.hasPost, o.post, false); c != 0 {
		return c
	}
	if c := cmpOpt(v.hasDev, v.dev, o.hasDev, o.dev, true); c != 0 {
		return c
	}
	return compareLocal(v.local, o.local)
}

// preRank mirrors packaging: a bare dev release (1.0.dev1) sorts before any
// pre-release of the same release, no pre-release sorts after them all.
func (v Version) preRank() int {
	switch {
	case v.preL == "" && !v.hasPost && v.hasDev:
		return 0
	case v.preL == "a":
		return 1
	case v.preL == "b":
		return 2
	case v.preL == "rc":
		return 3
	}
	return 4
}

// cmpOpt compares optional numbers; absentLast says whether a missing part
// sorts after every number (dev: 1.0.dev1 < 1.0) or before (post: 1.0 <
// 1.0.post0).
func cmpOpt(ha bool, a int, hb bool, b int, absentLast bool) int {
	switch {
	case ha && hb:
		return cmpInt(a, b)
	case ha == hb:
		return 0
	case ha == absentLast:
		return -1
	}
	return 1
}

// compareLocal: no label < any label; segments compare pairwise with
// alphanumeric segments before numeric ones, numbers numerically; a shorter
// label that is a prefix of a longer one sorts first.
func compareLocal(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return cmpInt(len(a), len(b))
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		an, bn := isDigits(a[i]), isDigits(b[i])
		switch {
		case an && bn:
			x, y := strings.TrimLeft(a[i], "0"), strings.TrimLeft(b[i], "0")
			if c := cmpInt(len(x), len(y)); c != 0 {
				return c
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		case an != bn:
			if an {
				return 1
			}
			return -1
		default:
			if c := strings.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(a), len(b))
}

func at(r []int, i int) int {
	if i < len(r) {
		return r[i]
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
