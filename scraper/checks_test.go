package scraper

import (
	"strings"
	"testing"
)

func TestVersionLike(t *testing.T) {
	good := []string{"", "n/a", "-", "2.1.0", "2.1.0+cu121", "8.9.2.26", ">=525.60.13", ">= 525.60", "12.x", "v0.4.1",
		"3.8-3.11", "3.8 - 3.11", "11.8, 12.1", "12.0;12.1;12.2", "2.1 (beta)", "1.0rc1", "==2.1.*", "12.1 or 12.2",
		"1.24 dev (main, Nov 2025)", "master (nightly snapshot; not a release)", "cuda-aarch64"}
	bad := []string{"see notes", "banana", "not yet released", "Linux", "13.x.1", "12.*.3", "2.1.0see notes", "1..2", "Linux 12.1"}
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

func TestGrammars(t *testing.T) {
	for _, c := range []struct {
		g         Grammar
		good, bad []string
	}{
		{Dotted, []string{"12", "12.0", "12.0.1", "8.9.2.26"}, []string{"", "13.x.1", "12.0 ", "v12", "12.0-rc"}},
		{DottedOrEmpty, []string{"", "12.4"}, []string{"n/a", "12.x"}},
		{Driver, []string{"525", "525.60", "525.60.13"}, []string{"52", "525.60.13.1", "r525", ""}},
		{OrPlaceholder(Driver), []string{"", "N/A", "-", "452.39"}, []string{"see below"}},
		{SM, []string{"sm_90", "sm_90a", "sm_100"}, []string{"sm_9", "compute_90", "90"}},
		{PEP440, []string{"2.1.0", "2.1.0+cu121", "2.15.0rc1", "0.4.26", "1.0.post1", "2.7.0.dev20250101"}, []string{"2.1.x", "main", ""}},
		{Specifier, []string{"==8.9.2.26", ">=12.5.3.2,<13.0", "2.1.0", "~=2.1"}, []string{">=", "13.x.1", "==2.1 or so"}},
		{Capability, []string{"8.6", "9.0", "5.x"}, []string{"8", "sm_86"}},
	} {
		for _, v := range c.good {
			if !c.g.Valid(v) {
				t.Errorf("%s refuses %q", c.g.Name, v)
			}
		}
		for _, v := range c.bad {
			if c.g.Valid(v) {
				t.Errorf("%s accepts %q", c.g.Name, v)
			}
		}
	}
}

func TestCleanText(t *testing.T) {
	for _, s := range []string{"", "8.2.4 (Linux)\n8.2.2.26 (Windows)", "a\tb", "CUDA® 11.0", "Ampère"} {
		if why := CleanText(s); why != "" {
			t.Errorf("CleanText(%q) = %q", s, why)
		}
	}
	for _, s := range []string{"a\x00b", "\x1b[31mred", "line\r", "\x7f", "\u0085", "bad \xff utf-8", "\ufffd"} {
		if CleanText(s) == "" {
			t.Errorf("CleanText(%q) accepts it", s)
		}
	}
}

// FuzzGrammars: the grammars never panic, a plain dotted version is always
// a version cell, and text CleanText accepts holds no NUL or escape.
func FuzzGrammars(f *testing.F) {
	for _, s := range []string{"12.0.1", "13.x.1", ">=12.5.3.2,<13.0", "1.24 dev (main, Nov 2025)", "cuda-aarch64", "a\x00b", "master (nightly)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := VersionLike(s)
		if Dotted.Valid(s) && !v {
			t.Fatalf("dotted %q is not VersionLike", s)
		}
		for _, g := range []Grammar{Dotted, Driver, SM, PEP440, Specifier, Capability, DateText, Text} {
			g.Valid(s)
		}
		if CleanText(s) == "" && strings.ContainsAny(s, "\x00\x1b\r") {
			t.Fatalf("CleanText accepts %q", s)
		}
	})
}
