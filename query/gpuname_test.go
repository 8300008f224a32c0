package query

import (
	"context"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

// appendNormGPU is normGPU without allocating: the same on every name and
// alias of the embedded GPU table and on odd spellings.
func TestAppendNormGPUIsNormGPU(t *testing.T) {
	names := []string{"", "NVIDIA", "nvidia nvidia", "Tesla-T4", "NVIDIA GeForce RTX 4090", "A100_SXM4\t80GB", "GeForce", "tesla tesla v100", "Ä100", "RTX\u00a04090"}
	d := querytest.Embedded(t)
	gs, err := d.GPUs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		names = append(names, g.Name)
		names = append(names, g.Aliases...)
	}
	for _, n := range names {
		b, ok := appendNormGPU(nil, n)
		if ok && string(b) != normGPU(n) {
			t.Errorf("%q: appendNormGPU %q, normGPU %q", n, b, normGPU(n))
		}
	}
}
