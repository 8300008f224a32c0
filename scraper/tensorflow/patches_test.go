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

func TestReleaseStatements(t *testing.T) {
	b, err := captures.ReadFile("captures/tensorflow-releases.md")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReleaseStatements(b, "tensorflow-releases.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 14 {
		t.Errorf("%d releases, want 14", len(recs))
	}
	for _, r := range recs {
		if !strings.HasPrefix(r.URL, "https://") || !strings.Contains(r.Ref, r.Fields["version"]) {
			t.Errorf("%s: cites %q %q", r.Key, r.URL, r.Ref)
		}
	}
	if _, err := ReleaseStatements([]byte("## https://example.org/x\n> TensorFlow 2.6.50\nrelease: 2.6.5\n"), "x.md"); err == nil || !strings.Contains(err.Error(), "names 2.6.5") {
		t.Errorf("a release its quote does not name: %v", err)
	}
}
