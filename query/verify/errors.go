package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
)

// explainErrors explains a report's error lines in one pass (so a
// message spread over lines is read whole) and folds the findings in:
// one that restates a finding already made becomes its evidence.
func (v *verifier) explainErrors(ctx context.Context) error {
	if len(v.f.Errors) == 0 {
		return nil
	}
	x, err := ExplainAll(ctx, v.d, strings.Join(v.f.Errors, "\n"))
	if err != nil {
		if c := errs.CodeOf(err); c == errs.CodeNotFound || c == errs.CodeUsage {
			return nil
		}
		return err
	}
	v.errExplained, v.errSkipped = x.Lines, x.Skipped
next:
	for _, f := range x.Findings {
		label := "error: "
		harmless := strings.HasPrefix(f.Message, harmlessPrefix)
		if harmless {
			// a normal log line, not a failure: said on its own
			label = "log: "
		}
		ev := label + strings.TrimPrefix(f.Evidence[0], "message: ")
		for i := range v.out {
			if !harmless && v.out[i].Category == f.Category && !strings.HasPrefix(v.out[i].Message, harmlessPrefix) {
				v.out[i].Evidence = append(v.out[i].Evidence, ev)
				if findings.Rank(f.Severity) < findings.Rank(v.out[i].Severity) {
					// the report shows it failing, not only predicted
					v.out[i].Severity = f.Severity
				}
				continue next
			}
		}
		f.Evidence[0] = ev
		v.attribute(&f)
		v.tuneCUDNN(&f)
		v.add(f)
	}
	return nil
}

// tuneCUDNN makes a cuDNN finding of an error line name the cuDNN wheel
// this host's framework build pins (the host's torch, not the newest
// build in the database).
func (v *verifier) tuneCUDNN(f *findings.Finding) {
	if f.Category != findings.CatCUDNNMissing && f.Category != findings.CatCUDNNMismatch {
		return
	}
	for _, fw := range v.fws {
		if fw.build == nil || fw.cuda == "" {
			continue
		}
		pr, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin)
		if !ok {
			continue
		}
		pin := cudnnWheel(fw.cuda) + pr.Spec
		f.Evidence = append(f.Evidence, fmt.Sprintf("%s: pins %s", fw.label, pin))
		f.Fix = fmt.Sprintf("for this host's %s: pip install %q and unset LD_LIBRARY_PATH (or drop the directory of the other cuDNN copy) so it loads that copy", fw.label, pin)
		if first, _ := v.loadedCUDNN(fw.py, true); first != nil && first.Source == host.CUDNNLDPreload && f.Category == findings.CatCUDNNMismatch {
			// the loader maps the preloaded copy first, whatever the
			// library path says
			f.Message = strings.Replace(f.Message, "(LD_LIBRARY_PATH or the system)", "(LD_PRELOAD: "+first.Path+")", 1)
			f.Evidence = append(f.Evidence, fmt.Sprintf("cuDNN loaded first: %s %s (%s)", first.Version, first.Path, first.Source))
			f.Fix = fmt.Sprintf("for this host's %s: unset LD_PRELOAD (it loads %s ahead of the wheel), and keep %q installed", fw.label, first.Path, pin)
		}
		return
	}
}
