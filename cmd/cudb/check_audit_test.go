package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/testenv"
)

// checkStdin runs `cudb check - args… --json` with stdin as the file.
func checkStdin(t *testing.T, bin string, stdin []byte, args ...string) (checkRead, int) {
	t.Helper()
	out, code := runCheckIn(t, bin, stdin, append(append([]string{"-"}, args...), "--json")...)
	var r checkRead
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: exit %d: %v\nstdout: %s", args, code, err, out)
	}
	return r, code
}

func findingsOf(r checkRead, category string) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Category == category {
			out = append(out, f.Severity+": "+f.Message+"\nfix: "+f.Fix)
		}
	}
	return out
}

// TestBinaryCheckPyprojectFixRoutesIndex: yyhhenry/uv-torch-env routes
// torch to PyTorch's cu126 index through a uv source. On a driver 470
// host the fix is torch 2.7.1 from the cu118 index; naming the version
// alone would install the cu126 build again (the one that fails), so the
// fix must say which index serves it.
func TestBinaryCheckPyprojectFixRoutesIndex(t *testing.T) {
	bin := buildBinary(t)
	r, code := checkJSON(t, bin, filepath.Join(checkData, "real/yyhhenry/pyproject.toml"), "--driver", "470.82.01")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	fs := findingsOf(r, "driver_too_old")
	if len(fs) == 0 {
		t.Fatalf("no driver_too_old finding: %+v", r.Findings)
	}
	for _, f := range fs {
		if !strings.Contains(f, `"torch==2.7.1",`) || !strings.Contains(f, `[[tool.uv.index]] "pytorch": url = "https://download.pytorch.org/whl/cu118"`) {
			t.Errorf("the fix does not move the file's uv index to the build that runs:\n%s", f)
		}
	}
}

// TestBinaryCheckStdinRequirementsFix: a requirements file read from
// standard input (or under any name) gets its fixes in requirements
// syntax, not as a Dockerfile RUN line.
func TestBinaryCheckStdinRequirementsFix(t *testing.T) {
	bin := buildBinary(t)
	in, err := os.ReadFile(filepath.Join(checkData, "real/yyhhenry/requirements-torch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r, code := checkStdin(t, bin, in, "--driver", "470.82.01")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	fs := findingsOf(r, "driver_too_old")
	if len(fs) == 0 {
		t.Fatalf("no driver_too_old finding: %+v", r.Findings)
	}
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Fix, "RUN ") {
			t.Errorf("%s: a Dockerfile fix for a requirements file: %q", f.Category, f.Fix)
		}
	}
	if !strings.Contains(fs[0], "--extra-index-url https://download.pytorch.org/whl/cu118\ntorch==2.7.1") {
		t.Errorf("fix is not the cu118 build in requirements syntax:\n%s", fs[0])
	}
}

// TestBinaryCheckStdinDirectWheelURL: a requirements file whose torch is
// a direct wheel URL (pip's plain URL form, the wheel of
// tf63/docker-images' pyproject) is read from standard input, not
// refused as "not a file check reads".
func TestBinaryCheckStdinDirectWheelURL(t *testing.T) {
	bin := buildBinary(t)
	in := []byte("numpy\nhttps://download.pytorch.org/whl/cu117/torch-2.0.0%2Bcu117-cp38-cp38-linux_x86_64.whl\n")
	r, code := checkStdin(t, bin, in, "--driver", "535.104.05")
	if code != 0 {
		t.Errorf("exit %d, want 0: %+v", code, r.Findings)
	}
	if len(r.Read.Frameworks) != 1 || !strings.HasPrefix(r.Read.Frameworks[0].Build, "torch==2.0.0+cu117") {
		t.Errorf("read %+v, want torch==2.0.0+cu117", r.Read.Frameworks)
	}
}

// TestBinaryCheckNGCTensorFlowTag: NGC's TensorFlow images are tagged
// YY.MM-tf2-py3 (Klimorg/cracks_defect uses 20.12-tf2-py3). The tag
// names its release: the warning says the release notes are missing, and
// does not ask for "a versioned tag". The install it runs through
// `/bin/bash -c "pip install … -r requirements.txt"` is followed (here:
// named as not readable), not skipped in silence.
func TestBinaryCheckNGCTensorFlowTag(t *testing.T) {
	bin := buildBinary(t)
	r, code := checkJSON(t, bin, filepath.Join(checkData, "real/Dockerfile.klimorg-ngc-tf"), "--driver", "535.183.01", "--gpu", "RTX 3090")
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	var image, install bool
	for _, f := range r.Findings {
		if f.Line == 1 && f.Category == "unknown_version" {
			image = true
			if strings.Contains(f.Fix, "versioned tag") || !strings.Contains(f.Message, "NGC release 20.12") {
				t.Errorf("line 1: %s\nfix: %s", f.Message, f.Fix)
			}
		}
		if f.Line == 5 && f.Category == "not_judged" && strings.Contains(f.Message, "requirements.txt") {
			install = true
		}
	}
	if !image || !install {
		t.Errorf("want an unknown_version warning on line 1 and a not_judged one on line 5: %+v", r.Findings)
	}
}

// TestBinaryCheckCPUBuildSharesNothing: keras's requirements-torch-cuda
// puts tensorflow-cpu beside a CUDA torch; a CPU build loads no CUDA
// library, so there is no "no CUDA major in common" between them.
func TestBinaryCheckCPUBuildSharesNothing(t *testing.T) {
	bin := buildBinary(t)
	r, code := checkJSON(t, bin, filepath.Join(checkData, "real/keras/requirements-torch-cuda.txt"), "--gpu", "RTX 4090", "--driver", "580.65.06")
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if fs := findingsOf(r, "framework_conflict"); len(fs) > 0 {
		t.Errorf("tensorflow-cpu judged as a CUDA build beside torch:\n%s", strings.Join(fs, "\n"))
	}
}

// TestBinaryCheckTensorFlowWithoutExtra: rasbt/LLMs-from-scratch lists
// torch and a plain tensorflow (no [and-cuda]). Such a TensorFlow loads
// CUDA and cuDNN from the system; a requirements file does not say
// whether the host has them, so that is a warning, not an error, and the
// nvidia-* pins its [and-cuda] extra would add are not installed, so they
// conflict with nothing.
func TestBinaryCheckTensorFlowWithoutExtra(t *testing.T) {
	bin := buildBinary(t)
	r, code := checkJSON(t, bin, filepath.Join(checkData, "real/rasbt/requirements.txt"), "--gpu", "RTX 4090", "--driver", "580.65.06")
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	for _, f := range r.Findings {
		if f.Severity == "error" {
			t.Errorf("%d: %s %s: %s", f.Line, f.Severity, f.Category, f.Message)
		}
	}
	if len(findingsOf(r, "cudnn_missing")) != 1 {
		t.Errorf("want one cudnn_missing warning: %+v", r.Findings)
	}
	// The same two frameworks pinned, as README install lines pair them
	// (tensorflow==2.15.0 beside torch==2.1.x): without [and-cuda] pip
	// installs no nvidia-* wheel for TensorFlow, so nothing is refused.
	r, _ = checkStdin(t, bin, []byte("tensorflow==2.15.0\ntorch==2.1.0\n"))
	if fs := findingsOf(r, "framework_conflict"); len(fs) > 0 {
		t.Errorf("tensorflow without [and-cuda]:\n%s", strings.Join(fs, "\n"))
	}
	r, code = checkStdin(t, bin, []byte("tensorflow[and-cuda]==2.15.0\ntorch==2.1.0\n"))
	if fs := findingsOf(r, "framework_conflict"); len(fs) == 0 || code != 3 {
		t.Errorf("tensorflow[and-cuda]==2.15.0 beside torch==2.1.0: exit %d, want 3 and a framework_conflict: %+v", code, r.Findings)
	}
}

// TestBinaryUnknownSameWords: the real H100 host runs torch 2.11.0+cu130
// beside jax 0.11.2, whose cuDNN is not in the data. verify --from its
// pip freeze says it cannot tell whether the two share one environment;
// check of the same file says the same, as a warning, and neither fails.
func TestBinaryUnknownSameWords(t *testing.T) {
	freeze := testenv.Shared(t, "fixtures/gpu-h100-2026-11/pip-freeze.txt")
	bin := buildBinary(t)
	const words = "cudb cannot tell whether "
	out, err := exec.Command(bin, "verify", "--from", freeze, "--json").Output()
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	var v struct {
		Findings []struct {
			Category, Severity, Message string
		} `json:"findings"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	inVerify := false
	for _, f := range v.Findings {
		inVerify = inVerify || f.Category == "unknown_version" && f.Severity == "warning" && strings.HasPrefix(f.Message, words) && strings.Contains(f.Message, "can share one environment")
	}
	if !inVerify {
		t.Fatalf("verify no longer says %q: %+v", words, v.Findings)
	}
	r, code := checkJSON(t, bin, freeze)
	if code != 0 {
		t.Errorf("check: exit %d, want 0", code)
	}
	inCheck := false
	for _, f := range r.Findings {
		inCheck = inCheck || f.Category == "unknown_version" && f.Severity == "warning" && strings.HasPrefix(f.Message, words) && strings.Contains(f.Message, "can share one environment")
	}
	if !inCheck {
		t.Errorf("check does not say what verify says (%q…): %+v", words, r.Findings)
	}
}
