package nvidia

import (
	"regexp"
	"testing"

	"github.com/cudb/cudb/internal/version"
)

// TestDriverPatternIsIsDottedNumber: the pattern the site's selector
// checks typed drivers with accepts exactly what ParseDriver's
// isDottedNumber does.
func TestDriverPatternIsIsDottedNumber(t *testing.T) {
	re := regexp.MustCompile(DriverPattern)
	for _, s := range []string{"", "5", "535", "535.104.05", "1234", "12345", "535.1234567", "535.123456", "1.2.3.4", "1.2.3.4.5",
		"535.", ".535", "535..1", "535.x", "r535", "535 ", "٥٣٥", "0", "9999.999999.999999.999999", "535.104.05a"} {
		if got, want := re.MatchString(s), version.IsDottedNumber(s); got != want {
			t.Errorf("%q: pattern %v, isDottedNumber %v", s, got, want)
		}
	}
}

func FuzzDriverPattern(f *testing.F) {
	re := regexp.MustCompile(DriverPattern)
	for _, s := range []string{"535.104.05", "1.2.3.4.5", "535.", "12345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if re.MatchString(s) != version.IsDottedNumber(s) {
			t.Errorf("%q: pattern %v, isDottedNumber %v", s, re.MatchString(s), version.IsDottedNumber(s))
		}
	})
}
