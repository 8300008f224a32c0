// Package querytest builds a small hand-made cudb database for tests of
// the query layer, the CLI and the HTTP API, so they do not depend on the
// real data.
package querytest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
)

// Facts is a small hand-made database: two torch releases with
// pip pins, one older bundled release, and two TensorFlow releases, enough
// to drive resolve's rules without the real data.
func Facts() *db.Facts {
	pv := func(ref string) db.Provenance {
		return db.Provenance{Source: "fixture", URL: "https://example.test/torch", Ref: ref}
	}
	f := &db.Facts{}
	addTorch := func(ver, variant, cuda, pyMin, pyMax string, def bool, cudnn, kind, vision string, pins map[string]string, platforms ...string) {
		for _, pl := range platforms {
			b := db.Build{Component: frameworks.Torch, Version: ver, Variant: variant, Platform: pl, CUDA: cuda, PythonMin: pyMin, PythonMax: pyMax,
				PipVersion: ver + "+" + variant, IndexURL: "https://download.pytorch.org/whl/" + variant, IsDefault: def && pl == "linux",
				ArchList: "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 compute_90", Provenance: pv(ver + " " + variant)}
			f.Builds = append(f.Builds, b)
			if cudnn != "" {
				f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: cudnn, Kind: kind, Provenance: pv("cudnn row")})
			}
			if kind == db.KindBundled && cuda != "" {
				// a wheel that bundles its CUDA libraries carries the runtime too
				f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: "cuda", Spec: cuda, Kind: db.KindBundled, Provenance: pv("toolchain row")})
			}
			f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: frameworks.TorchVision, Spec: vision, Kind: db.KindPaired, Provenance: pv("pairs")})
			for pkg, spec := range pins {
				if pl == "linux" {
					f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: pkg, Spec: spec, Kind: db.KindPin, Marker: `platform_system == "Linux"`, Provenance: pv("pins")})
				}
			}
		}
	}
	addTorch("2.1.0", "cu121", "12.1", "3.8", "3.11", true, "8.9.2.26", db.KindPin, "0.16.0", map[string]string{"nvidia-cudnn-cu12": "==8.9.2.26"}, "linux", "windows")
	addTorch("2.1.0", "cu118", "11.8", "3.8", "3.11", false, "8.7.0.84", db.KindBundled, "0.16.0", nil, "linux", "windows")
	addTorch("2.1.0", "cpu", "", "3.8", "3.11", false, "", "", "0.16.0", nil, "linux", "windows", "macos")
	addTorch("2.1.2", "cu121", "12.1", "3.8", "3.11", true, "8.9.2.26", db.KindPin, "0.16.2", map[string]string{"nvidia-cudnn-cu12": "==8.9.2.26"}, "linux", "windows")
	addTorch("2.1.2", "cu118", "11.8", "3.8", "3.11", false, "8.7.0.84", db.KindBundled, "0.16.2", nil, "linux", "windows")
	addTorch("2.3.1", "cu121", "12.1", "3.8", "3.12", true, "8.9.2.26", db.KindPin, "0.18.1", map[string]string{"nvidia-cudnn-cu12": "==8.9.2.26"}, "linux", "windows")
	addTorch("2.4.0", "cu124", "12.4", "3.8", "3.12", true, "9.1.0.70", db.KindPin, "0.19.0", map[string]string{"nvidia-cudnn-cu12": "==9.1.0.70"}, "linux", "windows")
	addTorch("1.13.1", "cu117", "11.7", "3.7", "3.10", true, "8.5.0.96", db.KindBundled, "0.14.1", nil, "linux")
	// a conda-only release, as 1.3.x and 1.10.2 are in the real data
	conda := db.Build{Component: frameworks.Torch, Version: "1.10.2", Variant: "cu113", Platform: "linux", Channel: "conda", CUDA: "11.3",
		PythonMin: "3.6", PythonMax: "3.9", ArchList: "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 compute_86", Provenance: pv("1.10.2 conda cu113")}
	f.Builds = append(f.Builds, conda)
	f.Requirements = append(f.Requirements, db.Requirement{Build: conda.Key(), Needs: "cudnn", Spec: "8.2.0", Kind: db.KindBundled, Provenance: pv("conda package name")})
	tf := func(ver, cuda, cudnn, pyMin, pyMax string, pins map[string]string) {
		b := db.Build{Component: frameworks.TensorFlow, Version: ver, Variant: "cuda" + cuda[:2], Platform: "linux", Package: frameworks.TensorFlow, CUDA: cuda,
			PythonMin: pyMin, PythonMax: pyMax, Provenance: db.Provenance{Source: "fixture-tf", Ref: "tested " + ver}}
		f.Builds = append(f.Builds, b)
		f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: cudnn, Kind: db.KindTested, Provenance: b.Provenance})
		for pkg, spec := range pins {
			f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: pkg, Spec: spec, Kind: db.KindPin, Provenance: b.Provenance})
		}
	}
	tf("2.16.1", "12.3", "8.9", "3.9", "3.12", map[string]string{"nvidia-cudnn-cu12": "==8.9.7.29"})
	tf("2.14.0", "11.8", "8.7", "3.9", "3.11", nil)
	tf("2.15.0", "12.2", "8.9", "3.9", "3.11", map[string]string{"nvidia-cudnn-cu12": "==8.9.4.25"})
	tf("2.17.0", "12.3", "8.9", "3.9", "3.12", map[string]string{"nvidia-cudnn-cu12": "==8.9.2.26"})
	return f
}

// Path writes Facts to a temporary database file and returns its path.
func Path(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cudb.db")
	srcs := []db.SourceInfo{{Name: "fixture", URL: "https://example.test/torch", SHA256: "x", Rows: 1}, {Name: "fixture-tf", URL: "https://example.test/tf", SHA256: "y", Rows: 1}}
	if err := db.Write(context.Background(), path, Facts(), srcs, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// Open writes Facts to a temporary database and opens it.
func Open(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.OpenFile(context.Background(), Path(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Embedded opens the real database embedded in the binary, closed when the
// test ends.
func Embedded(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
