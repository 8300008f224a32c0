package query

import (
	"context"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

// CUDA 13.4 is in NVIDIA's tables without a published minimum driver: it
// is still a release (matrix cuda, resolve cuda==13.4), its own floor
// blank (unknown), the 13.x minor-compatibility floor still stated.
func TestMatrixCUDAKeepsReleasesWithoutFloor(t *testing.T) {
	rows, err := MatrixCUDA(context.Background(), querytest.Embedded(t))
	if err != nil {
		t.Fatal(err)
	}
	var got *CUDARow
	for i := range rows {
		if rows[i].CUDA == "13.4.1" {
			got = &rows[i]
		}
		if i > 0 && rows[i-1].CUDA == rows[i].CUDA {
			t.Fatalf("CUDA %s listed twice", rows[i].CUDA)
		}
	}
	if got == nil {
		t.Fatalf("matrix cuda lacks 13.4.1 (newest rows: %+v)", rows[:3])
	}
	if got.LinuxMinDriver != "" || got.MinorCompatLinuxMinDriver != "580" || got.Label != "CUDA 13.4 GA" {
		t.Errorf("13.4.1 row = %+v", *got)
	}
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"cuda==13.4"}})
	if err != nil || len(res.Components) == 0 {
		t.Fatalf("resolve cuda==13.4: %v", err)
	}
}
