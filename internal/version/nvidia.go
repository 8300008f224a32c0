package version

import (
	"strconv"
	"strings"
)

// This file is the one home of the small helpers that read NVIDIA's
// dotted numbers and compute capabilities as text. Look here before
// writing another: four copies of a minor-of helper once gave three
// answers for "12".

// IsDottedNumber reports whether s is 1 to 4 dot-separated runs of ASCII
// digits, the first at most 4 long and the others at most 6: the shape of
// a driver or CUDA version.
func IsDottedNumber(s string) bool {
	n := 0
	for i, p := range strings.Split(s, ".") {
		most := 6
		if i == 0 {
			most = 4
		}
		if p == "" || len(p) > most || !AllDigits(p) {
			return false
		}
		n++
	}
	return n <= 4
}

// AllDigits reports whether s is made of ASCII digits only ("" is).
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MinorText is the major.minor of a dotted version: "12.8.1" → "12.8",
// "12.8" → "12.8", and a bare major stays itself ("12" → "12").
func MinorText(v string) string {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return v
	}
	return f[0] + "." + f[1]
}

// PaddedMinor is MinorText with a bare major read as its ".0" minor
// ("12" → "12.0"): the toolkit a CUDA major names when a release is
// needed.
func PaddedMinor(v string) string {
	m := MinorText(v)
	if !strings.Contains(m, ".") {
		return m + ".0"
	}
	return m
}

// CC is a compute capability: 8.6 is {Major: 8, Minor: 6}.
type CC struct {
	Major, Minor int
}

// ParseCC reads a compute capability written "8.6" (a major of one or
// two digits, a minor of one), or an architecture written "sm_86",
// "compute_90", "90a", "100f" or "86" (two or three digits, the last the
// minor). Upper case is read as lower case.
func ParseCC(s string) (CC, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	var ma, mi string
	if a, b, dot := strings.Cut(t, "."); dot {
		if len(a) < 1 || len(a) > 2 || len(b) != 1 || !AllDigits(a) || !AllDigits(b) {
			return CC{}, false
		}
		ma, mi = a, b
	} else {
		if r, cut := strings.CutPrefix(t, "sm_"); cut {
			t = r
		} else if r, cut := strings.CutPrefix(t, "compute_"); cut {
			t = r
		}
		if strings.HasSuffix(t, "a") || strings.HasSuffix(t, "f") {
			t = t[:len(t)-1]
		}
		if len(t) < 2 || len(t) > 3 || !AllDigits(t) {
			return CC{}, false
		}
		ma, mi = t[:len(t)-1], t[len(t)-1:]
	}
	x, _ := strconv.Atoi(ma)
	y, _ := strconv.Atoi(mi)
	return CC{Major: x, Minor: y}, true
}

// Number is the capability as one number: 8.6 → 86, 12.1 → 121.
func (c CC) Number() int { return c.Major*10 + c.Minor }

// String writes the capability as "8.6".
func (c CC) String() string { return strconv.Itoa(c.Major) + "." + strconv.Itoa(c.Minor) }

// Compare orders capabilities: -1, 0 or 1.
func (c CC) Compare(o CC) int {
	switch {
	case c.Number() < o.Number():
		return -1
	case c.Number() > o.Number():
		return 1
	}
	return 0
}

// ReleaseMinor is the major.minor of a PEP 440 version's release
// ("2.1.0+cu121" → "2.1"); text that is not PEP 440, or names a major
// alone, stays itself.
func ReleaseMinor(v string) string {
	if p, err := Parse(v); err == nil {
		if r := p.Release(); len(r) >= 2 {
			return strconv.Itoa(r[0]) + "." + strconv.Itoa(r[1])
		}
	}
	return v
}
