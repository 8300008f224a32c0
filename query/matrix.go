package query

import (
	"context"
	"sort"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
)

// TorchRow is one row of `cudb matrix torch`: a torch release × variant
// × channel.
type TorchRow struct {
	Torch               string   `json:"torch"`
	Variant             string   `json:"variant"`
	Channel             string   `json:"channel"` // "pip" or "conda"
	CUDA                string   `json:"cuda"`
	CUDNN               string   `json:"cudnn"`
	NCCL                string   `json:"nccl"`
	PythonMin           string   `json:"python_min"`
	PythonMax           string   `json:"python_max"`
	Torchvision         string   `json:"torchvision"`
	Torchaudio          string   `json:"torchaudio"`
	Platforms           []string `json:"platforms"`
	ComputeCapabilities []string `json:"compute_capabilities"`
	Default             bool     `json:"default"`
	// Status is "facts pending" for a known release no source describes
	// yet (a lead: PyPI's release list); every other field is then empty.
	Status string `json:"status,omitempty"`
	// Sources cite the rows behind the row, the build's own first.
	Sources []SourceRef `json:"sources"`
}

// MatrixTorch lists every torch build, newest first: pip wheels and conda
// packages, or only one of them with channel "pip" or "conda" (some
// releases exist only as conda packages, so the default shows both).
func MatrixTorch(ctx context.Context, d *db.DB, channel string) ([]TorchRow, error) {
	var channels []string
	switch channel {
	case "":
		channels = []string{"pip", "conda"}
	case "pip", "conda":
		channels = []string{channel}
	default:
		return nil, errs.Usage("invalid channel %s: expected pip or conda", errs.Quote(channel)).WithHint("cudb matrix torch --channel conda")
	}
	builds, err := d.Builds(ctx, frameworks.Torch, nil)
	if err != nil {
		return nil, err
	}
	fr := &frameworkReq{fam: familyOf(frameworks.Torch)}
	type ranked struct {
		row   TorchRow
		stack Stack
	}
	var all []ranked
	for _, ch := range channels {
		want := ch
		if ch == "pip" {
			want = ""
		}
		var keep []*db.BuildRow
		for _, b := range builds {
			if b.Channel == want {
				keep = append(keep, b)
			}
		}
		for _, s := range groupStacks(fr, keep, builds) {
			finish(&s, false)
			all = append(all, ranked{stack: s, row: TorchRow{
				Torch: s.version.String(), Variant: s.Variant, Channel: ch, CUDA: s.CUDA, CUDNN: s.CUDNN, NCCL: s.NCCL,
				PythonMin: s.Python.Min, PythonMax: s.Python.Max,
				Torchvision: s.Packages[frameworks.TorchVision], Torchaudio: s.Packages[frameworks.TorchAudio],
				Platforms: s.Platforms, ComputeCapabilities: s.ComputeCapabilities, Default: s.Default,
				Sources: s.Sources,
			}})
		}
	}
	// Each channel is already best first; interleave them by release so a
	// release's pip rows come before its conda rows.
	sort.SliceStable(all, func(i, j int) bool {
		return all[i].stack.version.Compare(all[j].stack.version) > 0
	})
	rows := make([]TorchRow, 0, len(all))
	for _, r := range all {
		rows = append(rows, r.row)
	}
	if channel == "conda" {
		return rows, nil
	}
	// Known releases without builds are listed too (they are the newest):
	// one row each, marked pending, citing where they were seen.
	return withPending(ctx, d, frameworks.Torch, rows, func(r TorchRow) string { return r.Torch }, func(p PendingRelease) TorchRow {
		return TorchRow{Torch: p.Version, Channel: "pip", Status: pendingStatus, Platforms: []string{},
			ComputeCapabilities: []string{}, Sources: []SourceRef{{Name: "leads (" + p.ReportedBy + ")", URL: ""}}}
	}), nil
}
