package query

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
)

// archPlatformDB holds one release whose Linux wheels start at sm_75
// while its Windows wheels of one variant carry their own (wider) list and
// those of the other variant have none in the data.
func archPlatformDB(t *testing.T) *db.DB {
	t.Helper()
	pv := db.Provenance{Source: "fixture", URL: "https://example.test/torch", Ref: "arch"}
	f := &db.Facts{}
	add := func(variant, cuda, plat, arch string) {
		f.Builds = append(f.Builds, db.Build{Component: frameworks.Torch, Version: "2.7.1", Variant: variant, Platform: plat, CUDA: cuda,
			PythonMin: "3.9", PythonMax: "3.13", PipVersion: "2.7.1+" + variant, IndexURL: "https://download.pytorch.org/whl/" + variant,
			ArchList: arch, Provenance: pv})
		f.Requirements = append(f.Requirements, db.Requirement{Build: f.Builds[len(f.Builds)-1].Key(), Needs: "cudnn", Spec: "9.7.1.26", Kind: db.KindBundled, Provenance: pv})
	}
	add("cu128", "12.8", "linux", "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120")
	add("cu128", "12.8", "windows", "sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120")
	add("cu129", "12.9", "linux", "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120")
	add("cu129", "12.9", "windows", "")
	f.GPUs = []db.GPU{{Name: "NVIDIA GeForce GTX 1080", ComputeCapability: "6.1", Architecture: "Pascal", Provenance: pv}}
	path := filepath.Join(t.TempDir(), "cudb.db")
	if err := db.Write(context.Background(), path, f, []db.SourceInfo{{Name: "fixture", URL: pv.URL, SHA256: "x", Rows: 1}}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := db.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// A Windows answer never borrows the Linux arch list: with a Windows list
// of its own the build is judged by it, without one the GPU verdict is
// unknown (kept, ranked below, the gap named) where Linux says "no kernels".
func TestArchJudgementIsPerPlatform(t *testing.T) {
	d := archPlatformDB(t)
	ctx := context.Background()
	_, err := Resolve(ctx, d, ResolveRequest{Requirements: []string{"torch==2.7.1"}, SM: "6.1", Platform: "linux"})
	var qe *errs.Error
	if !errors.As(err, &qe) || qe.Code != errs.CodeNotFound || !strings.Contains(qe.Message, "not among the kernels") {
		t.Fatalf("linux: sm_61 is in neither Linux list, want no match, got %v", err)
	}
	res, err := Resolve(ctx, d, ResolveRequest{Requirements: []string{"torch==2.7.1"}, SM: "6.1", Platform: "windows"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Stack{}
	for _, s := range res.Stacks {
		got[s.Variant] = s
	}
	if s := got["cu128"]; s.GPU == nil || s.GPU.Support != "sass" || s.Status != StatusOK || strings.Join(s.ComputeCapabilities, " ") != "5.0 6.0 6.1 7.0 7.5 8.0 8.6 9.0 10.0 12.0" {
		t.Errorf("windows cu128 must be judged by its own list (sm_61 native), got %+v", s)
	}
	s, ok := got["cu129"]
	if !ok || s.GPU == nil || s.GPU.Support != StatusUnknown || s.Status != StatusUnknown {
		t.Fatalf("windows cu129 has no Windows list: want kept as unknown, got %+v (present %v)", s, ok)
	}
	if want := "no Windows arch list is known for torch 2.7.1+cu129"; s.GPU.Detail != want || len(s.Unknown) != 1 || !strings.Contains(s.Unknown[0], want) {
		t.Errorf("the gap must name the missing Windows list: detail %q, unknown %q", s.GPU.Detail, s.Unknown)
	}
	if len(s.ComputeCapabilities) != 0 {
		t.Errorf("no Windows list: no compute capabilities may be shown, got %v", s.ComputeCapabilities)
	}
	if res.Stacks[0].Variant != "cu128" {
		t.Errorf("the known-good Windows build ranks first, got %s", res.Stacks[0].Variant)
	}
	// With no platform asked, the representative (Linux) list answers.
	if _, err := Resolve(ctx, d, ResolveRequest{Requirements: []string{"torch==2.7.1"}, SM: "6.1"}); !errors.As(err, &qe) || qe.Code != errs.CodeNotFound {
		t.Errorf("no platform: the Linux lists answer (no kernels), got %v", err)
	}
}

// The real data: torch 2.8.0 cu128 drops Pascal from its Linux wheels; no
// Windows list of 2.8 is known, so Windows is unknown, not "no kernels".
func TestArchWindowsUnknownRealData(t *testing.T) {
	_, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.8.0"}, CUDA: "12.8", SM: "6.1", Platform: "linux"})
	var qe *errs.Error
	if !errors.As(err, &qe) || qe.Code != errs.CodeNotFound {
		t.Fatalf("linux: 2.8.0+cu128 has no sm_61 kernels, want no match, got %v", err)
	}
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.8.0"}, CUDA: "12.8", SM: "6.1", Platform: "windows"})
	if err != nil {
		t.Fatalf("windows must not say no kernels without a Windows list: %v", err)
	}
	s := res.Stacks[0]
	if s.Status != StatusUnknown || s.GPU == nil || s.GPU.Support != StatusUnknown || !strings.Contains(s.GPU.Detail, "no Windows arch list is known for torch 2.8.0+cu128") {
		t.Errorf("want an unknown GPU verdict naming the missing Windows list, got %+v", s)
	}
}

// The real data: the Windows wheels of 2.1.0 were built with builder's
// windows/cuda121.bat, whose list keeps sm_61 (the Linux list does not):
// a GTX 1080 runs natively on Windows, through binary compatibility on
// Linux, and the Windows answer cites the script at its release branch.
func TestArchWindowsListRealData(t *testing.T) {
	for _, tc := range []struct{ plat, support, url string }{
		{"windows", "sass", "https://github.com/pytorch/builder/blob/55d40b1b06379fddd0ba14744dc3fdd768530da6/windows/cuda121.bat"},
		{"linux", "sass_compatible", ""},
	} {
		res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1", SM: "6.1", Platform: tc.plat, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Stacks[0]
		if s.GPU == nil || s.GPU.Support != tc.support || s.Status != StatusOK {
			t.Errorf("%s: want %s, got %+v", tc.plat, tc.support, s.GPU)
		}
		var cite string
		for _, c := range s.Citations {
			if c.Fact == "arch_list" {
				cite = c.URL
			}
		}
		if tc.url != "" && cite != tc.url {
			t.Errorf("%s: the arch list must cite %s, got %q", tc.plat, tc.url, cite)
		}
		listed := false
		for _, src := range s.Sources {
			listed = listed || src.URL == tc.url
		}
		if tc.url != "" && !listed {
			t.Errorf("%s: the stack's sources %v lack the arch list's script", tc.plat, s.Sources)
		}
	}
}
