package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/querytest"
)

// TestOneJudgementResolveAndVerify: for each pair of framework builds,
// `cudb resolve` (can they share an environment?) and `cudb verify` (they
// are installed in one) give the same answer, because both call
// query.Share. Expected outcomes come from the wheels' metadata: torch's
// Requires-Dist pins (nvidia-cudnn-cu12==9.1.0.70 for 2.4–2.6,
// ==8.9.2.26 for 2.1–2.3), tensorflow[and-cuda]'s (==8.9.4.25 for 2.15,
// ==8.9.7.29 for 2.16–2.17, ==9.3.0.75 for 2.18; 2.21 is tested with
// cuDNN 9.3, so it loads libcudnn.so.9 >= 9.3), jax[cuda12] 0.4.30's
// (nvidia-cudnn-cu12>=9.0,<10.0, nvidia-cublas-cu12>=12.1.3.1, …), and
// a CUDA major per process. Unknown where the data lacks a fact: the
// nvidia-* pins of torch 2.4.x+cu124 and 2.3.1+cu118. 2.11.0+cu128's own
// pins are known (pip's output over the installed wheel: cuDNN 9.19.0.56,
// NCCL 2.28.9, …), inside jax 0.4.30's ranges.
func TestOneJudgementResolveAndVerify(t *testing.T) {
	d := querytest.Embedded(t)
	ctx := context.Background()
	inc, ok, unk := query.StatusIncompatible, query.StatusOK, query.StatusUnknown
	cases := []struct {
		a, b string
		want string
	}{
		{"torch==2.1.0+cu121", "tensorflow==2.15.0", inc},
		{"torch==2.1.0+cu121", "tensorflow==2.16.1", inc},
		{"torch==2.3.1+cu121", "tensorflow==2.16.1", inc},
		// 2.1.2+cu118 bundles its CUDA libraries (no pins to miss); from
		// 2.2 the cu118 wheels pin nvidia-*-cu11 wheels the data lacks.
		{"torch==2.1.2+cu118", "tensorflow==2.14.1", ok},
		{"torch==2.3.1+cu118", "tensorflow==2.14.1", unk},
		{"torch==2.4.0+cu121", "tensorflow==2.18.0", inc},
		{"torch==2.4.0+cu121", "tensorflow==2.21.0", inc},
		{"torch==2.5.0+cu124", "tensorflow==2.18.0", inc},
		{"torch==2.5.0+cu124", "tensorflow==2.21.0", inc},
		{"torch==2.6.0+cu124", "tensorflow==2.21.0", inc},
		{"torch==2.7.0+cu126", "tensorflow==2.21.0", ok},
		{"torch==2.8.0+cu128", "tensorflow==2.21.0", ok},
		{"torch==2.8.0+cu128", "tensorflow==2.18.0", inc},
		{"torch==2.11.0+cu128", "tensorflow==2.18.0", inc},
		{"torch==2.11.0+cu130", "tensorflow==2.18.0", inc},
		// 2.7.0+cu128's wheel pins nvidia-cudnn-cu12==9.7.1.26 (its
		// installed requirements as pip lists them), a cuDNN 9 at or
		// above the 9.3 tensorflow 2.21 loads.
		{"torch==2.7.0+cu128", "tensorflow==2.21.0", ok},
		{"torch==2.4.0+cu121", "jax==0.4.30", ok},
		{"torch==2.1.0+cu121", "jax==0.4.30", inc},
		{"torch==2.3.1+cu121", "jax==0.4.30", inc},
		{"torch==2.5.0+cu124", "jax==0.4.30", ok},
		{"torch==2.6.0+cu124", "jax==0.4.30", ok},
		{"torch==2.7.0+cu126", "jax==0.4.30", ok},
		{"torch==2.8.0+cu128", "jax==0.4.30", ok},
		{"torch==2.11.0+cu130", "jax==0.4.30", inc},
		{"torch==2.11.0+cu128", "jax==0.4.30", ok},
		{"torch==2.4.0+cu124", "jax==0.4.30", unk},
		{"torch==2.4.1+cu124", "jax==0.4.30", unk},
		{"tensorflow==2.16.1", "jax==0.4.26", ok},
		{"tensorflow==2.15.0", "jax==0.4.30", inc},
		{"tensorflow==2.14.0", "jax==0.4.30", inc},
		{"tensorflow==2.18.0", "jax==0.4.30", ok},
		{"tensorflow==2.16.1", "jax==0.4.30", inc},
		{"tensorflow==2.17.0", "jax==0.4.30", inc},
		{"tensorflow==2.21.0", "jax==0.4.30", ok},
		{"tensorflow==2.18.0", "jax==0.4.31", ok},
	}
	if len(cases) < 30 {
		t.Fatalf("%d pairs", len(cases))
	}
	for _, tc := range cases {
		name := tc.a + " " + tc.b
		res, err := query.Resolve(ctx, d, query.ResolveRequest{Requirements: []string{tc.a, tc.b}, Platform: "linux"})
		if err != nil {
			t.Errorf("%s: resolve: %v", name, err)
			continue
		}
		got := res.Status
		if got != tc.want {
			t.Errorf("%s: resolve says %s %v %v, want %s", name, got, res.Unknown, conflictText(res.Conflicts), tc.want)
		}
		r, err := Verify(ctx, d, pairHost(tc.a, tc.b))
		if err != nil {
			t.Fatal(err)
		}
		vs := ok
		for _, f := range r.Findings {
			if strings.Contains(f.Message, "share one environment") {
				vs = f.Status
			}
		}
		if vs != tc.want {
			t.Errorf("%s: verify says %s, want %s: %+v", name, vs, tc.want, r.Findings)
		}
	}
}

func conflictText(cs []query.Incompatibility) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Message)
	}
	return out
}

// pairHost is a GPU host with both frameworks in one virtual environment.
func pairHost(reqs ...string) *host.Snapshot {
	f := torchHost("", "", "", "3.10.12")
	f.GPUs[0].Name, f.GPUs[0].ComputeCapability = "NVIDIA A100-SXM4-80GB", "8.0"
	f.Driver.Version = "580.65.06"
	py := &f.Pythons[0]
	py.Torch = nil
	yes := true
	for _, r := range reqs {
		name, ver, _ := strings.Cut(r, "==")
		switch name {
		case "torch":
			_, local, _ := strings.Cut(ver, "+")
			cuda := local[2:len(local)-1] + "." + local[len(local)-1:]
			py.Torch = &host.Torch{Version: ver, CUDA: cuda, Variant: local, Source: "version_py"}
		case "tensorflow":
			py.TensorFlow = &host.TensorFlow{Version: ver, IsGPU: &yes, Source: "build_info_py"}
		case "jax":
			py.JAX = &host.JAX{Version: ver, Jaxlib: ver, Plugins: map[string]string{"jax-cuda12-plugin": ver, "jax-cuda12-pjrt": ver}}
		}
	}
	return f
}
