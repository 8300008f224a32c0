package version

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// zeroIf is "0" when a major of all zeros trims to nothing.
func zeroIf(s string) string {
	if strings.TrimLeft(s, "0") == "" {
		return "0"
	}
	return ""
}

// The hand-written shape checks replace regular expressions that cost a
// compile on every start; these are the expressions they must agree with.
var (
	dottedShape = regexp.MustCompile(`^\d{1,4}(\.\d{1,6}){0,3}$`)
	smShape     = regexp.MustCompile(`^(?:sm_|compute_)?(\d{1,2})(\d)[af]?$`)
	ccShape     = regexp.MustCompile(`^(\d{1,2})\.(\d)$`)
)

func checkShapes(t *testing.T, s string) {
	if got, want := IsDottedNumber(s), dottedShape.MatchString(s); got != want {
		t.Errorf("IsDottedNumber(%q) = %v, the expression says %v", s, got, want)
	}
	c, ok := ParseCC(s)
	l := strings.ToLower(strings.TrimSpace(s))
	m := ccShape.FindStringSubmatch(l)
	if m == nil {
		m = smShape.FindStringSubmatch(l)
	}
	if ok != (m != nil) || (ok && (strconv.Itoa(c.Major) != strings.TrimLeft(m[1], "0")+zeroIf(m[1]) || strconv.Itoa(c.Minor) != m[2])) {
		t.Errorf("ParseCC(%q) = %v %v, the expressions say %q", s, c, ok, m)
	}
}

func TestShapesAgreeWithExpressions(t *testing.T) {
	for _, s := range []string{"535.104.05", "470", "12.1", "12.1.1", "1.2.3.4", "1.2.3.4.5", "12345.1", "1.1234567", "", ".", "1.", ".1",
		"12..1", "a.1", "١٢.١", "7.5", "10.0", "120.1", "sm_75", "sm_90a", "compute_90", "compute_100f", "90a", "100", "1000", "5", "sm_", "sm_7.5",
		"sm_75x", "af", "75af", "sm_compute_75", "12.10", "12.1a", " SM_86 ", "08.6"} {
		checkShapes(t, s)
	}
}

func FuzzShapes(f *testing.F) {
	for _, s := range []string{"535.104.05", "sm_90a", "7.5", "compute_100f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkShapes(t, s) })
}
