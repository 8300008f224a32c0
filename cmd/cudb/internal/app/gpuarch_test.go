package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func supportOf(t *testing.T, args ...string) map[string]gpuRow {
	t.Helper()
	m := map[string]gpuRow{}
	for _, r := range gpuRows(t, args...) {
		m[r.Name] = r
	}
	return m
}

// TestMatrixGPUExactTargets: a toolkit compiles for the SMs introduced up
// to it minus those dropped, not for everything between its lowest and
// highest target. CUDA 12.8 reaches sm_120 but has no sm_107 (Rubin,
// new in 13.4) nor sm_110 (Thor, new in 13.0); 13.0 has sm_110 but not
// sm_107.
func TestMatrixGPUExactTargets(t *testing.T) {
	for _, c := range []struct{ cuda, gpu, want, why string }{
		{"12.8", "NVIDIA Vera Rubin (VR200)", "unsupported", "sm_107 arrived in CUDA 13.4"},
		{"12.8", "Jetson T5000", "unsupported", "sm_110 arrived in CUDA 13.0"},
		{"12.8", "NVIDIA B300", "unsupported", "sm_103 arrived in CUDA 12.9"},
		{"12.8", "GeForce RTX 5090", "supported", "sm_120"},
		{"12.8", "GeForce GTX 1080", "supported", "sm_61"},
		{"13.0", "NVIDIA Vera Rubin (VR200)", "unsupported", "sm_107 arrived in CUDA 13.4"},
		{"13.0", "Jetson T5000", "supported", "sm_110"},
		{"13.0", "GeForce GTX 1080", "dropped", "sm_75 and newer"},
		{"13.4", "NVIDIA Vera Rubin (VR200)", "supported", "sm_107"},
		// CUDA 7.0's newest target is not in the data: an old GPU above
		// its floor is unknown, not unsupported.
		{"7.0", "Tesla K80", "unknown", "does not state"},
	} {
		r, ok := supportOf(t, "--cuda", c.cuda)[c.gpu]
		if !ok {
			t.Fatalf("no %s in matrix gpu", c.gpu)
		}
		if r.CUDASupport != c.want || !strings.Contains(r.CUDADetail, c.why) {
			t.Errorf("%s under CUDA %s: %q (%s), want %q (%s)", c.gpu, c.cuda, r.CUDASupport, r.CUDADetail, c.want, c.why)
		}
	}
	// The table says why.
	_, out, _ := run(t, false, "matrix", "gpu", "--cuda", "12.8", "--name", "Vera Rubin")
	if !strings.Contains(out, "unsupported\tCUDA 12.8 compiles up to sm_120; sm_107 arrived in CUDA 13.4") {
		t.Errorf("matrix gpu --cuda 12.8 --name 'Vera Rubin':\n%s", out)
	}
}

// TestResolveAgreesWithMatrixGPU: resolve's --gpu/--sm filter of CUDA
// releases is the same judgement as matrix gpu --cuda.
func TestResolveAgreesWithMatrixGPU(t *testing.T) {
	for _, args := range [][]string{{"--gpu", "Vera Rubin"}, {"--sm", "10.7"}} {
		code, _, stderr := run(t, false, append([]string{"resolve", "cuda==12.8"}, args...)...)
		if code != 3 || !strings.Contains(stderr, "CUDA 12.8 compiles up to sm_120; sm_107 arrived in CUDA 13.4") {
			t.Errorf("resolve cuda==12.8 %v: exit %d\n%s", args, code, stderr)
		}
	}
	code, _, stderr := run(t, false, "resolve", "cuda==13.0", "--gpu", "Vera Rubin")
	if code != 3 || !strings.Contains(stderr, "sm_107 arrived in CUDA 13.4") {
		t.Errorf("resolve cuda==13.0 --gpu 'Vera Rubin': exit %d\n%s", code, stderr)
	}
	code, out, stderr := run(t, false, "resolve", "cuda==13.0", "--gpu", "Jetson T5000")
	if code != 0 || !strings.Contains(out, "13.0.") {
		t.Errorf("resolve cuda==13.0 --gpu 'Jetson T5000': exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, false, "resolve", "cuda==13.4", "--gpu", "Vera Rubin")
	if code != 0 || !strings.Contains(out, "13.4.") {
		t.Errorf("resolve cuda==13.4 --gpu 'Vera Rubin': exit %d\n%s%s", code, out, stderr)
	}
}

// TestMatrixGPUKnownReleaseWithoutArchFacts: CUDA 13.5.0 is a known
// release the architecture facts do not describe yet: every GPU is
// unknown under it, not an error.
func TestMatrixGPUKnownReleaseWithoutArchFacts(t *testing.T) {
	for _, v := range []string{"13.5", "13.5.0"} {
		rows := gpuRows(t, "--cuda", v, "--name", "4090")
		if len(rows) == 0 {
			t.Fatalf("--cuda %s kept nothing", v)
		}
		for _, r := range rows {
			if r.CUDA != "13.5" || r.CUDASupport != "unknown" || !strings.Contains(r.CUDADetail, "no architecture facts for CUDA 13.5") {
				t.Errorf("--cuda %s: %s %q %q %q", v, r.Name, r.CUDA, r.CUDASupport, r.CUDADetail)
			}
		}
	}
}

// TestMatrixGPUUnknownArch: an architecture name no GPU has is a usage
// error naming the known ones, not an empty table.
func TestMatrixGPUUnknownArch(t *testing.T) {
	code, out, stderr := run(t, false, "matrix", "gpu", "--arch", "Foo")
	if code != 2 || out != "" || !strings.Contains(stderr, `unknown architecture "Foo"`) || !strings.Contains(stderr, "Ampere") ||
		!strings.Contains(stderr, "Hopper") || !strings.Contains(stderr, "Try: ") {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, out, stderr)
	}
}

// TestGPUNameExtraWordIsUnknown: "RTX A6000 Ada" is not the Ampere RTX
// A6000; the answer is unknown with a suggestion and the --sm hint.
func TestGPUNameExtraWordIsUnknown(t *testing.T) {
	for name, suggest := range map[string]string{"RTX A6000 Ada": "NVIDIA RTX A6000", "GTX 1080 Super": "GeForce GTX 1080"} {
		code, out, stderr := run(t, false, "resolve", "torch", "--gpu", name)
		if code != 4 || out != "" || !strings.Contains(stderr, "unknown GPU") || !strings.Contains(stderr, "did you mean: "+suggest) ||
			!strings.Contains(stderr, "Try: give its compute capability instead (--sm") {
			t.Errorf("--gpu %q: exit %d\n%s%s", name, code, out, stderr)
		}
	}
	code, out, stderr := run(t, false, "resolve", "torch==2.5.1", "--gpu", "NVIDIA A100-SXM4-80GB")
	if code != 0 || !strings.Contains(out, "torch==2.5.1") {
		t.Errorf("nvidia-smi name: exit %d\n%s%s", code, out, stderr)
	}
}

// TestVerifyReportsLookedUpCC: collect_env states no compute capability;
// the one verify looked up from the GPU name (and judged with) is in
// --json facts, marked as from the GPU table, and in the Prometheus
// gpu_info label, as the text output shows it.
func TestVerifyReportsLookedUpCC(t *testing.T) {
	report := filepath.Join("..", "..", "..", "..", "query", "verify", "testdata", "corpus", "healthy_vllm_collect_env_wsl2.txt")
	_, out, stderr := run(t, false, "verify", "--from", report, "--json")
	var res struct {
		Facts struct {
			GPUs []struct {
				Name   string `json:"name"`
				CC     string `json:"compute_capability"`
				CCFrom string `json:"compute_capability_source"`
				Source string `json:"source"`
			} `json:"gpus"`
		} `json:"facts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	if g := res.Facts.GPUs; len(g) != 1 || g[0].Name != "NVIDIA GeForce RTX 4070 Laptop GPU" || g[0].CC != "8.9" || g[0].CCFrom != "gpu_table" || g[0].Source != "collect_env" {
		t.Errorf("facts.gpus: %+v", g)
	}
	_, out, _ = run(t, false, "verify", "--from", report, "--format", "prometheus")
	if !strings.Contains(out, `cudb_gpu_info{index="0",name="NVIDIA GeForce RTX 4070 Laptop GPU",compute_capability="8.9"} 1`) {
		t.Errorf("prometheus:\n%s", out)
	}
	_, out, _ = run(t, false, "verify", "--from", report)
	if !strings.Contains(out, "NVIDIA GeForce RTX 4070 Laptop GPU (compute capability 8.9)") {
		t.Errorf("text:\n%s", out)
	}
}
