package query

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/querytest"
)

// These tests ask the embedded database (the committed data) the
// questions the NVIDIA rules must answer end to end.

func resolveReal(t *testing.T, req ResolveRequest) (*Resolution, error) {
	t.Helper()
	return Resolve(context.Background(), querytest.Embedded(t), req)
}

func TestResolveDriverRefusesOldBranch(t *testing.T) {
	_, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1", Driver: "470.82.01"})
	var qe *errs.Error
	if !errors.As(err, &qe) || qe.Code != errs.CodeNotFound || !strings.Contains(qe.Message, "525.60.13") {
		t.Fatalf("a 470 driver with cu121 must be refused naming the 12.x floor, got %v", err)
	}
}

func TestResolveDriverMinorCompat(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1", Driver: "525.60.13"})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stacks[0]
	if s.Driver == nil || s.Driver.MinorCompatLinuxMin != "525.60.13" || s.Driver.LinuxMin == "" {
		t.Fatalf("driver floors = %+v", s.Driver)
	}
	note := strings.Join(s.Notes, "\n")
	if !strings.Contains(note, "minor-version compatibility") {
		t.Errorf("no minor-compat note: %q", note)
	}
}

func TestResolveNewestTorchForDriver(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch"}, Driver: "470.82.01"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Stacks {
		if version.MajorText(s.CUDA) != "11" && version.MajorText(s.CUDA) != "10" && version.MajorText(s.CUDA) != "9" && version.MajorText(s.CUDA) != "8" {
			t.Fatalf("a 470 driver cannot run CUDA %s (%s)", s.CUDA, s.Packages["torch"])
		}
	}
	if got := res.Stacks[0].Packages["torch"]; !strings.HasPrefix(got, "2.") {
		t.Errorf("newest torch for 470 = %s", got)
	}
}

func TestResolveK80(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch"}, GPU: "Tesla K80"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Stacks {
		if s.GPU == nil || s.GPU.Support == "none" || s.GPU.ComputeCapability != "3.7" {
			t.Fatalf("stack %s %s: gpu %+v", s.Packages["torch"], s.Variant, s.GPU)
		}
	}
	best := res.Stacks[0]
	if !slices.Contains(best.ComputeCapabilities, "3.7") {
		t.Errorf("best K80 stack %s %s lacks sm_37: %v", best.Packages["torch"], best.Variant, best.ComputeCapabilities)
	}
}

func TestResolveBlackwellWithoutKernels(t *testing.T) {
	_, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.5.1"}, GPU: "GeForce RTX 5090"})
	var qe *errs.Error
	if !errors.As(err, &qe) || qe.Code != errs.CodeNotFound || !strings.Contains(qe.Message, "12.0") {
		t.Fatalf("sm_120 on torch 2.5.1: %v", err)
	}
}

func TestResolveComponentQuestions(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"cuda==12.4"}})
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Components[0].Facts.([]nvidia.CUDARow)
	if len(rows) < 2 || rows[0].MinorCompatLinuxMinDriver != "525.60.13" {
		t.Errorf("cuda==12.4 = %+v", rows)
	}
	res, err = resolveReal(t, ResolveRequest{Requirements: []string{"cudnn==9.1.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if rows := res.Components[0].Facts.([]nvidia.CUDNNRow); len(rows) == 0 {
		t.Error("cudnn==9.1.0 gave nothing")
	}
}

func TestResolveConstraintErrors(t *testing.T) {
	cases := []struct {
		req  ResolveRequest
		code errs.Code
	}{
		{ResolveRequest{Requirements: []string{"torch"}, Driver: "banana"}, errs.CodeUsage},
		{ResolveRequest{Requirements: []string{"torch"}, SM: "99.9"}, errs.CodeUsage},
		{ResolveRequest{Requirements: []string{"torch"}, GPU: "Voodoo 3dfx 9000"}, errs.CodeNotFound},
		{ResolveRequest{Requirements: []string{"torch"}, GPU: "T4", SM: "7.5"}, errs.CodeUsage},
		{ResolveRequest{Requirements: []string{"cuda==99.1"}}, errs.CodeNotFound},
	}
	for _, tc := range cases {
		_, err := resolveReal(t, tc.req)
		if errs.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v (code %s, want %s)", tc.req, err, errs.CodeOf(err), tc.code)
		}
	}
}

func TestGPUNamesForgiving(t *testing.T) {
	for _, name := range []string{"Tesla T4", "T4", "NVIDIA T4", "tesla-t4", "GeForce RTX 4090", "RTX 4090", "NVIDIA A100-SXM4-80GB", "Tesla V100-PCIE-16GB", "NVIDIA H100 80GB HBM3"} {
		res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.4.0"}, GPU: name})
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if res.Stacks[0].GPU == nil || res.Stacks[0].GPU.ComputeCapability == "" {
			t.Errorf("%q: no GPU fit", name)
		}
	}
}

func TestResolvePackageAliasAndCompanionVersions(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"tensorflow-gpu==1.15.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Stacks[0].Packages["tensorflow_gpu"]; v != "1.15.0" {
		t.Errorf("tensorflow-gpu==1.15.0 gave %v", res.Stacks[0].Packages)
	}
	res, err = resolveReal(t, ResolveRequest{Requirements: []string{"jax==0.4.26"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Stacks[0].Packages["jaxlib"]; v != "0.4.26+cuda12.cudnn89" {
		t.Errorf("jaxlib for jax 0.4.26 = %q (pip needs the CUDA flavour from the find-links page)", v)
	}
}

func TestSpecVersion(t *testing.T) {
	for in, want := range map[string]string{
		"==0.16.0": "0.16.0", "0.16.0": "0.16.0", ">=0.11.0,<=0.11.0": "0.11.0", ">=0.4.30": ">=0.4.30",
		"==0.4.26+cuda12.cudnn89": "0.4.26+cuda12.cudnn89", "==2.*": "==2.*", "garbage!": "garbage!",
	} {
		if got := specVersion(in); got != want {
			t.Errorf("specVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// Windows drivers carry their own numbers: the Windows floors apply when
// the request is for Windows.
func TestResolveWindowsDriverFloors(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1", Platform: "windows", Driver: "528.33"})
	if err != nil {
		t.Fatal(err)
	}
	if note := strings.Join(res.Stacks[0].Notes, "\n"); !strings.Contains(note, "minor-version compatibility; recommended >= 531.14") {
		t.Errorf("notes %q: want the Windows toolkit floor", note)
	}
	_, err = resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1", Platform: "windows", Driver: "516.94"})
	if err == nil || !strings.Contains(err.Error(), "527.41") {
		t.Errorf("a Windows 516 driver with cu121: %v (want the Windows 12.x floor 527.41)", err)
	}
	// The same number read as a Linux driver is judged by Linux floors.
	if _, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1", Driver: "528.33"}); err != nil {
		t.Errorf("Linux 528.33 with cu121: %v", err)
	}
}

// NVIDIA prints N/A for every CUDA 13.x Windows floor: a Windows driver is
// then neither enough nor too old for a CUDA 13 build. resolve keeps the
// build, unknown, with the reason; the CUDA 12 build a known floor admits
// stays ok; a Linux driver below the 13.x minor-compatibility floor is
// still refused, and so is a Windows driver that misses an older
// toolkit's known floor.
func TestWindowsCUDA13DriverIsUnknownNotNo(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.14.1"}, Platform: "windows", Driver: "616.92"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Stack{}
	for _, s := range res.Stacks {
		got[s.Variant] = s
	}
	if s, ok := got["cu130"]; !ok || s.Status != StatusUnknown || !strings.Contains(strings.Join(s.Unknown, "\n"), "no Windows driver floor known for CUDA 13.0.0: N/A in NVIDIA's table") {
		t.Errorf("cu130 on Windows driver 616.92 = %+v, want kept as unknown with NVIDIA's N/A", s)
	}
	if s := got["cu126"]; s.Status != StatusOK {
		t.Errorf("cu126 on Windows driver 616.92 = %+v, want ok", s)
	}
	// A Windows driver below a known floor of an older toolkit (418.96
	// runs CUDA up to 10.1) is older than any CUDA 13 driver: refused.
	v, err := nvidia.CheckDriverOS(context.Background(), querytest.Embedded(t), "418.96", "13.0", "windows")
	if err != nil || v.OK || v.Unknown != "" || !strings.Contains(v.Reason, "supports CUDA up to 10.1") {
		t.Errorf("Windows 418.96 for CUDA 13.0 = %+v, %v; want refused", v, err)
	}
	v, err = nvidia.CheckDriverOS(context.Background(), querytest.Embedded(t), "575.57.08", "13.0", "linux")
	if err != nil || v.OK || v.Unknown != "" || !strings.Contains(v.Reason, ">= 580") {
		t.Errorf("Linux 575 for CUDA 13.0 = %+v, %v; want refused below 580", v, err)
	}
}

// db info's NVIDIA lines: a known release newer than every floor or
// support row is the newest of its line (CUDA 13.5.0 only NVIDIA's
// manifests name, cuDNN 9.28.0 is a lead; CUDA 13.4.x has no floor;
// cuDNN 9.27.0 only its manifest).
func TestNewestNVIDIALinesCountKnownReleases(t *testing.T) {
	got, err := NewestReleases(context.Background(), querytest.Embedded(t))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, n := range got {
		by[n.Line] = n.Version
	}
	if by["cuda"] != "13.5.0" || by["cudnn"] != "9.28.0" || by["driver-branch"] != "620" {
		t.Errorf("newest NVIDIA lines = %v", by)
	}
}
