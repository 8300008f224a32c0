package nvidia

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
)

func nvDB(t testing.TB) *db.DB {
	t.Helper()
	p := db.Provenance{Source: "t"}
	td := func(cuda, label, os, kind, min string) db.CUDADriver {
		return db.CUDADriver{CUDA: cuda, Label: label, OS: os, Kind: kind, MinDriver: min, Provenance: p}
	}
	f := &db.Facts{
		CUDADrivers: []db.CUDADriver{
			td("12.1.0", "CUDA 12.1 GA", "linux", "toolkit", "530.30.02"), td("12.1.0", "CUDA 12.1 GA", "windows", "toolkit", "531.14"),
			td("12.1.1", "CUDA 12.1 Update 1", "linux", "toolkit", "530.30.02"),
			td("12.0.0", "CUDA 12.0 GA", "linux", "toolkit", "525.60.13"),
			td("12.4.0", "CUDA 12.4 GA", "linux", "toolkit", "550.54.14"),
			td("11.4.0", "CUDA 11.4.0 GA", "linux", "toolkit", "470.42.01"),
			td("13.0.0", "CUDA 13.0 GA", "linux", "toolkit", "580.65.06"),
			td("12", "", "linux", "minor_compat", "525.60.13"), td("12", "", "windows", "minor_compat", "527.41"),
			td("11", "", "linux", "minor_compat", "450.80.02"), td("13", "", "linux", "minor_compat", "580"),
		},
		GPUs: []db.GPU{
			{Name: "NVIDIA T4", Aliases: []string{"T4"}, ComputeCapability: "7.5", Provenance: p},
			{Name: "GeForce RTX 4090", Aliases: []string{"RTX 4090", "NVIDIA RTX 4090", "NVIDIA GeForce RTX 4090"}, ComputeCapability: "8.9", Provenance: p},
			{Name: "NVIDIA RTX A6000", ComputeCapability: "8.6", Provenance: p},
			{Name: "Quadro RTX 6000", ComputeCapability: "7.5", Provenance: p},
			{Name: "NVIDIA RTX 6000 Ada", ComputeCapability: "8.9", Provenance: p},
		},
		DriverBranches: []db.DriverBranch{{Branch: "535", MaxCUDA: "12.2", Provenance: p}},
	}
	path := filepath.Join(t.TempDir(), "t.db")
	if err := db.Write(context.Background(), path, f, []db.SourceInfo{{Name: "t", SHA256: "x"}}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := db.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestDriverFloors(t *testing.T) {
	d := nvDB(t)
	f, err := DriverFloors(context.Background(), d, "12.1")
	if err != nil {
		t.Fatal(err)
	}
	want := Floors{CUDA: "12.1.0", LinuxMin: "530.30.02", WindowsMin: "531.14", MinorCompatLinuxMin: "525.60.13", MinorCompatWindowsMin: "527.41"}
	if f != want {
		t.Errorf("got %+v want %+v", f, want)
	}
	if f, _ := DriverFloors(context.Background(), d, "12.1.1"); f.CUDA != "12.1.1" {
		t.Errorf("12.1.1: %+v", f)
	}
	if _, err := DriverFloors(context.Background(), d, "9.9"); errs.CodeOf(err) != errs.CodeNotFound {
		t.Errorf("unknown CUDA: %v", err)
	}
}

func TestCheckDriver(t *testing.T) {
	d := nvDB(t)
	ctx := context.Background()
	// A 470-branch driver with CUDA 12.1: refused, floor named.
	v, err := CheckDriver(ctx, d, "470.82.01", "12.1")
	if err != nil || v.OK || !strings.Contains(v.Reason, "525.60.13") {
		t.Errorf("470 + 12.1: %+v %v", v, err)
	}
	// 525.60.13 with any 12.x: allowed through minor compat, with a note.
	for _, c := range []string{"12.1", "12.4", "12.0"} {
		v, err := CheckDriver(ctx, d, "525.60.13", c)
		if err != nil || !v.OK {
			t.Errorf("525.60.13 + %s: %+v %v", c, v, err)
		}
		if c != "12.0" && (v.Via != "minor_compat" || !strings.Contains(v.Note, "recommended >=")) {
			t.Errorf("525.60.13 + %s should note minor compat: %+v", c, v)
		}
	}
	// A 13.x build on a 12.x-era driver: refused.
	v, err = CheckDriver(ctx, d, "550.54.14", "13.0")
	if err != nil || v.OK || v.Err() == nil || errs.CodeOf(v.Err()) != errs.CodeIncompatible {
		t.Errorf("550 + 13.0: %+v %v", v, err)
	}
	if mx, _ := MaxCUDAForDriver(ctx, d, "550.54.14"); mx != "12.4" {
		t.Errorf("MaxCUDAForDriver(550.54.14) = %q", mx)
	}
	if _, err := CheckDriver(ctx, d, "banana", "12.1"); errs.CodeOf(err) != errs.CodeUsage {
		t.Errorf("banana: %v", err)
	}
}

func TestGPUSupport(t *testing.T) {
	for _, c := range []struct{ cc, list, want string }{
		{"6.1", "sm_60 sm_70", "sass_compatible"},
		{"12.0", "sm_50 sm_60 sm_70 sm_80 sm_90", "none"},
		{"8.9", "sm_50 sm_80 compute_80", "sass_compatible"},
		{"9.0", "sm_50 sm_80 compute_80", "ptx_jit"},
		{"8.0", "sm_86", "none"}, // never downward
		{"9.0", "sm_90a", "sass"},
		{"10.0", "sm_90a compute_90a", "none"}, // arch-specific code is not portable
		{"7.5", "sm_75", "sass"},
	} {
		if got, detail := GPUSupport(c.cc, c.list); got != c.want {
			t.Errorf("GPUSupport(%s, %q) = %s (%s), want %s", c.cc, c.list, got, detail, c.want)
		}
	}
}

func TestLookupGPU(t *testing.T) {
	d := nvDB(t)
	for _, n := range []string{"Tesla T4", "T4", "NVIDIA T4", "tesla-t4", "t4"} {
		if g, err := LookupGPU(context.Background(), d, n); err != nil || g.Name != "NVIDIA T4" {
			t.Errorf("%q: %+v %v", n, g, err)
		}
	}
	for _, n := range []string{"GeForce RTX 4090", "RTX 4090", "NVIDIA GeForce RTX 4090", "rtx-4090"} {
		if g, err := LookupGPU(context.Background(), d, n); err != nil || g.Name != "GeForce RTX 4090" {
			t.Errorf("%q: %+v %v", n, g, err)
		}
	}
	_, err := LookupGPU(context.Background(), d, "RTX 9999")
	if errs.CodeOf(err) != errs.CodeNotFound {
		t.Errorf("unknown: %v", err)
	}
	_, err = LookupGPU(context.Background(), d, "RTX 6000")
	if errs.CodeOf(err) != errs.CodeNotFound || !strings.Contains(err.Error(), "Quadro RTX 6000") {
		t.Errorf("close suggestions: %v", err)
	}
}

func TestParsers(t *testing.T) {
	for in, want := range map[string]string{"7.5": "7.5", "sm_75": "7.5", "75": "7.5", "sm_120": "12.0", "compute_90a": "9.0"} {
		if got, err := ParseSM(in); err != nil || got != want {
			t.Errorf("ParseSM(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"99.9", "", "banana", "sm_", "0.5"} {
		if _, err := ParseSM(in); errs.CodeOf(err) != errs.CodeUsage {
			t.Errorf("ParseSM(%q) should be a usage error: %v", in, err)
		}
	}
	for _, in := range []string{"banana", "", "99999999.1", "5", "1.2.3.4.5"} {
		_, err := ParseDriver(in)
		var e *errs.Error
		if errs.CodeOf(err) != errs.CodeUsage || !asErr(err, &e) || e.Hint == "" {
			t.Errorf("ParseDriver(%q) should be a usage error with a hint: %v", in, err)
		}
	}
	if v, err := ParseDriver(" 535.104.05 "); err != nil || v != "535.104.05" {
		t.Errorf("ParseDriver: %q %v", v, err)
	}
}

func asErr(err error, e **errs.Error) bool {
	x, ok := err.(*errs.Error)
	*e = x
	return ok
}

func FuzzParseDriver(f *testing.F) {
	for _, s := range []string{"535.104.05", "banana", "", "999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseDriver(s); err == nil && v == "" {
			t.Fatal("empty driver accepted")
		}
	})
}

func FuzzParseSM(f *testing.F) {
	for _, s := range []string{"7.5", "sm_75", "75", "99.9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if cc, err := ParseSM(s); err == nil {
			GPUSupport(cc, "sm_50 "+s)
		}
	})
}

func FuzzLookupGPU(f *testing.F) {
	d := nvDB(f)
	for _, s := range []string{"T4", "tesla-t4", "", "RTX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		LookupGPU(context.Background(), d, s)
	})
}
