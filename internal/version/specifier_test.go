package version

import (
	"strings"
	"testing"
)

// Expected results were produced with Python's packaging library
// (SpecifierSet(spec).contains(Version(v), prereleases=allowPre or None)).
func TestSpecifiersCheck(t *testing.T) {
	tests := []struct {
		spec, v  string
		allowPre bool
		want     bool
	}{
		// ranges
		{">=2,<2.3", "2.2.1", false, true},
		{">=2,<2.3", "2.3", false, false},
		{">=2,<2.3", "1.13.1", false, false},
		{">=2,<2.3", "2.3.0rc1", false, false},
		{">=2,<2.3", "2.2.0rc1", false, false},
		{">=2,<2.3", "2.2.0rc1", true, true},
		{"  >= 2 ,  < 2.3 ", "2.2.1", false, true},
		// wildcards
		{"==2.1.*", "2.1.0", false, true},
		{"==2.1.*", "2.1.9+cu121", false, true},
		{"==2.1.*", "2.10.0", false, false},
		{"==2.1.*", "2.1rc1", false, false},
		{"==2.1.*", "2.1rc1", true, true},
		{"==2.1.*", "2.1.post1", false, true},
		{"==2.1.*", "2", false, false},
		{"==2.1.0.*", "2.1", false, true},
		// compatible release
		{"~=2.1", "2.1", false, true},
		{"~=2.1", "2.9.3", false, true},
		{"~=2.1", "3.0", false, false},
		{"~=2.1", "2.0.9", false, false},
		{"~=2.1.3", "2.1.5", false, true},
		{"~=2.1.3", "2.2.0", false, false},
		{"~=2.1.0rc1", "2.1.0rc2", false, true},
		{"~=2.1.0rc1", "2.1.0", false, true},
		{"~=2.1.0rc1", "2.2", false, false},
		// exclusion
		{"!=2.1.1", "2.1.1", false, false},
		{"!=2.1.1", "2.1.1+cu121", false, false},
		{"!=2.1.1", "2.1.2", false, true},
		{"!=2.1.*", "2.1.5", false, false},
		{"!=2.1.*", "2.2", false, true},
		{"!=2.2rc1", "2.2rc1", true, false},
		{"!=2.2rc1", "2.2rc2", false, false},
		// local labels
		{"==2.1.0+cu121", "2.1.0+cu121", false, true},
		{"==2.1.0+cu121", "2.1.0+cu118", false, false},
		{"==2.1.0+cu121", "2.1.0", false, false},
		{"==2.1.0+cu121", "2.1+cu121", false, true},
		{"==2.1", "2.1.0", false, true},
		{"==2.1", "2.1.0+cu121", false, true},
		{"==2.1", "2.1.1", false, false},
		{"==2.1", "2.1.0.post1", false, false},
		{"<=2.1", "2.1+cu121", false, true},
		{">=2.1", "2.1+cu121", false, true},
		// empty list: every final release, pre-releases only on request
		{"", "2.1.0", false, true},
		{"", "2.2.0rc1", false, false},
		{"", "2.2.0rc1", true, true},
		{"", "2.1.0+cu121", false, true},
		// pre-releases named explicitly
		{"==2.2.0rc1", "2.2.0rc1", false, true},
		{"==2.2.0rc1", "2.2.0", false, false},
		{">=2.2.0rc1", "2.2.0rc2", false, true},
		{">=2.2.0rc1", "2.3.0rc1", false, true},
		{"<2.2.0rc2", "2.2.0rc1", false, false},
		{"==2.1.0.dev1", "2.1.0.dev1", false, true},
		{">=2.1.dev0", "2.1.0.dev5", false, true},
		// exclusive bounds
		{"<2.2", "2.2.0rc1", false, false},
		{"<2.2", "2.2.0rc1", true, false},
		{"<2.2", "2.1.9", false, true},
		{"<2.2rc2", "2.2rc1", true, true},
		{"<2.2", "2.2.dev1", true, false},
		{"<2.2", "2.1.9.dev1", true, true},
		{"<2.2", "2.2+cu121", true, false},
		{"<3.0rc1", "2.5", false, true},
		{">2.1", "2.1.post1", false, false},
		{">2.1", "2.1.1", false, true},
		{">2.1", "2.1+cu121", false, false},
		{">2.1.post1", "2.1.post2", false, true},
		{">2.1", "2.1", false, false},
		{">2.1", "2.2.dev1", true, true},
		{"<=2.1", "2.1.0.post1", false, false},
		{">=2.1", "2.1.0.dev1", true, false},
		// combinations and epochs
		{">=1.0,!=1.5.*,<2", "1.5.3", false, false},
		{">=1.0,!=1.5.*,<2", "1.6", false, true},
		{"==1!2.0", "2.0", false, false},
		{"==1!2.0", "1!2.0.0", false, true},
		{"==1!2.*", "1!2.5", false, true},
		{"==1!2.*", "2.5", false, false},
	}
	for _, tt := range tests {
		s, err := ParseSpecifiers(tt.spec)
		if err != nil {
			t.Errorf("ParseSpecifiers(%q): %v", tt.spec, err)
			continue
		}
		if got := s.Check(MustParse(tt.v), tt.allowPre); got != tt.want {
			t.Errorf("%q.Check(%s, allowPre=%v) = %v, want %v", tt.spec, tt.v, tt.allowPre, got, tt.want)
		}
	}
}

func TestParseSpecifiersErrors(t *testing.T) {
	for _, in := range []string{
		"===", "===2.1", ">=abc", "=>2", "==", "=2", "2.1", "~=2", "~=2.*", ">=2.1.*",
		"==2.1.*.*", "==2.1rc1.*", "==2.1+cu121.*", ">=2.1+cu121", "~=2.1+cu121",
		"==*", "==.*", ">=2,", ",>=2", ">=2,,<3", "<>2", "== 2.1 rc", "[==2.1]", "==2.1)",
		"~=", "!=", ">=2 <3",
	} {
		if s, err := ParseSpecifiers(in); err == nil {
			t.Errorf("ParseSpecifiers(%q) = %q, want error", in, s)
		}
	}
}

func TestSpecifiersStringAndExact(t *testing.T) {
	tests := []struct {
		in, str string
		exact   bool
	}{
		{"", "", false},
		{"==2.1", "==2.1", true},
		{"== v2.1.0+CU121", "==2.1.0+cu121", true},
		{"==2.1.*", "==2.1.*", false},
		{">=2, <2.3", ">=2,<2.3", false},
		{"~=2.1.0-RC1", "~=2.1.0rc1", false},
		{"!=2.1.1", "!=2.1.1", false},
		{"==2.1,==2.1.0", "==2.1,==2.1.0", false},
	}
	for _, tt := range tests {
		s, err := ParseSpecifiers(tt.in)
		if err != nil {
			t.Errorf("ParseSpecifiers(%q): %v", tt.in, err)
			continue
		}
		if got := s.String(); got != tt.str {
			t.Errorf("ParseSpecifiers(%q).String() = %q, want %q", tt.in, got, tt.str)
		}
		if got := s.IsExact(); got != tt.exact {
			t.Errorf("ParseSpecifiers(%q).IsExact() = %v, want %v", tt.in, got, tt.exact)
		}
	}
}

func TestSpecifierErrorNamesInput(t *testing.T) {
	_, err := ParseSpecifiers(">=abc")
	if err == nil || !strings.Contains(err.Error(), "abc") {
		t.Errorf("ParseSpecifiers(\">=abc\") error = %v, want it to quote abc", err)
	}
	_, err = ParseSpecifiers("===2.1")
	if err == nil || !strings.Contains(err.Error(), "===") {
		t.Errorf("ParseSpecifiers(\"===2.1\") error = %v, want it to name ===", err)
	}
}

func TestSpecifierAccessors(t *testing.T) {
	s, err := ParseSpecifiers("==2.1.*")
	if err != nil {
		t.Fatal(err)
	}
	if s[0].Op() != "==" || !s[0].Wildcard() || s[0].Version().String() != "2.1" {
		t.Errorf("accessors of ==2.1.* = %q %v %q", s[0].Op(), s[0].Wildcard(), s[0].Version())
	}
}

func TestSpecifiersIntersects(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"==9.1.0.70", "==9.1.0.70", true},
		{"==9.1.0.70", "==9.3.0.75", false},
		{"==9.1.0.70", ">=9.3,<10", false},
		{"==9.5.1.17", ">=9.3,<10", true},
		{">=9.1,<10", ">=9.3,<10.0", true},
		{">=9.1", "<9.0", false},
		{">=12.1.3.1", "==12.4.5.8", true},
		{"<10", ">=9.8", true},
		{">9.1", "<=9.1", false},
		{"==2.21.*", "==2.21.5", true},
		{"~=2.20", "==2.21.5", true},
		{"~=2.20.0", "==2.21.5", false},
		{"", "==1", true},
	}
	for _, c := range cases {
		a, err := ParseSpecifiers(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseSpecifiers(c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Intersects(b); got != c.want {
			t.Errorf("%q ∩ %q = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := b.Intersects(a); got != c.want {
			t.Errorf("%q ∩ %q = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}
