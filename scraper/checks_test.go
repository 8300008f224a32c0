package scraper

import "testing"

func TestVersionLike(t *testing.T) {
	good := []string{"", "n/a", "-", "2.1.0", "2.1.0+cu121", "8.9.2.26", ">=525.60.13", ">= 525.60", "12.x", "v0.4.1",
		"3.8-3.11", "3.8 - 3.11", "11.8, 12.1", "12.0;12.1;12.2", "2.1 (beta)", "1.0rc1", "==2.1.*", "12.1 or 12.2",
		"1.24 dev (main, Nov 2025)", "master (nightly snapshot; not a release)", "cuda-aarch64"}
	bad := []string{"see notes", "banana", "not yet released", "Linux"}
	for _, v := range good {
		if !VersionLike(v) {
			t.Errorf("VersionLike(%q) = false", v)
		}
	}
	for _, v := range bad {
		if VersionLike(v) {
			t.Errorf("VersionLike(%q) = true", v)
		}
	}
}

func TestParseDate(t *testing.T) {
	for _, v := range []string{"", "2023-10-04", "2023-10", "2023", "October 4, 2023", "Oct 2023", "4 October 2023", "TBD"} {
		if _, ok := ParseDate(v); !ok {
			t.Errorf("ParseDate(%q) failed", v)
		}
	}
	for _, v := range []string{"soon", "2023-13-01", "yesterday"} {
		if _, ok := ParseDate(v); ok {
			t.Errorf("ParseDate(%q) accepted", v)
		}
	}
}

func TestFieldNames(t *testing.T) {
	for name, want := range map[string][2]bool{
		"version": {true, false}, "cudnn_version": {true, false}, "torchVersion": {true, false},
		"released_on": {false, true}, "release_date": {false, true}, "date": {false, true},
		"cuda": {false, false}, "notes": {false, false},
	} {
		if got := [2]bool{IsVersionField(name), IsDateField(name)}; got != want {
			t.Errorf("%s: version/date %v, want %v", name, got, want)
		}
	}
}
