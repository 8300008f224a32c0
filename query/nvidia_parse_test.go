package query

import (
	"regexp"
	"testing"
)

// The hand-written shape checks replace regular expressions that cost a
// compile on every start; these are the expressions they must agree with.
var (
	dottedShape = regexp.MustCompile(`^\d{1,4}(\.\d{1,6}){0,3}$`)
	smShape     = regexp.MustCompile(`^(?:sm_|compute_)?(\d{1,2})(\d)[af]?$`)
	ccShape     = regexp.MustCompile(`^(\d{1,2})\.(\d)$`)
)

func checkShapes(t *testing.T, s string) {
	if got, want := isDottedNumber(s), dottedShape.MatchString(s); got != want {
		t.Errorf("isDottedNumber(%q) = %v, the expression says %v", s, got, want)
	}
	ma, mi, ok := smParts(s)
	m := ccShape.FindStringSubmatch(s)
	if m == nil {
		m = smShape.FindStringSubmatch(s)
	}
	if ok != (m != nil) || (ok && (ma != m[1] || mi != m[2])) {
		t.Errorf("smParts(%q) = %q %q %v, the expressions say %q", s, ma, mi, ok, m)
	}
}

func TestShapesAgreeWithExpressions(t *testing.T) {
	for _, s := range []string{"535.104.05", "470", "12.1", "12.1.1", "1.2.3.4", "1.2.3.4.5", "12345.1", "1.1234567", "", ".", "1.", ".1",
		"12..1", "a.1", "١٢.١", "7.5", "10.0", "120.1", "sm_75", "sm_90a", "compute_90", "compute_100f", "90a", "100", "1000", "5", "sm_", "sm_7.5",
		"sm_75x", "af", "75af", "sm_compute_75", "12.10", "12.1a"} {
		checkShapes(t, s)
	}
}

func FuzzShapes(f *testing.F) {
	for _, s := range []string{"535.104.05", "sm_90a", "7.5", "compute_100f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkShapes(t, s) })
}
