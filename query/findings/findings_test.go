package findings

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestSortSummarizeVerdict: findings are ordered errors, warnings, infos
// (stable within a severity), counted by severity, and worded as
// NothingWrong only when there is no error and no warning.
func TestSortSummarizeVerdict(t *testing.T) {
	fs := []Finding{
		{Category: CatUnknownVersion, Severity: SevInfo, Message: "a"},
		{Category: CatDriverTooOld, Severity: SevWarning, Message: "b"},
		{Category: CatCUDNNMissing, Severity: SevError, Message: "c"},
		{Category: CatNoGPUVisible, Severity: SevWarning, Message: "d"},
		{Category: CatNotVersion, Severity: "bogus", Message: "e"},
	}
	Sort(fs)
	var order []string
	for _, f := range fs {
		order = append(order, f.Message)
	}
	if got := strings.Join(order, " "); got != "c b d a e" {
		t.Errorf("sorted %q, want errors, warnings (in their order), infos, an unknown severity last", got)
	}
	if s := Summarize(fs); s != (Summary{Errors: 1, Warnings: 2, Infos: 2, Healthy: false}) {
		t.Errorf("summary %+v", s)
	}
	if v := Verdict(Summarize(fs)); v != "" {
		t.Errorf("verdict with an error: %q, want none", v)
	}
	if s := Summarize(nil); s != (Summary{Healthy: true}) || Verdict(s) != NothingWrong {
		t.Errorf("no findings: %+v %q, want healthy and %q", s, Verdict(s), NothingWrong)
	}
	warnOnly := Summarize(fs[1:2])
	if !warnOnly.Healthy || Verdict(warnOnly) != "" {
		t.Errorf("a warning: %+v %q, want healthy and no verdict", warnOnly, Verdict(warnOnly))
	}
	if Verdict(Summarize(fs[3:4])) != NothingWrong {
		t.Error("infos only: want NothingWrong")
	}
	for i, sev := range Severities {
		if Rank(sev) != i {
			t.Errorf("Rank(%s) = %d, want %d", sev, Rank(sev), i)
		}
	}
}

// TestJSONKeys: a finding and a summary carry docs/json.md's keys in its
// order; every door's verify answer is these two types.
func TestJSONKeys(t *testing.T) {
	for _, c := range []struct {
		v    any
		want []string
	}{
		{Finding{Fix: "pip install x"}, []string{"category", "severity", "status", "unknown", "message", "evidence", "fix", "sources"}},
		{Finding{}, []string{"category", "severity", "status", "unknown", "message", "evidence", "sources"}},
		{Summary{}, []string{"errors", "warnings", "infos", "healthy"}},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, tok.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(keys, c.want) {
			t.Errorf("%T %s: keys %v, want %v", c.v, b, keys, c.want)
		}
	}
}
