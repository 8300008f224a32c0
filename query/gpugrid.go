package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// Kernel support levels of a build for a compute capability, best first.
const (
	SupportSASS           = "sass"            // a cubin for exactly this capability
	SupportSASSCompatible = "sass_compatible" // a cubin for an earlier minor of the same major
	SupportPTXJIT         = "ptx_jit"         // only PTX at or below: the driver compiles at first use
	SupportNone           = "none"
)

// KernelSupport says how a build whose arch list became caps (archToCC
// form: "7.5", "9.0+PTX") runs on a GPU of compute capability cc ("8.6").
// Cubins run on later minors of their major; PTX runs on any later
// capability through the driver's JIT.
func KernelSupport(cc string, caps []string) string {
	want, ok := version.ParseCC(cc)
	if !ok {
		return SupportNone
	}
	best := SupportNone
	rank := map[string]int{SupportSASS: 3, SupportSASSCompatible: 2, SupportPTXJIT: 1, SupportNone: 0}
	for _, c := range caps {
		ptx := strings.HasSuffix(c, "+PTX")
		have, ok := version.ParseCC(strings.TrimSuffix(c, "+PTX"))
		if !ok {
			continue
		}
		level := SupportNone
		switch {
		case !ptx && have == want:
			level = SupportSASS
		case !ptx && have.Major == want.Major && have.Minor <= want.Minor:
			level = SupportSASSCompatible
		case ptx && have.Compare(want) <= 0:
			level = SupportPTXJIT
		}
		if rank[level] > rank[best] {
			best = level
		}
	}
	return best
}

// GPUGrid is the GPU × torch build table: for each GPU (or, without GPU
// facts, each compute capability the builds name) and each CUDA build,
// the kernel support level.
type GPUGrid struct {
	Columns []GridColumn `json:"columns"`
	Rows    []GridRow    `json:"rows"`
}

// GridColumn is one torch release × CUDA variant.
type GridColumn struct {
	Torch               string   `json:"torch"`
	Variant             string   `json:"variant"`
	CUDA                string   `json:"cuda"`
	ComputeCapabilities []string `json:"compute_capabilities"`
	URL                 string   `json:"url,omitempty"`
}

// GridRow is one GPU; Support[i] is its level for Columns[i].
type GridRow struct {
	GPU               string   `json:"gpu,omitempty"`
	ComputeCapability string   `json:"compute_capability"`
	Architecture      string   `json:"architecture,omitempty"`
	URL               string   `json:"url,omitempty"`
	Support           []string `json:"support"`
}

// TorchGPUGrid builds the grid for torch's pip CUDA builds.
func TorchGPUGrid(ctx context.Context, d *db.DB) (*GPUGrid, error) {
	rows, err := MatrixTorch(ctx, d, "pip")
	if err != nil {
		return nil, err
	}
	g := &GPUGrid{Columns: []GridColumn{}, Rows: []GridRow{}}
	for _, r := range rows {
		if r.CUDA == "" || len(r.ComputeCapabilities) == 0 {
			continue
		}
		col := GridColumn{Torch: r.Torch, Variant: r.Variant, CUDA: r.CUDA, ComputeCapabilities: r.ComputeCapabilities}
		if len(r.Sources) > 0 {
			col.URL = r.Sources[0].URL
		}
		g.Columns = append(g.Columns, col)
	}
	gpus, err := d.GPUs(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read GPUs: %w", err)
	}
	for _, x := range gpus {
		g.Rows = append(g.Rows, GridRow{GPU: x.Name, ComputeCapability: x.ComputeCapability, Architecture: x.Architecture, URL: x.URL})
	}
	if len(g.Rows) == 0 {
		// Without GPU facts the capabilities the builds name still make a
		// useful grid.
		seen := map[string]bool{}
		for _, c := range g.Columns {
			for _, cc := range c.ComputeCapabilities {
				cc = strings.TrimSuffix(cc, "+PTX")
				if _, ok := version.ParseCC(cc); ok && !seen[cc] {
					seen[cc] = true
					g.Rows = append(g.Rows, GridRow{ComputeCapability: cc})
				}
			}
		}
	}
	sort.SliceStable(g.Rows, func(i, j int) bool {
		a, _ := version.ParseCC(g.Rows[i].ComputeCapability)
		b, _ := version.ParseCC(g.Rows[j].ComputeCapability)
		if a != b {
			return a.Compare(b) > 0
		}
		return g.Rows[i].GPU < g.Rows[j].GPU
	})
	for i := range g.Rows {
		g.Rows[i].Support = make([]string, len(g.Columns))
		for j, c := range g.Columns {
			g.Rows[i].Support[j] = KernelSupport(g.Rows[i].ComputeCapability, c.ComputeCapabilities)
		}
	}
	return g, nil
}
