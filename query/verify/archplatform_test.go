package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// A pasted report from native Windows is judged by the Windows wheel's
// arch list: torch 2.8.0+cu128 dropped Pascal from its Linux wheels, but
// no Windows list of 2.8 is known, so a GTX 1080 on Windows is unknown
// (an info naming the missing list), never "carries no kernels"; the same
// report from Linux (or WSL2, which runs Linux wheels) still says no.
func TestVerifyArchPerPlatform(t *testing.T) {
	d := querytest.Embedded(t)
	snap := func(os string, wsl bool) *host.Snapshot {
		return &host.Snapshot{Origin: host.OriginReportPrefix + "collect_env", OS: os,
			Driver: &host.Driver{Version: "576.02", Source: "collect_env", WSL: wsl},
			GPUs:   []host.GPU{{Index: 0, Name: "NVIDIA GeForce GTX 1080", ComputeCapability: "6.1", Source: "collect_env"}},
			Pythons: []host.Python{{Kind: "report", Version: "3.11",
				Torch: &host.Torch{Version: "2.8.0+cu128", CUDA: "12.8", Variant: "cu128", Source: "collect_env"}}}}
	}
	arch := func(r *Result) []findings.Finding {
		var out []findings.Finding
		for _, f := range r.Findings {
			if f.Category == findings.CatArchUnsupported || strings.Contains(f.Message, "arch list") {
				out = append(out, f)
			}
		}
		return out
	}
	r, err := Verify(context.Background(), d, snap("Microsoft Windows 11 Pro", false))
	if err != nil {
		t.Fatal(err)
	}
	got := arch(r)
	if len(got) != 1 || got[0].Category != findings.CatUnknownVersion || got[0].Severity != findings.SevInfo ||
		!strings.Contains(got[0].Message, "no Windows arch list is known for torch 2.8.0+cu128") {
		t.Errorf("windows: want one unknown_version info naming the missing Windows list, got %+v", got)
	}
	for _, tc := range []struct {
		os  string
		wsl bool
	}{{"Ubuntu 22.04.4 LTS (x86_64)", false}, {"Microsoft Windows 11 Pro", true}} {
		r, err := Verify(context.Background(), d, snap(tc.os, tc.wsl))
		if err != nil {
			t.Fatal(err)
		}
		got := arch(r)
		if len(got) != 1 || got[0].Category != findings.CatArchUnsupported || got[0].Severity != findings.SevError || !strings.Contains(got[0].Message, "carries no kernels") {
			t.Errorf("%s (wsl %v): the Linux wheel has no sm_61 kernels, want gpu_arch_unsupported error, got %+v", tc.os, tc.wsl, got)
		}
	}
}

// A report from native Windows with a Windows arch list known: torch
// 2.0.1+cu117's Windows wheel (builder release/2.0 windows/cuda117.bat)
// carries sm_61, so a GTX 1050 Ti runs natively (no finding); the Linux
// wheel reaches it through binary compatibility only (an info).
func TestVerifyWindowsArchList(t *testing.T) {
	d := querytest.Embedded(t)
	for _, tc := range []struct {
		os   string
		want int
	}{{"Microsoft Windows 11 Pro", 0}, {"Ubuntu 22.04.4 LTS (x86_64)", 1}} {
		r, err := Verify(context.Background(), d, &host.Snapshot{Origin: host.OriginReportPrefix + "collect_env", OS: tc.os,
			Driver: &host.Driver{Version: "535.98", Source: "collect_env"},
			GPUs:   []host.GPU{{Index: 0, Name: "NVIDIA GeForce GTX 1050 Ti", ComputeCapability: "6.1", Source: "collect_env"}},
			Pythons: []host.Python{{Kind: "report", Version: "3.9",
				Torch: &host.Torch{Version: "2.0.1+cu117", CUDA: "11.7", Variant: "cu117", Source: "collect_env"}}}})
		if err != nil {
			t.Fatal(err)
		}
		var arch []findings.Finding
		for _, f := range r.Findings {
			if f.Category == findings.CatArchUnsupported || strings.Contains(f.Message, "arch list") {
				arch = append(arch, f)
			}
		}
		if len(arch) != tc.want || (tc.want == 1 && !strings.Contains(arch[0].Message, "binary compatibility")) {
			t.Errorf("%s: arch findings %+v, want %d", tc.os, arch, tc.want)
		}
	}
}
