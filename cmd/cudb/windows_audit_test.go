package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryWindowsTorchIndex: PyPI's torch for Windows is the CPU-only
// wheel, so a CUDA build on Windows installs from PyPI only when the data
// says PyPI serves it there. resolve --platform windows names the index,
// and explain's fix for "Torch not compiled with CUDA enabled" (most often
// a Windows user's pip install torch) does too.
func TestBinaryWindowsTorchIndex(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "resolve", "torch==2.5.1", "--platform", "windows", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Stacks []struct {
			Variant string `json:"variant"`
			Install struct {
				PyPIDefault bool   `json:"pypi_default"`
				Command     string `json:"command"`
			} `json:"install"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Stacks) == 0 {
		t.Fatal("no stacks")
	}
	for _, s := range r.Stacks {
		if s.Install.PyPIDefault || !strings.Contains(s.Install.Command, "--index-url https://download.pytorch.org/whl/"+s.Variant) {
			t.Errorf("%s on Windows: pypi_default %v, command %q", s.Variant, s.Install.PyPIDefault, s.Install.Command)
		}
	}
	// Linux keeps PyPI's default build.
	out, err = exec.Command(bin, "resolve", "torch==2.5.1").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "# best: pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1\n") {
		t.Errorf("Linux best line changed:\n%s", out)
	}
	out, err = exec.Command(bin, "explain", "AssertionError: Torch not compiled with CUDA enabled").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "--index-url https://download.pytorch.org/whl/cu") {
		t.Errorf("explain's fix reinstalls PyPI's torch, CPU-only on Windows:\n%s", out)
	}
}
