package verify

import (
	"context"
	"errors"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/querytest"
)

// Work stops when its context ends (a client that hung up, a spent
// budget): verify's error-line loop, explain's pattern loop and
// resolve's conflict search return the cancellation, never a partial
// answer.
func TestWorkHonoursContext(t *testing.T) {
	d := querytest.Open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	facts := &host.Snapshot{Origin: "report:errors", Errors: []string{
		"RuntimeError: The NVIDIA driver on your system is too old (found version 11040)",
		"RuntimeError: CUDA error: no kernel image is available for execution on the device",
	}}
	if rep, err := Verify(ctx, d, facts); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify: %v, %+v", err, rep)
	}
	if fs, err := Explain(ctx, d, facts.Errors[0]); !errors.Is(err, context.Canceled) {
		t.Errorf("Explain: %v, %+v", err, fs)
	}
	if res, err := query.Resolve(ctx, d, query.ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.14.0"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Resolve: %v, %+v", err, res)
	}
	// The same calls answer under a live context.
	if _, err := Verify(context.Background(), d, facts); err != nil {
		t.Errorf("Verify: %v", err)
	}
}
