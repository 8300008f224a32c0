package query

import (
	"context"

	"github.com/cudb/cudb/db"
)

// TorchRow is one row of `cudb matrix torch`: a torch release × variant.
type TorchRow struct {
	Torch               string   `json:"torch"`
	Variant             string   `json:"variant"`
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
	Channel             string   `json:"channel,omitempty"`
	// Sources cite the rows behind the row, the build's own first.
	Sources []SourceRef `json:"sources"`
}

// MatrixTorch lists every torch build, newest first, pip wheels or (with
// channel "conda") conda packages.
func MatrixTorch(ctx context.Context, d *db.DB, channel string) ([]TorchRow, error) {
	builds, err := LoadBuilds(ctx, d, "torch")
	if err != nil {
		return nil, err
	}
	fr := &frameworkReq{fam: familyOf("torch")}
	var keep []*BuildRow
	for _, b := range builds {
		if b.Channel == channel {
			keep = append(keep, b)
		}
	}
	rows := []TorchRow{}
	for _, s := range groupStacks(fr, keep) {
		finish(&s, false)
		rows = append(rows, TorchRow{
			Torch: s.version.String(), Variant: s.Variant, CUDA: s.CUDA, CUDNN: s.CUDNN, NCCL: s.NCCL,
			PythonMin: s.Python.Min, PythonMax: s.Python.Max,
			Torchvision: s.Packages["torchvision"], Torchaudio: s.Packages["torchaudio"],
			Platforms: s.Platforms, ComputeCapabilities: s.ComputeCapabilities, Default: s.Default, Channel: channel,
			Sources: s.Sources,
		})
	}
	return rows, nil
}
