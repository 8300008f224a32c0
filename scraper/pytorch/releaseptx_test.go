package pytorch

import (
	"strings"
	"testing"
)

func TestReleasePTXCapture(t *testing.T) {
	b, err := captures.ReadFile("captures/release-ptx@pytorch-prs.md")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := parseReleasePTX(b, "release-ptx")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Key)
	}
	// 2.13 is not named: 2.13.0 shipped with PTX (#188914).
	if strings.Join(got, " ") != "2.11|cu130 2.12|cu130 2.12|cu132 2.14|cu130 2.14|cu132" {
		t.Errorf("no-ptx lines = %v", got)
	}
	if _, err := parseReleasePTX([]byte("## https://example.org/pr\n> smaller wheels\nno-ptx: 2.12 | cu130\n"), "x"); err == nil || !strings.Contains(err.Error(), "speaks of PTX") {
		t.Errorf("a fact its quote does not state: %v", err)
	}
	if stripPTX("sm_90 sm_120 compute_120") != "sm_90 sm_120" {
		t.Error("stripPTX")
	}
}
