package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/querytest"
)

// TestReaderKeepsEverySignature: every signature's real message, pasted
// as a report, reaches explain through verify --from's reader (a
// signature the reader drops is a cause verify never names).
func TestReaderKeepsEverySignature(t *testing.T) {
	d := querytest.Embedded(t)
	for id, text := range signatureCases {
		facts, _, err := report.Parse([]byte(text))
		if err != nil {
			t.Errorf("%s: the reader refuses %q: %v", id, text, err)
			continue
		}
		x, err := ExplainAll(context.Background(), d, strings.Join(facts.Errors, "\n"))
		if err != nil {
			t.Errorf("%s: the reader kept %q, which explains nothing: %v", id, facts.Errors, err)
			continue
		}
		want := ""
		for _, s := range signatures() {
			if s.ID == id {
				want = s.Category
			}
		}
		found := false
		for _, f := range x.Findings {
			found = found || f.Category == want
		}
		if !found {
			t.Errorf("%s: kept %q gave %+v, want a %s finding", id, facts.Errors, x.Findings, want)
		}
	}
}
