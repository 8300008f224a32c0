package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// TestCPUOnlyPackagesOnAGPUHost: on a host with a GPU, the CPU-only
// onnxruntime (no onnxruntime-gpu), a TensorFlow without its [and-cuda]
// extra and no cuDNN, and a JAX without a CUDA plugin are cpu_only_wheel
// warnings that name the GPU package to install; none is an error.
func TestCPUOnlyPackagesOnAGPUHost(t *testing.T) {
	d := querytest.Embedded(t)
	f := &host.Snapshot{Origin: host.OriginReportPrefix + "nvidia_smi+pip_freeze",
		Driver: &host.Driver{Version: "580.159.04", Source: "nvidia_smi"},
		GPUs:   []host.GPU{{Name: "NVIDIA H100 80GB HBM3", ComputeCapability: "9.0", Source: "nvidia_smi"}},
		Pythons: []host.Python{{Kind: "report",
			Packages:   map[string]string{"onnxruntime": "1.30.0", "tensorflow": "2.18.0", "jax": "0.4.35", "jaxlib": "0.4.35"},
			TensorFlow: &host.TensorFlow{Version: "2.18.0", Source: "pip_freeze"},
			JAX:        &host.JAX{Version: "0.4.35", Jaxlib: "0.4.35"}}}}
	r, err := Verify(context.Background(), d, f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"onnxruntime 1.30.0": "pip install onnxruntime-gpu==", "tensorflow 2.18.0": `pip install "tensorflow[and-cuda]==2.18.0"`, "jax 0.4.35": `"jax[cuda`}
	for _, x := range r.Findings {
		if x.Severity == findings.SevError {
			t.Errorf("an error: %+v", x)
		}
		if x.Category != findings.CatCPUOnlyWheel {
			continue
		}
		for label, fix := range want {
			if strings.HasPrefix(x.Message, label) && x.Severity == findings.SevWarning && strings.Contains(x.Fix, fix) {
				delete(want, label)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("no cpu_only_wheel warning for %v:\n%+v", want, r.Findings)
	}
}
