package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryArchListsOfRecentReleases resolves, through the real binary on
// the embedded database, the torch builds whose arch lists come from the
// released wheels' own torch.cuda.get_arch_list() (pytorch/pytorch#182250,
// captured in scraper/pytorch/captures), from the RELEASE.md support
// matrix edit of pytorch/pytorch#175253 (2.10 and 2.11, both sides of the
// diff), 2.14 from RELEASE.md, 2.8 from the build script of its cycle,
// and 2.7.1 (Linux and Windows) from a table of the released wheels'
// printouts.
func TestBinaryArchListsOfRecentReleases(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct{ spec, cuda, torch, want, platform string }{
		{"torch==2.10.0", "12.6", "2.10.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0", ""},
		{"torch==2.10.0", "12.8", "2.10.0+cu128", "7.0 7.5 8.0 8.6 9.0 10.0 12.0", ""},
		{"torch==2.10.0", "13.0", "2.10.0+cu130", "7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX", ""},
		{"torch==2.11.0", "12.6", "2.11.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0", ""},
		{"torch==2.11.0", "12.8", "2.11.0+cu128", "7.5 8.0 8.6 9.0 10.0 12.0", ""},
		// 2.11's cu130 release wheels ship without PTX
		// (pytorch/pytorch#175567, "[release-only] Remove +ptx from cuda
		// 13.0 builds"); RELEASE.md's matrix writes the nightly form.
		// The released cu130 wheel carries no PTX: the real H100 host's
		// torch 2.11.0+cu130 printed get_arch_list() sm_75 … sm_120 and
		// NVCC flags with code=sm_* only (shared/fixtures/gpu-h100-2026-11).
		{"torch==2.11.0", "13.0", "2.11.0+cu130", "7.5 8.0 8.6 9.0 10.0 12.0", ""},
		{"torch==2.14.0", "12.6", "2.14.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0", ""},
		// 2.8: TORCH_CUDA_ARCH_LIST of .ci/manywheel/build_cuda.sh at
		// pytorch/pytorch 00c7a380 (2.8's arms: 12.6, 12.8 without PTX and
		// with Volta, 12.9 with PTX), captured in scraper/pytorch/captures
		{"torch==2.8.0", "12.6", "2.8.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0", ""},
		{"torch==2.8.0", "12.8", "2.8.0+cu128", "7.0 7.5 8.0 8.6 9.0 10.0 12.0", ""},
		{"torch==2.8.0", "12.9", "2.8.0+cu129", "7.0 7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX", ""},
		// 2.7.1: the released wheels' printouts per OS in
		// nikopueringer/CorridorKey#141 (captured); Windows' cu128 wheel
		// keeps Maxwell and Pascal, Linux's does not.
		{"torch==2.7.1", "12.6", "2.7.1+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0", ""},
		{"torch==2.7.1", "12.8", "2.7.1+cu128", "7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX", ""},
		{"torch==2.7.1", "12.6", "2.7.1+cu126", "5.0 6.0 6.1 7.0 7.5 8.0 8.6 9.0", "windows"},
		{"torch==2.7.1", "12.8", "2.7.1+cu128", "5.0 6.0 6.1 7.0 7.5 8.0 8.6 9.0 10.0 12.0", "windows"},
	} {
		args := []string{"resolve", c.spec, "--cuda", c.cuda, "--json"}
		if c.platform != "" {
			args = append(args, "--platform", c.platform)
		}
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Errorf("resolve %s --cuda %s (platform %q): %v", c.spec, c.cuda, c.platform, err)
			continue
		}
		var res struct {
			Stacks []struct {
				Packages            map[string]string `json:"packages"`
				ComputeCapabilities []string          `json:"compute_capabilities"`
			} `json:"stacks"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		found := false
		for _, s := range res.Stacks {
			if s.Packages["torch"] != c.torch {
				continue
			}
			found = true
			if got := strings.Join(s.ComputeCapabilities, " "); got != c.want {
				t.Errorf("%s (platform %q) compute_capabilities = %q, want %q", c.torch, c.platform, got, c.want)
			}
		}
		if !found {
			t.Errorf("resolve %s --cuda %s gave no %s stack:\n%s", c.spec, c.cuda, c.torch, out)
		}
	}
}

// TestBinaryGPUFitPerPlatform: the --gpu judgement reads the asked
// platform's arch list. torch 2.7.1+cu128 on Windows carries sm_61 kernels
// (a GTX 1080 runs its SASS); on Linux it starts at sm_75, so no 2.7.1
// build there fits (exit 4, no match, naming the kernels the builds carry).
func TestBinaryGPUFitPerPlatform(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "resolve", "torch==2.7.1", "--cuda", "12.8", "--platform", "windows", "--gpu", "GTX 1080", "--json").Output()
	if err != nil {
		t.Fatalf("windows: %v\n%s", err, out)
	}
	var res struct {
		Stacks []struct {
			Packages map[string]string `json:"packages"`
			GPU      struct {
				Support string `json:"support"`
			} `json:"gpu"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Stacks) == 0 || res.Stacks[0].Packages["torch"] != "2.7.1+cu128" || res.Stacks[0].GPU.Support != "sass" {
		t.Errorf("windows GTX 1080 stacks = %+v\n%s", res.Stacks, out)
	}
	cmd := exec.Command(bin, "resolve", "torch==2.7.1", "--cuda", "12.8", "--platform", "linux", "--gpu", "GTX 1080")
	msg, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 4 || !strings.Contains(string(msg), "cu128: 7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX") {
		t.Errorf("linux GTX 1080: exit %d, %s", code, msg)
	}
}
