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
// diff), 2.14 from RELEASE.md, and 2.8 from the build script of its cycle.
func TestBinaryArchListsOfRecentReleases(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct{ spec, cuda, torch, want string }{
		{"torch==2.10.0", "12.6", "2.10.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0"},
		{"torch==2.10.0", "12.8", "2.10.0+cu128", "7.0 7.5 8.0 8.6 9.0 10.0 12.0"},
		{"torch==2.10.0", "13.0", "2.10.0+cu130", "7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX"},
		{"torch==2.11.0", "12.6", "2.11.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0"},
		{"torch==2.11.0", "12.8", "2.11.0+cu128", "7.5 8.0 8.6 9.0 10.0 12.0"},
		{"torch==2.11.0", "13.0", "2.11.0+cu130", "7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX"},
		{"torch==2.14.0", "12.6", "2.14.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0"},
		// 2.8: TORCH_CUDA_ARCH_LIST of .ci/manywheel/build_cuda.sh at
		// pytorch/pytorch 00c7a380 (2.8's arms: 12.6, 12.8 without PTX and
		// with Volta, 12.9 with PTX), captured in scraper/pytorch/captures
		{"torch==2.8.0", "12.6", "2.8.0+cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0"},
		{"torch==2.8.0", "12.8", "2.8.0+cu128", "7.0 7.5 8.0 8.6 9.0 10.0 12.0"},
		{"torch==2.8.0", "12.9", "2.8.0+cu129", "7.0 7.5 8.0 8.6 9.0 10.0 12.0 12.0+PTX"},
	} {
		out, err := exec.Command(bin, "resolve", c.spec, "--cuda", c.cuda, "--json").Output()
		if err != nil {
			t.Errorf("resolve %s --cuda %s: %v", c.spec, c.cuda, err)
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
				t.Errorf("%s compute_capabilities = %q, want %q", c.torch, got, c.want)
			}
		}
		if !found {
			t.Errorf("resolve %s --cuda %s gave no %s stack:\n%s", c.spec, c.cuda, c.torch, out)
		}
	}
}
