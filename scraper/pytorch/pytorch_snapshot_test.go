package pytorch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/pytorch"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// snapshotFacts scrapes and normalizes src from the shared snapshots.
func snapshotFacts(t *testing.T, src scraper.Source) ([]scraper.Record, *db.Facts) {
	t.Helper()
	dir := sourcestest.Dir(t)
	recs, err := src.Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatalf("%s: scrape: %v", src.Name(), err)
	}
	if err := scraper.CheckUnique(recs); err != nil {
		t.Fatal(err)
	}
	f, err := src.Normalize(recs)
	if err != nil {
		t.Fatalf("%s: normalize: %v", src.Name(), err)
	}
	return recs, f
}

// TestSnapshots merges the family as the builder does and checks facts
// against the snapshot lines they come from.
func TestSnapshots(t *testing.T) {
	var parts []*db.Facts
	for _, s := range all.Sources() {
		if scraper.Family(s) != "pytorch" {
			continue
		}
		_, f := snapshotFacts(t, s)
		parts = append(parts, f)
	}
	m := db.Merge(parts...)
	rel := map[string]bool{}
	for _, r := range m.Releases {
		rel[r.Component+"=="+r.Version] = true
	}
	for _, v := range []string{"1.0.0", "1.0.1", "1.1.0", "1.2.0", "1.3.0", "1.3.1", "1.4.0", "1.5.0", "1.5.1", "1.6.0",
		"1.7.0", "1.7.1", "1.8.0", "1.8.1", "1.8.2", "1.9.0", "1.9.1", "1.10.0", "1.10.1", "1.10.2", "1.11.0", "1.12.0",
		"1.12.1", "1.13.0", "1.13.1", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.1.2", "2.2.0", "2.2.1", "2.2.2", "2.3.0",
		"2.3.1", "2.4.0", "2.4.1", "2.5.0", "2.5.1", "2.6.0", "2.7.0", "2.7.1", "2.8.0", "2.9.0", "2.9.1", "2.10.0",
		"2.11.0", "2.12.0", "2.12.1", "2.13.0", "2.14.0", "2.14.1"} {
		if !rel["torch=="+v] {
			t.Errorf("release torch %s missing", v)
		}
	}
	type want struct{ v, variant, plat, ch, needs, kind, spec string }
	for _, w := range []want{
		{"2.1.0", "cu121", "linux", "", "cudnn", "pin", "8.9.2.26"},               // lockfiles: pip log / builder#1533
		{"2.1.0", "cu121", "linux", "", "nvidia-cudnn-cu12", "pin", "==8.9.2.26"}, // same
		{"2.1.0", "cu121", "linux", "", "nccl", "pin", "2.18.1"},
		{"2.1.0", "cu118", "linux", "", "cudnn", "bundled", "8.7.0.84"}, // release matrix row 2.1.0
		{"2.1.0", "cu121", "linux", "", "torchvision", "paired", "0.16.0"},
		{"2.1.0", "cu121", "linux", "", "torchaudio", "paired", "2.1.0"},
		{"2.0.0", "cu117", "linux", "conda", "torchvision", "paired", "0.15.0"}, // previous-versions conda line
		{"2.0.0", "cu117", "linux", "", "torchvision", "paired", "0.15.1"},      // previous-versions pip line
		{"2.0.0", "cu117", "linux", "", "torchaudio", "paired", "2.0.1"},
		{"2.0.1", "cu117", "linux", "", "cudnn", "pin", "8.5.0.96"},
		{"2.5.1", "cu124", "linux", "", "nccl", "pin", "2.21.5"},
		{"2.7.0", "cu126", "linux", "", "nvidia-nccl-cu12", "pin", "==2.26.2"}, // lock beats the 2.7 dev snapshot
		{"2.11.0", "cu130", "linux", "", "cudnn", "pin", "9.19.0.56"},
		{"2.13.0", "cu130", "linux", "", "nccl", "pin", "2.29.7"},
		{"2.14.0", "cu130", "linux", "", "cudnn", "pin", "9.24.0.43"},
		{"1.10.1", "cu111", "linux", "", "torchvision", "paired", "0.11.2"},
		{"1.8.1", "cu111", "windows", "", "torchaudio", "paired", "0.8.1"},
		{"2.1.0", "cu121", "linux", "conda", "cudnn", "bundled", "8.9.2"}, // moi90 package name
		{"1.12.1", "cu116", "linux", "conda", "cudnn", "bundled", "8.3.2"},
		{"2.3.0", "cu121", "windows", "", "cudnn", "bundled", "8.9.2.26"},
		{"1.13.1", "cu117", "linux", "", "cudnn", "pin", "8.5.0.96"},
		// wheels that bundle their libraries carry the build image's cuDNN
		{"1.10.1", "cu111", "linux", "", "cudnn", "bundled", "8.0.5.39"},
		{"1.12.1", "cu113", "windows", "", "cudnn", "bundled", "8.3.2.44"},
		// before builder's release branches: builder main's install_cuda.sh on 1.8.1's day (a17d71fa)
		{"1.8.1", "cu111", "linux", "", "cudnn", "bundled", "8.0.5.39"},
		// install_102 of builder release/1.9 (0877fd10) downloads libcudnn7 7.6.5.32 for CUDA 10.2
		{"1.9.0", "cu102", "linux", "", "cudnn", "bundled", "7.6.5.32"},
		{"1.12.1", "cu102", "linux", "", "cudnn", "bundled", "7.6.5.32"},
		{"1.5.0", "cu92", "linux", "", "cudnn", "bundled", "7.6.3.30"},
		// CUDA 11.0's cuDNN changed two weeks before 1.7.0: not claimed (refused, listed by db check)
		{"1.7.0", "cu110", "linux", "", "cudnn", "bundled", ""},
		{"1.7.1", "cu110", "linux", "", "cudnn", "bundled", "8.0.5.39"},
		// pin-carrying wheels: the release-branch image's NCCL, as tested (builder release/2.4 install_cuda.sh)
		{"2.4.0", "cu124", "linux", "", "nccl", "tested", "2.20.5"},
		{"2.2.0", "cu118", "linux", "", "nccl", "tested", "2.19.3"},
		{"2.4.0", "cu124", "linux", "", "cudnn", "tested", ""}, // the image's cuDNN is not what a pinned wheel ships
		// Windows wheels: builder's windows/internal/cuda_install.bat (cu101 differs from Linux)
		{"1.7.1", "cu101", "windows", "", "cudnn", "bundled", "7.6.4.38"},
		{"1.12.1", "cu102", "windows", "", "cudnn", "bundled", "7.6.5.32"},
		{"1.7.0", "cu110", "windows", "", "cudnn", "bundled", ""},
		// pairings are the release's: every pip build gets them
		{"2.7.1", "cu118", "linux", "", "torchvision", "paired", "0.22.1"},
		{"2.7.1", "cu118", "windows", "", "torchaudio", "paired", "2.7.1"},
		{"2.8.0", "cu126", "linux", "", "torchvision", "paired", "0.23.0"},
		{"2.9.1", "cu130", "linux", "", "torchvision", "paired", "0.24.1"},
		{"2.9.1", "cpu", "macos", "", "torchvision", "paired", "0.24.1"},
		{"2.12.0", "cu126", "linux", "", "torchaudio", "paired", ""}, // 2.11.0 is installed alongside, not paired
		{"2.0.0", "cu117", "linux", "conda", "torchaudio", "paired", "2.0.0"},
		{"1.10.2", "cu102", "linux", "", "torchvision", "paired", "0.11.3"},
	} {
		if got := pytorch.FindReq(m, w.v, w.variant, w.plat, w.ch, w.needs, w.kind); got != w.spec {
			t.Errorf("%s %s %s %q needs %s (%s) = %q, want %q", w.v, w.variant, w.plat, w.ch, w.needs, w.kind, got, w.spec)
		}
	}
	for _, c := range []struct{ v, variant, plat, pip, pyMin, pyMax string }{
		{"2.1.0", "cu121", "linux", "2.1.0+cu121", "3.8", "3.11"},
		{"2.5.0", "cu124", "linux", "2.5.0+cu124", "3.9", "3.12"},
		{"1.9.0", "cu102", "linux", "1.9.0+cu102", "3.6", "3.9"},
		{"2.13.0", "cu130", "linux", "2.13.0+cu130", "3.10", "3.14"},
	} {
		b := pytorch.FindBuild(m, c.v, c.variant, c.plat, "")
		if b == nil || !b.IsDefault || b.PipVersion != c.pip || b.PythonMin != c.pyMin || b.PythonMax != c.pyMax {
			t.Errorf("default build %s %s = %+v", c.v, c.variant, b)
		}
	}
	if b := pytorch.FindBuild(m, "2.1.0", "cu121", "linux", ""); b == nil || !strings.Contains(b.ArchList, "sm_90") {
		t.Errorf("2.1.0 cu121 arch list = %+v", b)
	}
	if b := pytorch.FindBuild(m, "1.8.2", "cu111", "linux", ""); b == nil || b.IndexURL != "https://download.pytorch.org/whl/lts/1.8/cu111" {
		t.Errorf("1.8.2 LTS build = %+v", b)
	}
	// Variants that appear only at the last commit before the next go-live
	// are the next release's (test-infra moves its lists ahead of time).
	for _, c := range []struct{ v, variant string }{
		{"2.3.1", "cu124"}, {"2.5.1", "cu126"}, {"2.6.0", "cu128"}, {"2.7.1", "cu129"}, {"2.8.0", "cu130"}, {"2.13.0", "cu134"},
	} {
		for _, b := range m.Builds {
			if b.Component == "torch" && b.Version == c.v && b.Variant == c.variant {
				t.Errorf("%s has a %s build (%s, %s): a leak from the next release's lists", c.v, c.variant, b.Platform, b.Provenance.Ref)
			}
		}
	}
	if pytorch.FindBuild(m, "2.4.0", "xpu", "linux", "") != nil {
		t.Error("2.4.0 xpu is listed only at the last commit before 2.4.1's go-live")
	}
	if pytorch.FindBuild(m, "2.4.1", "xpu", "linux", "") == nil || pytorch.FindBuild(m, "2.8.0", "cu129", "linux-aarch64", "") == nil {
		t.Error("go-live variants must stay")
	}
	for _, c := range m.Conflicts {
		if c.Field == "marker" && pytorch.NormMarker(c.Kept) == pytorch.NormMarker(c.Other) {
			t.Errorf("marker conflict that differs only in spelling: %+v", c)
		}
	}
	// the torchvision README pairs 1.2 with 0.4.1; the install commands
	// (higher precedence) say 0.4.0: kept, and the disagreement listed
	found := false
	for _, c := range m.Conflicts {
		if c.Subject == "requirement torch==1.2.0 cu100 linux needs torchvision (paired)" && c.Kept == "0.4.0" && c.Other == "0.4.1" &&
			strings.HasPrefix(c.OtherSource, "pytorch-domains") {
			found = true
		}
	}
	if !found {
		t.Error("no conflict recorded for 1.2.0 torchvision 0.4.0 (previous-versions) vs 0.4.1 (vision README)")
	}
	if got := pytorch.FindReq(m, "1.9.1", "cu111", "linux", "", "torchaudio", "paired"); got != "0.9.1" {
		t.Errorf("1.9.1 torchaudio = %q", got)
	}
	for _, r := range m.Requirements {
		if r.Build.Version == "1.10.1" && r.Build.Variant == "cu111" && r.Build.Platform == "linux" && r.Build.Channel == "" && r.Needs == "cudnn" &&
			!strings.Contains(r.Ref, "torch_cuda_build_toolchain.csv") {
			t.Errorf("1.10.1 cu111 cuDNN cites %q, want the toolchain row", r.Ref)
		}
	}
	// conda 1.3.x exist (the matrix lists them with their channel)
	if pytorch.FindBuild(m, "1.3.0", "cu101", "linux", "conda") == nil {
		t.Error("1.3.0 conda cu101 build missing")
	}
}
