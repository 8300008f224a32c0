package version

import (
	"reflect"
	"testing"
)

func TestDottedCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"12.10", "12.9", 1},
		{"12.9", "12.10", -1},
		{"535.104.05", "535.54.03", 1},
		{"12.1", "12.1.0", 0},
		{"12.1.0.0", "12.1", 0},
		{"470.82.01", "470.82.1", 0},
		{"r418.39", "418.39", 0},
		{"R418.39", "418.40", -1},
		{"v12.1.1", "12.1", 1},
		{"8.9.2.26", "8.9.10", -1},
		{"375.74", "470.82.01", -1},
		{"8.6", "8.9", -1},
		{"9.0", "8.9", 1},
		{"13", "12.999.999", 1},
		{" 12.1 ", "12.1", 0},
		{"0", "0.0.0.0.0.0", 0},
	}
	for _, tt := range tests {
		a, err := ParseDotted(tt.a)
		if err != nil {
			t.Errorf("ParseDotted(%q): %v", tt.a, err)
			continue
		}
		b, err := ParseDotted(tt.b)
		if err != nil {
			t.Errorf("ParseDotted(%q): %v", tt.b, err)
			continue
		}
		if got := a.Compare(b); got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := b.Compare(a); got != -tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
		ka, kb := DottedKey(tt.a), DottedKey(tt.b)
		if got := cmpStr(ka, kb); got != tt.want {
			t.Errorf("DottedKey order of %s, %s = %d, want %d (%q vs %q)", tt.a, tt.b, got, tt.want, ka, kb)
		}
	}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestParseDotted(t *testing.T) {
	tests := []struct {
		in     string
		str    string
		fields []int
		major  int
	}{
		{"12.1", "12.1", []int{12, 1}, 12},
		{"r418.39", "418.39", []int{418, 39}, 418},
		{"R418.39", "418.39", []int{418, 39}, 418},
		{"v12.1.1", "12.1.1", []int{12, 1, 1}, 12},
		{" 535.104.05 ", "535.104.05", []int{535, 104, 5}, 535},
		{"8.9.2.26", "8.9.2.26", []int{8, 9, 2, 26}, 8},
		{"8.6", "8.6", []int{8, 6}, 8},
		{"470", "470", []int{470}, 470},
		{"1.2.3.4.5.6", "1.2.3.4.5.6", []int{1, 2, 3, 4, 5, 6}, 1},
		{"999999999.0", "999999999.0", []int{999999999, 0}, 999999999},
	}
	for _, tt := range tests {
		d, err := ParseDotted(tt.in)
		if err != nil {
			t.Errorf("ParseDotted(%q): %v", tt.in, err)
			continue
		}
		if d.String() != tt.str || !reflect.DeepEqual(d.Fields(), tt.fields) || d.Major() != tt.major {
			t.Errorf("ParseDotted(%q) = %q %v major %d, want %q %v major %d",
				tt.in, d, d.Fields(), d.Major(), tt.str, tt.fields, tt.major)
		}
	}
}

func TestParseDottedErrors(t *testing.T) {
	for _, in := range []string{
		"banana", "", " ", "1..2", "-1", "12.-1", "1.2.3.4.5.6.7", "1234567890", "12.1234567890",
		".12", "12.", "v", "r", "vv12", "12.1a", "12 .1", "12.1.*", "+12", "1e3", "１２",
	} {
		if d, err := ParseDotted(in); err == nil {
			t.Errorf("ParseDotted(%q) = %q, want error", in, d)
		}
	}
}

func TestDottedHasPrefix(t *testing.T) {
	tests := []struct {
		d, p string
		want bool
	}{
		{"12.1.1", "12.1", true},
		{"12.1", "12.1", true},
		{"12.10", "12.1", false},
		{"12.10.1", "12.1", false},
		{"12.1", "12", true},
		{"13.0", "12", false},
		{"12", "12.1", false},
		{"12.1", "12.1.0", true},
		{"12.1", "12.1.1", false},
		{"535.104.05", "535.104.5", true},
		{"r418.39", "418", true},
		{"8.9.2.26", "8.9", true},
	}
	for _, tt := range tests {
		if got := MustParseDotted(tt.d).HasPrefix(MustParseDotted(tt.p)); got != tt.want {
			t.Errorf("%s.HasPrefix(%s) = %v, want %v", tt.d, tt.p, got, tt.want)
		}
	}
}

func TestDottedSpecCheck(t *testing.T) {
	tests := []struct {
		spec, v string
		want    bool
	}{
		{"==12.1", "12.1", true},
		{"==12.1", "12.1.1", true},
		{"==12.1", "12.1.0", true},
		{"==12.1", "12.10", false},
		{"==12.1", "12.2", false},
		{"==8.9.*", "8.9.2.26", true},
		{"==8.9.*", "8.10", false},
		{"8.9", "8.9.7", true},
		{">=525.60.13", "525.60.13", true},
		{">=525.60.13", "535.104.05", true},
		{">=525.60.13", "525.60.12", false},
		{">=525.60.13", "470.82.01", false},
		{"<13", "12.9", true},
		{"<13", "13.0", false},
		{"<13", "13", false},
		{"<=12.4", "12.4.0", true},
		{"<=12.4", "12.4.1", false},
		{">12.4", "12.4.1", true},
		{">12.4", "12.4", false},
		{">=12,<12.4", "12.3.2", true},
		{">=12,<12.4", "12.4", false},
		{">=12,<12.4", "11.8", false},
		{"!=12.2", "12.2.1", false},
		{"!=12.2", "12.3", true},
		{"!=12.2.*", "12.2", false},
		{"~=12.1", "12.1", true},
		{"~=12.1", "12.9", true},
		{"~=12.1", "12.0", false},
		{"~=12.1", "13.0", false},
		{"~=8.9.2", "8.9.7.29", true},
		{"~=8.9.2", "8.10", false},
		{">= r418.39", "418.40", true},
		{"", "1", true},
		{"  ", "999", true},
	}
	for _, tt := range tests {
		s, err := ParseDottedSpec(tt.spec)
		if err != nil {
			t.Errorf("ParseDottedSpec(%q): %v", tt.spec, err)
			continue
		}
		if got := s.Check(MustParseDotted(tt.v)); got != tt.want {
			t.Errorf("%q.Check(%s) = %v, want %v", tt.spec, tt.v, got, tt.want)
		}
	}
}

func TestDottedSpecZeroValueMatchesAll(t *testing.T) {
	var s DottedSpec
	if !s.Check(MustParseDotted("12.1")) || s.String() != "" {
		t.Errorf("zero DottedSpec = %q, should match everything", s)
	}
}

func TestParseDottedSpecErrors(t *testing.T) {
	for _, in := range []string{
		"=>12", "===12", "==", ">=abc", "~=12", ">=12.*", "==*", "==.*", "12,", ",12", "<>12",
		"==12.1.*.*", ">=12 <13", "=12", "==-1", "==1.2.3.4.5.6.7",
	} {
		if s, err := ParseDottedSpec(in); err == nil {
			t.Errorf("ParseDottedSpec(%q) = %q, want error", in, s)
		}
	}
}

func TestDottedSpecString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"==12.1", "==12.1"},
		{" >= 12 , < 12.4 ", ">=12,<12.4"},
		{"==8.9.*", "==8.9.*"},
		{"12.1", "==12.1"},
		{">=r418.39", ">=418.39"},
	}
	for _, tt := range tests {
		s, err := ParseDottedSpec(tt.in)
		if err != nil {
			t.Errorf("ParseDottedSpec(%q): %v", tt.in, err)
			continue
		}
		if got := s.String(); got != tt.want {
			t.Errorf("ParseDottedSpec(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}
