package query

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
)

// smNumber turns "sm_75" or "7.5" into 75.
func smNumber(s string) (int, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "sm_")
	s = strings.TrimRight(strings.ReplaceAll(s, ".", ""), "abf")
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// toolkitRefuses reports whether CUDA cuda does not compile for compute
// capability cc (JudgeToolkit says unsupported): no build made with that
// toolkit can carry kernels for it, whatever its own arch list says. An
// unknown judgement refuses nothing.
func toolkitRefuses(ctx context.Context, d *db.DB, cuda, cc string) (ToolkitFit, bool) {
	if cuda == "" || cc == "" {
		return ToolkitFit{}, false
	}
	f, err := JudgeToolkit(ctx, d, cuda, cc)
	return f, err == nil && f.Support == CUDAUnsupported
}

// toolkitRefusesIf is toolkitRefuses, asked only when ask holds.
func toolkitRefusesIf(ask bool, ctx context.Context, d *db.DB, cuda, cc string) (ToolkitFit, bool) {
	if !ask {
		return ToolkitFit{}, false
	}
	return toolkitRefuses(ctx, d, cuda, cc)
}

// droppedText names what a toolkit dropped, for messages.
func droppedText(r ArchRow) string {
	if r.Dropped == "" {
		return ""
	}
	d, _, _ := strings.Cut(r.Dropped, " (")
	return "; it dropped " + strings.ReplaceAll(d, ";", ", ")
}

// filterComponentsByGPU applies --gpu/--sm to component answers: a CUDA
// release that compiles nothing for the GPU, or a cuDNN release whose
// support matrix omits its compute capability, is dropped, and a request
// that keeps none is incompatible (exit 3) naming the dropped
// architecture.
func filterComponentsByGPU(ctx context.Context, d *db.DB, cs *constraints, comp *ComponentAnswer) error {
	if cs.cc == "" {
		return nil
	}
	who := "compute capability " + cs.cc
	if cs.gpuName != "" {
		who = fmt.Sprintf("%s (compute capability %s)", cs.gpuName, cs.cc)
	}
	switch rows := comp.Facts.(type) {
	case []CUDARow:
		at, err := loadArchTargets(ctx, d)
		if err != nil {
			return err
		}
		var kept []CUDARow
		var why []string
		for _, r := range rows {
			if f := at.judge(r.CUDA, cs.cc); f.Support == CUDAUnsupported {
				msg := f.Reason
				if len(why) < 3 && !slices.Contains(why, msg) {
					why = append(why, msg)
				}
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) == 0 {
			return errs.Errorf(errs.CodeIncompatible, "no CUDA release matching %s runs on %s: %s", comp.Version, who, strings.Join(why, "; ")).
				WithHint("cudb resolve cuda --gpu ... (without a version) or cudb matrix arch")
		}
		comp.Facts = kept
	case []CUDNNRow:
		var kept []CUDNNRow
		for _, r := range rows {
			if len(r.ComputeCapabilities) > 0 && !ccListed(r.ComputeCapabilities, cs.cc) {
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) == 0 {
			return errs.Errorf(errs.CodeIncompatible, "no cuDNN release matching %s supports %s: its support matrix lists compute capabilities %s",
				comp.Version, who, strings.Join(rows[0].ComputeCapabilities, ", ")).WithHint("cudb matrix cudnn")
		}
		comp.Facts = kept
	}
	return nil
}

// ccListed reports whether a support matrix list ("5.0", "6.x", "8.6",
// "9.0+") names cc.
func ccListed(list []string, cc string) bool {
	have, ok := smNumber(cc)
	if !ok {
		return true
	}
	for _, c := range list {
		c = strings.TrimSpace(c)
		if rest, ok := strings.CutPrefix(c, "SM "); ok {
			c = strings.TrimSuffix(rest, " and later") + "+"
		}
		switch {
		case strings.HasSuffix(c, "+"):
			if lo, ok := smNumber(strings.TrimSuffix(c, "+")); ok && have >= lo {
				return true
			}
		case strings.HasSuffix(c, ".x"):
			if version.MajorText(c) == version.MajorText(cc) {
				return true
			}
		default:
			if n, ok := smNumber(c); ok && n == have {
				return true
			}
		}
	}
	return false
}
