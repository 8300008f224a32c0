package version

import "testing"

// The keys are stored in a committed database; this table pins their exact
// bytes so that any format change fails loudly.
func TestSortKeyGolden(t *testing.T) {
	tests := []struct{ in, key string }{
		{"2.1", "a0a2a1-5010"},
		{"2.1.0", "a0a2a1-5010"},
		{"2.1.0+cu121", "a0a2a1-5011acu121-."},
		{"2.1.0+rocm5.6", "a0a2a1-5011arocm5-ba6."},
		{"2.2.0rc1", "a0a2a2-4a1010"},
		{"1.0.dev1", "a0a1-100a10"},
		{"1.0a1", "a0a1-2a1010"},
		{"1.13.1.post1", "a0a1b13a1-51a110"},
		{"1!0.1", "a1a0a1-5010"},
		{"0", "a0-5010"},
		{"0.4.30.dev20240601", "a0a0a4b30-100h202406010"},
		{"r418.39", "0000000418.0000000039.0000000000.0000000000.0000000000.0000000000"},
		{"banana", "~banana"},
		{"", "~"},
		{"1.0 ü%", "~1.0 %C3%BC%25"},
	}
	for _, tt := range tests {
		if got := SortKey(tt.in); got != tt.key {
			t.Errorf("SortKey(%q) = %q, want %q", tt.in, got, tt.key)
		}
	}
}

func TestSortKeyASCII(t *testing.T) {
	for _, s := range []string{"2.1.0+cu121", "r418.39", "banana", "ü\x00\xff", "~x"} {
		k := SortKey(s)
		for i := 0; i < len(k); i++ {
			if k[i] < 0x20 || k[i] > 0x7e {
				t.Errorf("SortKey(%q) = %q has non-printable byte %#x", s, k, k[i])
			}
		}
	}
}

func TestSortKeyUnparsableLast(t *testing.T) {
	for _, good := range []string{"99999!9999", "r999999999.999999999", "2.1.0+zzz"} {
		if !(SortKey(good) < SortKey("banana")) {
			t.Errorf("SortKey(%q) = %q does not sort before garbage %q", good, SortKey(good), SortKey("banana"))
		}
	}
}

func TestDottedKey(t *testing.T) {
	tests := []struct{ in, key string }{
		{"12.1", "0000000012.0000000001.0000000000.0000000000.0000000000.0000000000"},
		{"12.1.0", "0000000012.0000000001.0000000000.0000000000.0000000000.0000000000"},
		{"535.104.05", "0000000535.0000000104.0000000005.0000000000.0000000000.0000000000"},
		{"1.2.3.4.5.6", "0000000001.0000000002.0000000003.0000000004.0000000005.0000000006"},
		{"999999999", "0999999999.0000000000.0000000000.0000000000.0000000000.0000000000"},
		{"banana", ""},
		{"", ""},
		{"1.2.3.4.5.6.7", ""},
	}
	for _, tt := range tests {
		if got := DottedKey(tt.in); got != tt.key {
			t.Errorf("DottedKey(%q) = %q, want %q", tt.in, got, tt.key)
		}
	}
}
