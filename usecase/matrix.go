package usecase

import (
	"context"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
)

// MatrixOptions names a table and its filters.
type MatrixOptions struct {
	Table string
	// Channel narrows the torch table to pip or conda ("" both).
	Channel string
	// GPU filters the gpu table (--cuda, --arch, --name).
	GPU GPUFilter
	// Strict makes a framework table the data holds no builds of a
	// not-found error (the CLI's exit 4) instead of an empty table (what
	// HTTP and the site serve over a partial database).
	Strict bool
}

// MatrixResult is one compatibility table: Rows is a slice of flat
// objects (the JSON `cudb matrix TABLE --json` prints), or the GPU grid.
type MatrixResult struct {
	Table string `json:"table"`
	Rows  any    `json:"rows"`
}

// MatrixNames lists the tables Matrix answers, in a stable order.
func MatrixNames() []string { return query.MatrixNames() }

// Matrix builds one compatibility table.
func Matrix(ctx context.Context, d *DB, o MatrixOptions) (*MatrixResult, error) {
	build, ok := query.Matrices[o.Table]
	if !ok {
		return nil, errs.Usage("unknown table %s (tables: %s)", errs.Quote(o.Table), strings.Join(MatrixNames(), ", ")).
			WithHint("cudb matrix torch")
	}
	if o.Channel != "" {
		if o.Table != frameworks.Torch {
			return nil, errs.Usage("channel narrows the torch table only, not %s", o.Table).WithHint("cudb matrix torch --channel conda")
		}
		if o.Channel != "pip" && o.Channel != "conda" {
			return nil, errs.Usage("invalid channel %s: expected pip or conda", errs.Quote(o.Channel)).WithHint("cudb matrix torch --channel conda")
		}
	}
	for _, f := range []struct{ name, value string }{{"cuda", o.GPU.CUDA}, {"arch", o.GPU.Arch}, {"name", o.GPU.Name}} {
		if f.value != "" && o.Table != "gpu" {
			return nil, errs.Usage("%s filters the gpu table only, not %s", f.name, o.Table).WithHint("cudb matrix gpu --%s", f.name)
		}
	}
	var rows any
	var err error
	switch {
	case o.Table == frameworks.Torch && o.Channel != "":
		rows, err = query.MatrixTorch(ctx, d, o.Channel)
	case o.Table == "gpu":
		rows, err = nvidia.MatrixGPUFiltered(ctx, d, o.GPU)
	case o.Strict && o.Table == frameworks.TensorFlow:
		rows, err = query.TensorFlowMatrix(ctx, d)
	case o.Strict && o.Table == frameworks.JAX:
		rows, err = query.JAXMatrix(ctx, d)
	case o.Strict && o.Table == frameworks.Must(frameworks.ONNXRuntime).Matrix:
		rows, err = query.ONNXRuntimeMatrix(ctx, d)
	default:
		rows, err = build(ctx, d)
	}
	if err != nil {
		return nil, err
	}
	return &MatrixResult{Table: o.Table, Rows: rows}, nil
}
