package cli

import (
	"context"
	"fmt"

	"github.com/cudb/cudb/usecase"
)

// matrixRows is a table's rows through the matrix use case, typed as the
// table's row: the CLI asks strictly (a framework table the data holds no
// builds of is exit 4, not an empty table).
func matrixRows[T any](ctx context.Context, d *usecase.DB, o usecase.MatrixOptions) ([]T, error) {
	o.Strict = true
	res, err := usecase.Matrix(ctx, d, o)
	if err != nil {
		return nil, err
	}
	rows, ok := res.Rows.([]T)
	if !ok {
		return nil, fmt.Errorf("table %s has rows of type %T", o.Table, res.Rows)
	}
	return rows, nil
}
