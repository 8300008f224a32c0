package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// A framework release only a lead names (torch 2.15.0, seen on PyPI) is
// reported as resolve words it: a known release whose facts are pending,
// not "not in the database"; an invented one still is not in it.
func TestVerifyPendingRelease(t *testing.T) {
	for _, tc := range []struct{ torch, want string }{
		{"2.15.0+cu130", "torch 2.15.0+cu130 is a known release whose facts are pending (reported by "},
		{"9.9.9+cu999", "torch 9.9.9+cu999 is not in the database"},
	} {
		r, err := Verify(context.Background(), querytest.Embedded(t), torchHost(tc.torch, "13.0", "cu130", "3.12.3"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range r.Findings {
			if f.Category == findings.CatUnknownVersion && strings.HasPrefix(f.Message, tc.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("torch %s: no finding starting %q in %+v", tc.torch, tc.want, r.Findings)
		}
	}
}
