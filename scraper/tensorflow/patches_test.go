package tensorflow

import (
	"os"
	"strings"
	"testing"
)

func TestBasedOnSkipsCandidates(t *testing.T) {
	b, err := os.ReadFile("testdata/serving_release_ok.md")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := BasedOn(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Version)
	}
	// The fixture's rc lines (2.12.0-rc…, 2.11.0-rc2) name no release.
	if strings.Join(got, " ") != "2.12.1 2.11.1" {
		t.Errorf("releases = %v", got)
	}
	if _, err := BasedOn([]byte("# Release 2.12.1\n* This is a re-release of 2.12.0\n")); err == nil || !strings.Contains(err.Error(), "no line names") {
		t.Errorf("a document naming no release: %v", err)
	}
}

func FuzzBasedOn(f *testing.F) {
	b, _ := os.ReadFile("testdata/serving_release_ok.md")
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		BasedOn(b)
	})
}
