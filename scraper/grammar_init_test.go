package scraper

import "testing"

// TestGrammarPatternsCompile: Pattern compiles on first use, so a bad
// expression would surface only when a refresh meets the field; this
// meets every declared grammar once.
func TestGrammarPatternsCompile(t *testing.T) {
	for _, c := range []struct {
		g       Grammar
		ok, bad string
	}{
		{Dotted, "8.9.2.26", "8.x"}, {DottedOrEmpty, "", "x"}, {Driver, "525.60.13", "52"}, {DriverOrEmpty, "", "abc"},
		{SM, "sm_90a", "sm_9"}, {Capability, "5.x", "5"}, {PEP440, "2.1.0+cu121", "2.1.0+"}, {Specifier, ">=2.1,<3", "=>"},
	} {
		if !c.g.Valid(c.ok) || c.g.Valid(c.bad) {
			t.Errorf("%s: Valid(%q) = %v, Valid(%q) = %v", c.g.Name, c.ok, c.g.Valid(c.ok), c.bad, c.g.Valid(c.bad))
		}
	}
	if !VersionLike("2.1.0+cu121") || VersionLike("13.x.1") {
		t.Error("VersionLike")
	}
}
