package app

import (
	"encoding/json"
	"strings"
	"testing"
)

type gpuRow struct {
	Name              string   `json:"name"`
	Aliases           []string `json:"aliases"`
	ComputeCapability string   `json:"compute_capability"`
	Architecture      string   `json:"architecture"`
	CUDA              string   `json:"cuda"`
	CUDASupport       string   `json:"cuda_support"`
	CUDADetail        string   `json:"cuda_detail"`
}

func gpuRows(t *testing.T, args ...string) []gpuRow {
	t.Helper()
	code, out, stderr := run(t, false, append([]string{"matrix", "gpu", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("matrix gpu %v: exit %d %s", args, code, stderr)
	}
	var rows []gpuRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestMatrixGPUFilters answers "what does CUDA 13 drop?" from NVIDIA's
// toolkit/architecture matrix, and narrows by architecture and name.
func TestMatrixGPUFilters(t *testing.T) {
	all := gpuRows(t)
	rows := gpuRows(t, "--cuda", "13")
	if len(rows) != len(all) {
		t.Fatalf("--cuda filtered rows: %d of %d", len(rows), len(all))
	}
	support := map[string]string{}
	for _, r := range rows {
		if r.CUDA != "13.0" {
			t.Fatalf("--cuda 13 judged %q, want its first release 13.0", r.CUDA)
		}
		support[r.Name] = r.CUDASupport
	}
	// CUDA 13.0 compiles from sm_75 (Turing): Pascal (6.1) was in 12.9 and
	// is dropped, Ada (8.9) stays, Kepler (3.7) was gone already.
	for name, want := range map[string]string{"GeForce GTX 1080": "dropped", "GeForce RTX 4090": "supported", "Tesla K80": "unsupported"} {
		if support[name] != want {
			t.Errorf("%s under CUDA 13: %q, want %q", name, support[name], want)
		}
	}
	if rows := gpuRows(t, "--cuda", "12.8"); rows[0].CUDA != "12.8" {
		t.Errorf("--cuda 12.8 judged %q", rows[0].CUDA)
	}
	amp := gpuRows(t, "--arch", "ampere")
	if len(amp) == 0 || len(amp) >= len(all) {
		t.Errorf("--arch ampere kept %d of %d", len(amp), len(all))
	}
	for _, r := range amp {
		if r.Architecture != "Ampere" {
			t.Errorf("--arch ampere kept %s (%s)", r.Name, r.Architecture)
		}
	}
	named := gpuRows(t, "--name", "4090")
	if len(named) == 0 {
		t.Fatal("--name 4090 kept nothing")
	}
	for _, r := range named {
		if !strings.Contains(r.Name, "4090") {
			t.Errorf("--name 4090 kept %s", r.Name)
		}
	}
	// On a terminal the verdict is a column named after the toolkit.
	_, out, _ := run(t, true, "matrix", "gpu", "--cuda", "13", "--name", "GTX 1080")
	if !strings.Contains(out, "CUDA 13.0") || !strings.Contains(out, "dropped") {
		t.Errorf("tty:\n%s", out)
	}
	if code, _, stderr := run(t, false, "matrix", "gpu", "--cuda", "thirteen"); code != 2 || !strings.Contains(stderr, "Try:") {
		t.Errorf("bad --cuda: exit %d %q", code, stderr)
	}
	if code, _, stderr := run(t, false, "matrix", "gpu", "--cuda", "99"); code != 4 || !strings.Contains(stderr, "no CUDA 99") {
		t.Errorf("unknown toolkit: exit %d %q", code, stderr)
	}
}

// TestUnknownGPUSuggests: a misspelt GPU gets the nearest names and a hint
// to pass the compute capability.
func TestUnknownGPUSuggests(t *testing.T) {
	code, _, stderr := run(t, false, "resolve", "torch", "--gpu", "RTX 4099")
	if code != 4 || !strings.Contains(stderr, "did you mean: GeForce RTX 4090") || !strings.Contains(stderr, "Try: give its compute capability instead (--sm") ||
		!strings.Contains(stderr, `cudb matrix gpu --name "4099"`) {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	code, _, stderr = run(t, false, "resolve", "torch", "--gpu", "Tesla K8O")
	if code != 4 || !strings.Contains(stderr, "did you mean: Tesla K80") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
