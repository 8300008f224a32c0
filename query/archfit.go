package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
)

// toolkitRefuses reports whether CUDA cuda does not compile for compute
// capability cc (JudgeToolkit says unsupported): no build made with that
// toolkit can carry kernels for it, whatever its own arch list says. An
// unknown judgement refuses nothing.
func toolkitRefuses(ctx context.Context, d *db.DB, cuda, cc string) (nvidia.ToolkitFit, bool) {
	if cuda == "" || cc == "" {
		return nvidia.ToolkitFit{}, false
	}
	f, err := nvidia.JudgeToolkit(ctx, d, cuda, cc)
	return f, err == nil && f.Support == nvidia.CUDAUnsupported
}

// toolkitRefusesIf is toolkitRefuses, asked only when ask holds.
func toolkitRefusesIf(ask bool, ctx context.Context, d *db.DB, cuda, cc string) (nvidia.ToolkitFit, bool) {
	if !ask {
		return nvidia.ToolkitFit{}, false
	}
	return toolkitRefuses(ctx, d, cuda, cc)
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
	case []nvidia.CUDARow:
		at, err := nvidia.LoadArchTargets(ctx, d)
		if err != nil {
			return err
		}
		var kept []nvidia.CUDARow
		var why []string
		for _, r := range rows {
			if f := at.Judge(r.CUDA, cs.cc); f.Support == nvidia.CUDAUnsupported {
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
	case []nvidia.CUDNNRow:
		var kept []nvidia.CUDNNRow
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
	c0, ok := version.ParseCC(cc)
	have := c0.Number()
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
			if lo, ok := version.ParseCC(strings.TrimSuffix(c, "+")); ok && have >= lo.Number() {
				return true
			}
		case strings.HasSuffix(c, ".x"):
			if version.MajorText(c) == version.MajorText(cc) {
				return true
			}
		default:
			if n, ok := version.ParseCC(c); ok && n.Number() == have {
				return true
			}
		}
	}
	return false
}
