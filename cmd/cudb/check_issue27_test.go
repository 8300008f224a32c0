package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

type checkRead struct {
	checkOut
	Files []struct {
		Units []struct {
			Scenario string   `json:"scenario"`
			Judged   []string `json:"judged"`
		} `json:"units"`
	} `json:"files"`
	Read struct {
		Frameworks []struct {
			File     string `json:"file"`
			Line     int    `json:"line"`
			Scenario string `json:"scenario"`
			Build    string `json:"build"`
		} `json:"frameworks"`
		NotFollowed []struct {
			File string `json:"file"`
			Line int    `json:"line"`
			What string `json:"what"`
		} `json:"not_followed"`
	} `json:"read"`
}

func checkJSON(t *testing.T, bin string, args ...string) (checkRead, int) {
	t.Helper()
	out, code := runCheck(t, bin, append(args, "--json")...)
	var r checkRead
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return r, code
}

// TestBinaryCheckIndexScope: keras's requirements files take torch from
// PyTorch's CPU index beside tensorflow[and-cuda]==2.20.0 and
// jax[cuda13]. That index serves torch's family only: TensorFlow and JAX
// get no CPU-only finding, and the deliberate CPU torch beside a GPU
// framework is the file's choice (info), not an error.
func TestBinaryCheckIndexScope(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		file    string
		gpuLine int
	}{{"real/keras/requirements-tensorflow-cuda.txt", 2}, {"real/keras/requirements-jax-cuda.txt", 9}} {
		r, code := checkJSON(t, bin, filepath.Join(checkData, c.file), "--gpu", "RTX 4090", "--driver", "580.65.06")
		if code != 0 {
			t.Errorf("%s: exit %d, want 0", c.file, code)
		}
		for _, f := range r.Findings {
			if f.Category == "cpu_only_wheel" && (f.Line == c.gpuLine || f.Severity == "error") {
				t.Errorf("%s: %d: %s %s: %s", c.file, f.Line, f.Severity, f.Category, f.Message)
			}
		}
		judged := false
		for _, b := range r.Read.Frameworks {
			judged = judged || b.Line == c.gpuLine && !strings.Contains(b.Build, "+cpu")
		}
		if !judged {
			t.Errorf("%s: line %d not read as a GPU build: %+v", c.file, c.gpuLine, r.Read.Frameworks)
		}
	}
}

// TestBinaryCheckUVConflicts: uv's mutually exclusive extras (the
// pyproject of astral-sh/uv#16386: cpu, cu126, cu128, cu130) are judged
// one by one: one result per extra, each from its own index, and no
// "no matching build".
func TestBinaryCheckUVConflicts(t *testing.T) {
	bin := buildBinary(t)
	r, code := checkJSON(t, bin, filepath.Join(checkData, "real/uv-16386/pyproject.toml"), "--gpu", "RTX 4090", "--driver", "580.65.06")
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	want := map[string]string{"extra cpu": "+cpu", "extra cu126": "+cu126", "extra cu128": "+cu128", "extra cu130": "+cu130"}
	got := map[string]string{}
	for _, u := range r.Files[0].Units {
		got[u.Scenario] = strings.Join(u.Judged, " ")
	}
	for sc, variant := range want {
		if !strings.Contains(got[sc], "torch==2.9") || !strings.Contains(got[sc], variant) {
			t.Errorf("%s judged as %q, want torch 2.9 %s", sc, got[sc], variant)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d results, want one per extra: %v", len(got), got)
	}
	for _, f := range r.Findings {
		if f.Category == "no_matching_build" || f.Severity == "error" {
			t.Errorf("%d: %s %s: %s", f.Line, f.Severity, f.Category, f.Message)
		}
	}
}

// TestBinaryCheckUnknownGPUName: a GPU name is a warning when the data
// lacks it and the rest is judged; NVIDIA A10G itself resolves (sm_86).
func TestBinaryCheckUnknownGPUName(t *testing.T) {
	bin := buildBinary(t)
	file := filepath.Join(checkData, "corpus/mistral-b46d6dep/Dockerfile")
	r, code := checkJSON(t, bin, file, "--gpu", "NVIDIA A10G")
	if code != 3 || !hasFinding(r, 25, "cuda_toolkit_mismatch", "error") {
		t.Errorf("A10G: exit %d, findings %+v", code, r.Findings)
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Message, "A10G") && f.Category == "unknown_version" {
			t.Errorf("A10G did not resolve: %s", f.Message)
		}
	}
	r, code = checkJSON(t, bin, file, "--gpu", "NVIDIA Q99Z")
	if code != 3 || !hasFinding(r, 25, "cuda_toolkit_mismatch", "error") || !hasFinding(r, 1, "unknown_version", "warning") {
		t.Errorf("unknown GPU: exit %d, findings %+v", code, r.Findings)
	}
}

// TestBinaryCheckExtensionBuild: mistral-inference's deploy/Dockerfile
// before its fix (issues #54, #76): FROM nvidia/cuda 11.8 devel, an
// unpinned torch from PyPI (a CUDA 12/13 build) and apex built with
// --cuda_ext: torch.utils.cpp_extension refuses the toolkit.
func TestBinaryCheckExtensionBuild(t *testing.T) {
	bin := buildBinary(t)
	for _, f := range []string{"corpus/mistral-b46d6dep/Dockerfile", "corpus/mistral-2e50049p/Dockerfile"} {
		r, code := checkJSON(t, bin, filepath.Join(checkData, f))
		if code != 3 || !hasFinding(r, 25, "cuda_toolkit_mismatch", "error") {
			t.Errorf("%s: exit %d, findings %+v", f, code, r.Findings)
		}
		for _, x := range r.Findings {
			if x.Line == 25 && x.Category == "cuda_toolkit_mismatch" && !strings.Contains(x.Fix, "cu118") {
				t.Errorf("%s: fix %q, want a CUDA 11.8 torch", f, x.Fix)
			}
		}
	}
	// After the fix (a CUDA 12.1 image, torch 2.1.1 from PyPI: cu121):
	// the build agrees.
	if r, code := checkJSON(t, bin, filepath.Join(checkData, "corpus/mistral-00cc56b/Dockerfile")); code != 0 || hasFinding(r, 23, "cuda_toolkit_mismatch", "error") {
		t.Errorf("fixed file: exit %d, findings %+v", code, r.Findings)
	}
}

// TestBinaryCheckReadLine: the first line of text output names the
// builds judged, and says so when no framework was read.
func TestBinaryCheckReadLine(t *testing.T) {
	bin := buildBinary(t)
	out, _ := runCheck(t, bin, filepath.Join(checkData, "corpus/mistral-00cc56b/Dockerfile"))
	first, _, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(first, "read: torch==2.1.1+cu121") || !strings.Contains(first, "not followed:") {
		t.Errorf("first line %q", first)
	}
	out, _ = runCheck(t, bin, filepath.Join(checkData, "real/keras/requirements-common.txt"))
	if first, _, _ := strings.Cut(string(out), "\n"); !strings.HasPrefix(first, "read: no framework build") {
		t.Errorf("first line %q", first)
	}
}

func hasFinding(r checkRead, line int, cat, sev string) bool {
	for _, f := range r.Findings {
		if f.Line == line && f.Category == cat && f.Severity == sev {
			return true
		}
	}
	return false
}
