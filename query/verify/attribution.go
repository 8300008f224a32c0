package verify

import (
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query/findings"
)

// lineFramework names the framework whose log or traceback line l is,
// from the framework table's log markers: the marker that appears
// first in the line wins (the longer one on a tie), so JAX's vendored
// "external/org_tensorflow/tensorflow/..." is JAX's, not TensorFlow's.
// "" when no marker appears.
func lineFramework(table frameworks.Table, l string) string {
	lower := strings.ToLower(l)
	best, bestAt, bestLen := "", -1, 0
	for _, f := range table {
		for _, m := range f.LogMarkers {
			i := strings.Index(lower, m)
			if i < 0 {
				continue
			}
			if bestAt < 0 || i < bestAt || (i == bestAt && len(m) > bestLen) {
				best, bestAt, bestLen = f.Label, i, len(m)
			}
		}
	}
	return best
}

// frameworkEvidence starts the evidence line naming a finding's framework.
const frameworkEvidence = "framework: "

// attribute names, on an explained finding whose line named no framework,
// the only framework the report holds; with several it says nothing
// rather than guess.
func (v *verifier) attribute(f *findings.Finding) {
	for _, e := range f.Evidence {
		if strings.HasPrefix(e, frameworkEvidence) {
			return
		}
	}
	if len(v.fws) == 1 {
		f.Evidence = append(f.Evidence, frameworkEvidence+v.fws[0].label+" (the only framework in the report)")
	}
}
