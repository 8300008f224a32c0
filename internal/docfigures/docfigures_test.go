package docfigures

import (
	"regexp"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	doc := "weight <!-- figure w -->200 kB<!-- /figure --> and\n```\n\"schema_version\": 1,\n```\n"
	rules := []Rule{{File: "a.md", Figure: "schema", Pattern: regexp.MustCompile(`"schema_version": (\d+)`)}}
	out, drift, err := Apply("a.md", doc, map[string]string{"w": "229 kB", "schema": "6"}, rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(drift) != 2 || !strings.Contains(out, "-->229 kB<!--") || !strings.Contains(out, `"schema_version": 6,`) {
		t.Errorf("drift %v\n%s", drift, out)
	}
	if _, drift, _ := Apply("a.md", out, map[string]string{"w": "229 kB", "schema": "6"}, rules); len(drift) != 0 {
		t.Errorf("applied twice: %v", drift)
	}
	if _, _, err := Apply("a.md", doc, map[string]string{"schema": "6"}, rules); err == nil {
		t.Error("a marker naming no figure was accepted")
	}
	if _, _, err := Apply("a.md", "nothing", map[string]string{"schema": "6"}, rules); err == nil {
		t.Error("a rule that matches nothing was accepted")
	}
	for b, want := range map[int64]string{229074: "229 kB", 499: "0 kB", 1_900_000: "1.9 MB", 14_032_111: "14.0 MB"} {
		if got := KB(b); got != want {
			t.Errorf("KB(%d) = %q, want %q", b, got, want)
		}
	}
}
