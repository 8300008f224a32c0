package nvidia

import (
	"context"
	"strings"
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

// TestLookupGPUNoPrefixFallback: a name matches a model or alias after
// normalisation, or after dropping a board suffix nvidia-smi prints
// (memory, memory type, form factor, "Laptop GPU"); a word that names
// another model (Ada, Super, Ti, Max-Q) never falls back on a shorter
// model: the answer is unknown with a suggestion.
func TestLookupGPUNoPrefixFallback(t *testing.T) {
	d := querytest.Embedded(t)
	ctx := context.Background()
	for name, want := range map[string]string{
		"NVIDIA GeForce RTX 4090":            "8.9",
		"Tesla T4":                           "7.5",
		"NVIDIA A100-SXM4-80GB":              "8.0",
		"NVIDIA A100-PCIE-40GB":              "8.0",
		"NVIDIA A100 80GB PCIe":              "8.0",
		"NVIDIA H100 80GB HBM3":              "9.0",
		"NVIDIA H100 PCIe":                   "9.0",
		"NVIDIA RTX A6000":                   "8.6",
		"Tesla V100-SXM2-16GB":               "7.0",
		"NVIDIA GeForce RTX 4070 Laptop GPU": "8.9",
	} {
		g, err := LookupGPU(ctx, d, name)
		if err != nil || g.ComputeCapability != want {
			t.Errorf("%q: %+v %v, want compute capability %s", name, g, err, want)
		}
	}
	for name, suggest := range map[string]string{
		"RTX A6000 Ada":              "NVIDIA RTX A6000",
		"GTX 1080 Super":             "GeForce GTX 1080",
		"GTX 1650 Super":             "GeForce GTX 1650",
		"NVIDIA GeForce GTX 1050 Ti": "GeForce GTX 1050",
		"RTX 2080 Max-Q":             "GeForce RTX 2080",
		"NVIDIA A100 Ada 80GB":       "NVIDIA A100",
	} {
		g, err := LookupGPU(ctx, d, name)
		if err == nil {
			t.Errorf("%q resolved to %s (%s); want unknown", name, g.Name, g.ComputeCapability)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "unknown GPU") || !strings.Contains(msg, "did you mean: ") || !strings.Contains(msg, suggest) {
			t.Errorf("%q: %v", name, err)
		}
	}
}
