package nvidia

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

// An empty driver floor in matrix cuda says why: NVIDIA's table prints
// N/A for every CUDA 13.x Windows cell (the Windows driver is not bundled),
// CUDA 13.4 has no published minimum, no bundled Linux driver (its redist
// manifest) and needs R615 for its new features (the 13.4 notes' branch
// table). A lead naming a line (13.5) gives way to the release NVIDIA's
// manifest names (13.5.0).
func TestMatrixCUDAExplainsEmptyFloors(t *testing.T) {
	rows, err := MatrixCUDA(context.Background(), querytest.Embedded(t))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]CUDARow{}
	for _, r := range rows {
		by[r.CUDA] = r
		if r.LinuxMinDriver == "" && !strings.HasPrefix(r.LinuxMinDriverNote, "unknown") {
			t.Errorf("%s: empty Linux floor without an unknown note (%q)", r.CUDA, r.LinuxMinDriverNote)
		}
		if r.WindowsMinDriver == "" && !strings.HasPrefix(r.WindowsMinDriverNote, "unknown") {
			t.Errorf("%s: empty Windows floor without an unknown note (%q)", r.CUDA, r.WindowsMinDriverNote)
		}
		if r.LinuxMinDriver != "" && r.LinuxMinDriverNote != "" {
			t.Errorf("%s: a floor (%s) and a note (%q)", r.CUDA, r.LinuxMinDriver, r.LinuxMinDriverNote)
		}
	}
	if r := by["13.2.2"]; r.LinuxMinDriver != "595.71.05" || !strings.Contains(r.WindowsMinDriverNote, "N/A in NVIDIA's table") {
		t.Errorf("13.2.2 = %+v", r)
	}
	r := by["13.4.2"]
	for _, want := range []string{"no minimum driver published", "redist manifest bundles no Linux driver", "new features need R615 or later"} {
		if !strings.Contains(r.LinuxMinDriverNote, want) {
			t.Errorf("13.4.2 Linux note %q lacks %q", r.LinuxMinDriverNote, want)
		}
	}
	// 13.5.0 is named by NVIDIA's own manifests (release date, cudart):
	// a release with its floor unknown, not a pending lead; the lead that
	// named the line (13.5) gives way to it.
	if r := by["13.5.0"]; r.Status != "" || r.Released != "2026-11-04" || !strings.Contains(r.LinuxMinDriverNote, "ships with driver 620.70.06 (R620)") {
		t.Errorf("13.5.0 = %+v, want NVIDIA's release date and the compat-package note", r)
	}
	if r, ok := by["13.5"]; ok {
		t.Errorf("the lead 13.5 is still a row beside 13.5.0: %+v", r)
	}
	if r := by["13.1.1"]; r.Status != "" || r.LinuxMinDriver != "590.48.01" || r.Released != "2026-01-12" {
		t.Errorf("13.1.1 = %+v", r)
	}
}

// R615 carries the facts its evidence states (max CUDA 13.4 from the 13.4
// notes' branch table, New Feature Branch and its first release from
// NVIDIA's releases.json as quoted); R620 has its maximum CUDA from its
// driver manifest (620.70.06 ships the compat package for CUDA 13.5), its
// type and end of life from NVIDIA's release-620 data-center table.
func TestMatrixDriverR615R620(t *testing.T) {
	rows, err := MatrixDriver(context.Background(), querytest.Embedded(t))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]DriverRow{}
	for _, r := range rows {
		by[r.Branch] = r
	}
	if r := by["615"]; r.MaxCUDA != "13.4" || r.BranchType != "New Feature Branch" || r.Released != "2026-09-09" || r.Status != "" {
		t.Errorf("R615 = %+v", r)
	}
	if r := by["620"]; r.Status != "" || r.MaxCUDA != "13.5" || r.BranchType != "Long Term Support Branch" || r.EndOfLife != "September 2029" {
		t.Errorf("R620 = %+v", r)
	}
	if r := by["610"]; r.MaxCUDA != "13.3" || r.Status != "" {
		t.Errorf("R610 = %+v", r)
	}
}
