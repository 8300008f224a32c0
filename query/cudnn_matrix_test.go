package query

import (
	"context"
	"testing"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/querytest"
)

// matrix cudnn lists every release, the ones without a support-matrix
// row too (with their CUDA majors and what is missing), newest first.
func TestMatrixCUDNNListsEveryRelease(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	rows, err := nvidia.MatrixCUDNNReleases(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	known, err := nvidia.CUDNNReleases(ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	majors := map[string][]string{}
	status := map[string]string{}
	for i, r := range rows {
		if i > 0 && version.DottedKey(r.CUDNN) > version.DottedKey(rows[i-1].CUDNN) {
			t.Errorf("row %d: %s after %s", i, r.CUDNN, rows[i-1].CUDNN)
		}
		if r.Status != "" {
			majors[r.CUDNN] = append(majors[r.CUDNN], r.CUDAMajor)
			status[r.CUDNN] = r.Status
		}
	}
	for _, k := range known {
		if status[k.CUDNN] != k.Status {
			t.Errorf("cuDNN %s: status %q in the matrix, %q known", k.CUDNN, status[k.CUDNN], k.Status)
		}
	}
	if got := majors["9.27.0"]; len(got) != 2 || got[0] != "13" || got[1] != "12" || status["9.27.0"] != nvidia.SupportNotRead {
		t.Errorf("9.27.0: majors %v status %q", got, status["9.27.0"])
	}
	if status["9.28.0"] == "" {
		t.Error("9.28.0 is not listed")
	}
	support, err := nvidia.MatrixCUDNN(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rows) - len(support); n < len(known) {
		t.Errorf("%d release rows for %d releases without a support row", n, len(known))
	}
}
