package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/testenv"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/verify"
	"github.com/cudb/cudb/usecase/present"
)

// The real GPU host of shared/fixtures/gpu-h100-2026-11 (one H100,
// driver 580.159.04, torch 2.11.0+cu130, jax 0.11.2 with its CUDA 13
// plugin, the CPU onnxruntime 1.30.0), driven through the command tree.

const realHost = "gpu-h100-2026-11"

// runTree runs one cudb command line and returns its standard output and
// the error the command returned (nil for exit 0).
func runTree(t *testing.T, args ...string) (string, error) {
	t.Helper()
	s, out, _ := TestStreams("")
	root := NewRootCmd(NewFactory(s))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestRealHostVerifyProbe: the healthy host's probe JSON is healthy (exit
// 0), the CPU-only onnxruntime is a warning naming onnxruntime-gpu, and
// jax 0.11.2 is judged without an error.
func TestRealHostVerifyProbe(t *testing.T) {
	in := testenv.Fixture(t, realHost+"/cudb-probe.json")
	out, err := runTree(t, "verify", "--from", in, "--json")
	if err != nil {
		t.Fatalf("verify exits %v, want 0:\n%s", err, out)
	}
	var r verify.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var cpuORT bool
	for _, f := range r.Findings {
		if f.Severity == findings.SevError {
			t.Errorf("an error on a healthy host: %+v", f)
		}
		if f.Category == findings.CatCPUOnlyWheel && strings.Contains(f.Message, "onnxruntime 1.30.0") {
			cpuORT = f.Severity == findings.SevWarning && strings.Contains(f.Fix, "pip install onnxruntime-gpu==")
		}
		if f.Category == findings.CatUnknownVersion && f.Severity != findings.SevWarning {
			t.Errorf("an unknown that is not a warning: %+v", f)
		}
		if f.Category == findings.CatUnknownVersion && strings.Contains(f.Fix, "pip install") {
			t.Errorf("an unknown whose fix installs something: %+v", f)
		}
	}
	if !cpuORT {
		t.Errorf("no cpu_only_wheel warning naming onnxruntime-gpu for the CPU onnxruntime:\n%s", out)
	}
}

// TestRealHostCheckFreeze: the same working environment's pip freeze,
// checked against its nvidia-smi, exits 0 with no downgrade fix.
func TestRealHostCheckFreeze(t *testing.T) {
	freeze := testenv.Fixture(t, realHost+"/pip-freeze.txt")
	smi := testenv.Fixture(t, realHost+"/nvidia-smi.txt")
	out, err := runTree(t, "check", freeze, "--host-from", smi)
	if err != nil {
		t.Fatalf("check exits %v, want 0:\n%s", err, out)
	}
	if strings.Contains(out, "RUN pip") || strings.Contains(out, "jax==0.11.0") {
		t.Errorf("check suggests a Dockerfile line or a downgrade for a working requirements file:\n%s", out)
	}
}

// TestRealHostResolveLeadsWithOK: two frameworks on the host's driver and
// GPU: the first row is known-good, the table is cut to 20 rows with a
// line naming --all, and --json keeps every stack.
func TestRealHostResolveLeadsWithOK(t *testing.T) {
	args := []string{"resolve", "torch", "jax", "--driver", "580.159.04", "--sm", "9.0"}
	out, err := runTree(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 25 {
		t.Errorf("%d lines, want at most 25:\n%s", len(lines), out)
	}
	if !strings.Contains(out, "--all shows them") {
		t.Errorf("no line naming --all:\n%s", out)
	}
	js, err := runTree(t, append(args, "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	var res query.Resolution
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) <= present.MultiFrameworkRows || res.Stacks[0].Status != query.StatusOK || res.Status != query.StatusOK {
		t.Fatalf("--json: %d stacks, first %q, answer %q: want every stack, the first ok", len(res.Stacks), res.Stacks[0].Status, res.Status)
	}
	if !strings.Contains(out, "# best: "+res.Stacks[0].Install.Command) {
		t.Errorf("best is not the first (known-good) stack:\n%s", out)
	}
	all, err := runTree(t, append(args, "--all")...)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(all, "\n"); n < len(res.Stacks) {
		t.Errorf("--all prints %d lines for %d stacks", n, len(res.Stacks))
	}
}

// TestRealHostExplainHiddenGPU: the real error text of a GPU hidden by
// CUDA_VISIBLE_DEVICES (torch, and JAX whose fallback line follows a
// device error) is no_gpu_visible, exit 0, and installs nothing.
func TestRealHostExplainHiddenGPU(t *testing.T) {
	for _, name := range []string{"cvd_minus1", "cvd_bad", "jax_hidden"} {
		b, err := os.ReadFile(testenv.Fixture(t, filepath.Join(realHost, "faults", name+".stderr.txt")))
		if err != nil {
			t.Fatal(err)
		}
		out, err := runTree(t, "explain", string(b), "--json")
		if err != nil {
			t.Fatalf("%s: explain exits %v, want 0", name, err)
		}
		var x struct{ Findings []findings.Finding }
		if err := json.Unmarshal([]byte(out), &x); err != nil {
			t.Fatal(err)
		}
		if len(x.Findings) == 0 {
			t.Fatalf("%s: no finding", name)
		}
		for _, f := range x.Findings {
			if f.Category != findings.CatNoGPUVisible || strings.Contains(f.Fix, "install") {
				t.Errorf("%s: %s %q (fix %q), want no_gpu_visible installing nothing", name, f.Category, f.Message, f.Fix)
			}
		}
	}
	// JAX's line alone still means a missing plugin.
	out, err := runTree(t, "explain", "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.", "--json")
	if err != nil || !strings.Contains(out, findings.CatCPUOnlyWheel) {
		t.Errorf("the fallback line alone: %v\n%s", err, out)
	}
}

// TestRealHostHiddenAndPreloaded: the fake host built from the real
// host's kernel files, with CUDA_VISIBLE_DEVICES set and empty and
// LD_PRELOAD naming the system cuDNN 9.14: the variable is named as the
// cause of no_gpu_visible, and the preloaded copy as the one loaded first.
func TestRealHostHiddenAndPreloaded(t *testing.T) {
	r := verifyHost(t, embeddedDB(t), "h100-hidden-preload")
	var hidden, preload, mismatch bool
	for _, f := range r.Findings {
		switch f.Category {
		case findings.CatNoGPUVisible:
			hidden = strings.HasPrefix(f.Message, "CUDA_VISIBLE_DEVICES hides every GPU") && strings.Contains(strings.Join(f.Evidence, "\n"), `CUDA_VISIBLE_DEVICES=""`)
		case findings.CatMultipleCUDALibs:
			preload = strings.HasPrefix(f.Message, "LD_PRELOAD loads cuDNN 9.14.0") && strings.Contains(f.Fix, "unset LD_PRELOAD")
		case findings.CatCUDNNMismatch:
			mismatch = strings.Contains(strings.Join(f.Evidence, "\n"), "cuDNN loaded first: 9.14.0 /lib/x86_64-linux-gnu/libcudnn.so.9 (ld_preload)")
		}
	}
	if !hidden || !preload || !mismatch {
		t.Errorf("hidden %v, preload %v, mismatch from the preloaded copy %v:\n%+v", hidden, preload, mismatch, r.Findings)
	}
	if r.Read == nil || !strings.Contains(strings.Join(r.Read.Env, " "), `CUDA_VISIBLE_DEVICES=""`) {
		t.Errorf("the read block does not show CUDA_VISIBLE_DEVICES: %+v", r.Read)
	}
}

// TestRealHostTorchInfo: what the host printed of torch (its
// torch.__config__.show() included) gives the build's cuDNN 9.19.0 from
// "CuDNN 91.9" / CUDNN_VERSION=9.19.0, and its compiler flags
// (-Werror=return-type) are no error lines.
func TestRealHostTorchInfo(t *testing.T) {
	in := testenv.Fixture(t, realHost+"/torch-info.txt")
	out, err := runTree(t, "verify", "--from", in, "--json")
	if err != nil {
		t.Fatalf("verify exits %v:\n%s", err, out)
	}
	var r verify.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Read.Errors != 0 {
		t.Errorf("%d error lines read, want 0 (compiler flags are not errors): %v", r.Read.Errors, r.Facts.Errors)
	}
	if got := strings.Join(r.Read.Frameworks, "; "); !strings.Contains(got, "built with cuDNN 9.19.0") {
		t.Errorf("frameworks %q: want torch built with cuDNN 9.19.0", got)
	}
}

// TestVerifyRefusesBinary: bytes that are not text are refused (exit 2),
// not searched for GPU names and called healthy.
func TestVerifyRefusesBinary(t *testing.T) {
	b := make([]byte, 200000)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	p := filepath.Join(t.TempDir(), "r")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runTree(t, "verify", "--from", p)
	if errs.CodeOf(err) != errs.CodeUsage || !strings.Contains(err.Error(), "not text") {
		t.Errorf("verify --from random bytes: %v, want a usage error saying it is not text\n%s", err, out)
	}
}

// TestRealHostPreloadReport: the real host's pip freeze, nvidia-smi and
// the error torch printed under LD_PRELOAD (faults/preload_cudnn), pasted
// with the variable as the fixture README states it: LD_PRELOAD is read
// like LD_LIBRARY_PATH, its cuDNN is the copy loaded first, and the fix
// unsets it.
func TestRealHostPreloadReport(t *testing.T) {
	var b strings.Builder
	b.WriteString("$ echo $LD_PRELOAD\nLD_PRELOAD=/lib/x86_64-linux-gnu/libcudnn.so.9\n")
	for _, name := range []string{"pip-freeze.txt", "nvidia-smi.txt", "faults/preload_cudnn.stderr.txt"} {
		in, err := os.ReadFile(testenv.Fixture(t, realHost+"/"+name))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(in)
	}
	p := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := runTree(t, "verify", "--from", p, "--json")
	var r verify.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	named := false
	for _, f := range r.Findings {
		if f.Category == findings.CatMultipleCUDALibs && strings.HasPrefix(f.Message, "LD_PRELOAD loads cuDNN") && strings.Contains(f.Fix, "unset LD_PRELOAD") {
			named = true
		}
		if strings.Contains(f.Fix, "unset LD_LIBRARY_PATH") {
			t.Errorf("LD_LIBRARY_PATH blamed for a preloaded copy: %+v", f)
		}
	}
	if !named || len(r.Facts.LDPreload) != 1 {
		t.Errorf("LD_PRELOAD not named as the cause (facts %v):\n%s", r.Facts.LDPreload, out)
	}
}
