package version

import (
	"regexp"
	"strings"
	"testing"
)

// The name scanners replace regular expressions compiled on first use;
// these are the expressions they must agree with.
var (
	nameRE      = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?`)
	nameRunsRE  = regexp.MustCompile(`[-_.]+`)
	wholeNameRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
)

func checkNames(t *testing.T, s string) {
	if got, want := namePrefix(s), nameRE.FindString(s); got != want {
		t.Errorf("namePrefix(%q) = %q, the expression says %q", s, got, want)
	}
	if got, want := isName(s), wholeNameRE.MatchString(s); got != want {
		t.Errorf("isName(%q) = %v, the expression says %v", s, got, want)
	}
	if got, want := NormalizeName(s), nameRunsRE.ReplaceAllString(strings.ToLower(s), "-"); got != want {
		t.Errorf("NormalizeName(%q) = %q, the expression says %q", s, got, want)
	}
}

func TestNameScannersAgreeWithExpressions(t *testing.T) {
	for _, s := range []string{"torch", "nvidia-cudnn-cu12==9.1.0.70", "Jax_CUDA12.Plugin", "a", "-a", "a-", "a--b", "a._-b",
		"", "_", "tensorflow[and-cuda]>=2.15", "x y", "été", "ab-", "A.B.C", "1", "a..", "torch (>=2)"} {
		checkNames(t, s)
	}
}

func FuzzNames(f *testing.F) {
	for _, s := range []string{"torch", "nvidia-cudnn-cu12==9", "Jax_CUDA12.Plugin", "a-", "x..y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkNames(t, s) })
}

// DottedKey validates without go-version; it must accept exactly what
// ParseDotted (which also builds the go-version form) accepts.
func TestDottedKeyAcceptsWhatParseDottedAccepts(t *testing.T) {
	for _, s := range []string{"535.104.05", "r418.39", "12", "12.1.1", "1.2.3.4.5.6", "1.2.3.4.5.6.7", "1234567890", "v1.0", "1.0-rc1",
		"1.0+x", "", " 12.1 ", "12..1", "R535", "01.02", "١٢"} {
		_, err := ParseDotted(s)
		if (DottedKey(s) == "") != (err != nil) {
			t.Errorf("%q: DottedKey %q, ParseDotted error %v", s, DottedKey(s), err)
		}
	}
}
