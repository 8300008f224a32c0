package pytorch

import (
	"context"
	"testing"

	"github.com/cudb/cudb/scraper"
)

// The shipped capture of RELEASE.md (real text, see captures/CAPTURES.md)
// yields per-minor cuDNN and NCCL for each CUDA as requirements of the
// minor's builds, the variant set as builds of every release of the minor,
// and the CUDA Support Matrix as arch lists of the releases it names.
func TestReleaseMDCapture(t *testing.T) {
	recs, err := releaseCapture.scrape(context.Background(), scraper.Input{Snapshots: t.TempDir()}, "the release compatibility matrix", parseReleaseMD)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReleaseMD{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	req := map[string]string{}
	for _, r := range f.Requirements {
		req[r.Build.Version+" "+r.Build.Variant+" "+r.Build.Platform+" "+r.Needs+" "+r.Kind] = r.Spec
	}
	for k, want := range map[string]string{
		"2.10.* cu130 linux cudnn pin":       "9.15.1.9",
		"2.10.* cu130 linux nccl pin":        "2.28.9",
		"2.10.* cu126 linux nccl pin":        "2.27.5",
		"2.14.* cu132 linux cudnn pin":       "9.24.0.43",
		"2.14.* cu126 windows cudnn bundled": "9.10.2.21",
		"2.7.* cu128 linux cudnn pin":        "9.7.1.26",
	} {
		if req[k] != want {
			t.Errorf("%s = %q, want %q", k, req[k], want)
		}
	}
	var each, arch int
	for _, b := range f.Builds {
		if !b.Key().IsWide() {
			t.Errorf("a per-minor row made a concrete build %v", b.Key())
		}
		if b.EachRelease && b.Version == "2.14.*" {
			each++
		}
		if b.Version == "2.14.*" && b.Variant == "cu126" && b.Platform == "linux" && b.ArchList != "" {
			arch++
			if b.ArchList != "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90" {
				t.Errorf("2.14 cu126 arch list %q", b.ArchList)
			}
		}
		if b.Version == "2.14.*" && b.Variant == "cu130" && b.Platform == "windows" && b.ArchList != "" && b.ArchList != "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120" {
			t.Errorf("Windows has no PTX: %q", b.ArchList)
		}
		// Linux aarch64 has its own list: Thor's sm_110 from CUDA 13.
		if b.Version == "2.14.*" && b.Variant == "cu130" && b.Platform == "linux-aarch64" && b.ArchList != "sm_80 sm_90 sm_100 sm_110 sm_120 compute_120" {
			t.Errorf("2.14 cu130 aarch64 arch list %q", b.ArchList)
		}
	}
	// cu126/cu130/cu132 × linux/windows from the compatibility row, and
	// × linux-aarch64 from the aarch64 support table.
	if each != 9 || arch != 1 {
		t.Errorf("2.14: %d each-release builds (want cu126/cu130/cu132 × linux/windows/linux-aarch64 = 9), %d cu126 arch lists", each, arch)
	}
}

func TestCUDNNByCUDA(t *testing.T) {
	got := cudnnByCUDA("CUDA 12.6 (CUDNN 9.10.2.21) (NCCL 2.27.5), CUDA 11.8, CUDA 12.4 (CUDNN 9.1.0.70)")
	want := map[string]cudaLibs{"12.6": {"9.10.2.21", "2.27.5", true}, "11.8": {"9.1.0.70", "", false}, "12.4": {"9.1.0.70", "", true}}
	for c, w := range want {
		if got[c] != w {
			t.Errorf("%s: %+v, want %+v", c, got[c], w)
		}
	}
	if got := cudnnByCUDA("CUDA 11.8, CUDNN 8.7.0.84"); got["11.8"] != (cudaLibs{"8.7.0.84", "", false}) {
		t.Errorf("old layout: %+v", got)
	}
}

// A page without the compatibility table fails the scrape (fail closed).
func TestReleaseMDSad(t *testing.T) {
	if _, err := parseReleaseMD([]byte("# RELEASE\n\nno table here\n"), "x"); err == nil {
		t.Error("want an error")
	}
}
