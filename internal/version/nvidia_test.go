package version

import "testing"

func TestMinorText(t *testing.T) {
	for _, c := range []struct{ in, minor, padded string }{
		{"12", "12", "12.0"},
		{"12.8", "12.8", "12.8"},
		{"12.8.1", "12.8", "12.8"},
		{"8.9.2.26", "8.9", "8.9"},
		{"", "", ".0"},
	} {
		if got := MinorText(c.in); got != c.minor {
			t.Errorf("MinorText(%q) = %q, want %q", c.in, got, c.minor)
		}
		if got := PaddedMinor(c.in); got != c.padded {
			t.Errorf("PaddedMinor(%q) = %q, want %q", c.in, got, c.padded)
		}
	}
}

func TestIsDottedNumber(t *testing.T) {
	for in, want := range map[string]bool{
		"535.104.05": true, "12": true, "8.9.2.26": true, "1.2.3.4.5": false,
		"12345.1": false, "12.": false, "r535": false, "": false, "12.1234567": false,
	} {
		if got := IsDottedNumber(in); got != want {
			t.Errorf("IsDottedNumber(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseCC(t *testing.T) {
	for _, c := range []struct {
		in   string
		want CC
		ok   bool
	}{
		{"8.6", CC{8, 6}, true},
		{"12.1", CC{12, 1}, true},
		{"sm_86", CC{8, 6}, true},
		{"SM_90A", CC{9, 0}, true},
		{"compute_90", CC{9, 0}, true},
		{"100f", CC{10, 0}, true},
		{"120", CC{12, 0}, true},
		{"75", CC{7, 5}, true},
		{"8.10", CC{}, false},
		{"123.4", CC{}, false},
		{"7", CC{}, false},
		{"sm_1000", CC{}, false},
		{"x.y", CC{}, false},
	} {
		got, ok := ParseCC(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseCC(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	a, _ := ParseCC("8.6")
	b, _ := ParseCC("12.0")
	if a.Number() != 86 || b.Number() != 120 || a.String() != "8.6" || a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 {
		t.Errorf("CC methods: %v %v", a, b)
	}
}

func TestReleaseMinor(t *testing.T) {
	for in, want := range map[string]string{"2.1.0+cu121": "2.1", "2.1": "2.1", "2": "2", "2.10.0rc1": "2.10", "not a version": "not a version"} {
		if got := ReleaseMinor(in); got != want {
			t.Errorf("ReleaseMinor(%q) = %q, want %q", in, got, want)
		}
	}
}
