package query

import "strings"

// isDottedNumber reports whether s is 1 to 4 dot-separated runs of ASCII
// digits, the first at most 4 long and the others at most 6: the shape of
// a driver or CUDA version.
func isDottedNumber(s string) bool {
	n := 0
	for i, p := range strings.Split(s, ".") {
		most := 6
		if i == 0 {
			most = 4
		}
		if p == "" || len(p) > most || !allDigits(p) {
			return false
		}
		n++
	}
	return n <= 4
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// smParts splits a lower-case compute capability written "7.5", or an
// architecture written "sm_75", "compute_90" or "90a"/"100f" ("75" too),
// into its major and minor digits.
func smParts(t string) (major, minor string, ok bool) {
	if ma, mi, dot := strings.Cut(t, "."); dot {
		if len(ma) < 1 || len(ma) > 2 || len(mi) != 1 || !allDigits(ma) || !allDigits(mi) {
			return "", "", false
		}
		return ma, mi, true
	}
	if r, cut := strings.CutPrefix(t, "sm_"); cut {
		t = r
	} else if r, cut := strings.CutPrefix(t, "compute_"); cut {
		t = r
	}
	if strings.HasSuffix(t, "a") || strings.HasSuffix(t, "f") {
		t = t[:len(t)-1]
	}
	if len(t) < 2 || len(t) > 3 || !allDigits(t) {
		return "", "", false
	}
	return t[:len(t)-1], t[len(t)-1:], true
}
