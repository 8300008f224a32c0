package query

import (
	"context"
	"sort"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query/nvidia"
)

// MatrixFunc builds one compatibility table. The value is what
// `GET /v1/matrix/{name}` returns and what `cudb gen site` writes to
// data/{name}.json and renders: a slice of flat JSON objects renders as a
// table (a "sources" field of [{name, url}] links each row's cells to its
// citation).
type MatrixFunc func(ctx context.Context, d *db.DB) (any, error)

// Matrices is the registry of tables served over HTTP and rendered by the
// site generator. A new table is one line, here or in an init function
// beside its query:
//
//	Matrices["cuda"] = func(ctx context.Context, d *db.DB) (any, error) { return MatrixCUDA(ctx, d) }
var Matrices = map[string]MatrixFunc{
	frameworks.Torch: func(ctx context.Context, d *db.DB) (any, error) { return MatrixTorch(ctx, d, "") },
	"torch-gpu": func(ctx context.Context, d *db.DB) (any, error) {
		return TorchGPUGrid(ctx, d)
	},
	"cuda":                func(ctx context.Context, d *db.DB) (any, error) { return nvidia.MatrixCUDA(ctx, d) },
	"cudnn":               func(ctx context.Context, d *db.DB) (any, error) { return nvidia.MatrixCUDNNReleases(ctx, d) },
	"gpu":                 func(ctx context.Context, d *db.DB) (any, error) { return nvidia.MatrixGPU(ctx, d) },
	"arch":                func(ctx context.Context, d *db.DB) (any, error) { return nvidia.MatrixArch(ctx, d) },
	"driver":              func(ctx context.Context, d *db.DB) (any, error) { return nvidia.MatrixDriver(ctx, d) },
	frameworks.TensorFlow: func(ctx context.Context, d *db.DB) (any, error) { return orEmpty(TensorFlowMatrix(ctx, d)) },
	frameworks.JAX:        func(ctx context.Context, d *db.DB) (any, error) { return orEmpty(JAXMatrix(ctx, d)) },
	frameworks.Must(frameworks.ONNXRuntime).Matrix: func(ctx context.Context, d *db.DB) (any, error) { return orEmpty(ONNXRuntimeMatrix(ctx, d)) },
}

// orEmpty turns "the database has no such builds" into an empty table:
// a site or API over a partial database still serves its other tables.
func orEmpty[T any](rows []T, err error) (any, error) {
	if errs.CodeOf(err) == errs.CodeNotFound {
		return []T{}, nil
	}
	if rows == nil && err == nil {
		rows = []T{}
	}
	return rows, err
}

// MatrixNames lists the registered tables in a stable order.
func MatrixNames() []string {
	names := make([]string, 0, len(Matrices))
	for n := range Matrices {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
