package querytest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
)

// PinFacts is Facts plus the builds the pin generator's tests need and
// the resolve tests must not see (they count rows): conda-channel torch
// releases, a find-links era torch, a TensorFlow that needs system cuDNN,
// a TensorFlow with `and-cuda` pins, and CUDA toolkit releases for the
// Docker tag rule. Facts' own rows are untouched.
func PinFacts() *db.Facts {
	f := Facts()
	pv := func(ref string) db.Provenance {
		return db.Provenance{Source: "fixture", URL: "https://example.test/torch", Ref: ref}
	}
	conda := func(ver, variant, cuda, pyMin, pyMax, vision string) {
		b := db.Build{Component: frameworks.Torch, Version: ver, Variant: variant, Platform: "linux", CUDA: cuda, PythonMin: pyMin, PythonMax: pyMax,
			Channel: "conda", Provenance: pv(ver + " conda " + variant)}
		f.Builds = append(f.Builds, b)
		f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: frameworks.TorchVision, Spec: vision, Kind: db.KindPaired, Provenance: pv("pairs")})
	}
	conda("2.1.0", "cu121", "12.1", "3.8", "3.11", "0.16.0")
	conda("1.13.1", "cu117", "11.7", "3.7", "3.10", "0.14.1")
	conda("1.12.1", "cu113", "11.3", "3.7", "3.10", "0.13.1")

	// torch 1.10: PyPI's default is cu102 without a local label; other
	// variants come from a find-links page.
	wheel := func(ver, variant, cuda, pipVer, index string, def bool) {
		b := db.Build{Component: frameworks.Torch, Version: ver, Variant: variant, Platform: "linux", CUDA: cuda, PythonMin: "3.6", PythonMax: "3.9",
			PipVersion: pipVer, IndexURL: index, IsDefault: def, ArchList: "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86", Provenance: pv(ver + " " + variant)}
		f.Builds = append(f.Builds, b)
		f.Requirements = append(f.Requirements,
			db.Requirement{Build: b.Key(), Needs: frameworks.TorchVision, Spec: "0.11.2", Kind: db.KindPaired, Provenance: pv("pairs")},
			db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: "8.2.0", Kind: db.KindBundled, Provenance: pv("cudnn row")})
	}
	wheel("1.10.1", "cu113", "11.3", "1.10.1+cu113", "https://download.pytorch.org/whl/cu113/torch_stable.html", false)
	wheel("1.10.1", "cu102", "10.2", "1.10.1", "https://pypi.org/simple", true)

	tfp := func(ref string) db.Provenance {
		return db.Provenance{Source: "fixture-tf", URL: "https://example.test/tf", Ref: ref}
	}
	// TensorFlow 2.11 predates the and-cuda extra: CUDA and cuDNN come
	// from the system.
	for _, pl := range []string{"linux"} {
		b := db.Build{Component: frameworks.TensorFlow, Version: "2.11.0", Variant: "cuda11", Platform: pl, Package: frameworks.TensorFlow, CUDA: "11.2",
			PythonMin: "3.7", PythonMax: "3.10", Provenance: tfp("tested 2.11.0")}
		f.Builds = append(f.Builds, b)
		f.Requirements = append(f.Requirements,
			db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: "8.1", Kind: db.KindTested, Provenance: b.Provenance},
			db.Requirement{Build: b.Key(), Needs: "cuda", Spec: "11.2", Kind: db.KindTested, Provenance: b.Provenance},
			db.Requirement{Build: b.Key(), Needs: "driver", Spec: ">=450.80.02", Kind: db.KindMinimum, Provenance: b.Provenance})
	}
	// TensorFlow 2.18 pins the CUDA wheels behind `pip install
	// tensorflow[and-cuda]`.
	b := db.Build{Component: frameworks.TensorFlow, Version: "2.18.0", Variant: "cuda12", Platform: "linux", Package: frameworks.TensorFlow, CUDA: "12.5",
		PythonMin: "3.9", PythonMax: "3.12", Provenance: tfp("tested 2.18.0")}
	f.Builds = append(f.Builds, b)
	f.Requirements = append(f.Requirements,
		db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: "9.3", Kind: db.KindTested, Provenance: b.Provenance},
		db.Requirement{Build: b.Key(), Needs: "cuda", Spec: "12.5", Kind: db.KindTested, Provenance: b.Provenance})
	for pkg, spec := range map[string]string{"nvidia-cudnn-cu12": "==9.3.0.75", "nvidia-cublas-cu12": "==12.5.3.2", "nvidia-cuda-runtime-cu12": "==12.5.82"} {
		f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: pkg, Spec: spec, Kind: db.KindPin,
			Marker: `extra == "and-cuda"`, Provenance: tfp("setup.py pins")})
	}

	nv := db.Provenance{Source: "fixture-nvidia", URL: "https://example.test/cuda-release-notes", Ref: "table 3"}
	for _, t := range []struct{ cuda, label, driver string }{
		{"12.5.1", "CUDA 12.5 Update 1", "555.42.06"},
		{"12.5.0", "CUDA 12.5 GA", "555.42.02"},
		{"12.4.1", "CUDA 12.4 Update 1", "550.54.15"},
		{"12.3.2", "CUDA 12.3 Update 2", "545.23.08"},
		{"12.2.2", "CUDA 12.2 Update 2", "535.104.05"},
		{"12.1.1", "CUDA 12.1 Update 1", "530.30.02"},
		{"12.1.0", "CUDA 12.1 GA", "530.30.02"},
		{"11.8.0", "CUDA 11.8 GA", "520.61.05"},
		{"11.7.1", "CUDA 11.7 Update 1", "515.65.01"},
		{"11.3.1", "CUDA 11.3.1 Update 1", "465.19.01"},
		{"11.2.2", "CUDA 11.2.2 Update 2", "460.32.03"},
		{"11.2.0", "CUDA 11.2.0 GA", "460.27.03"},
		{"10.2.89", "CUDA 10.2.89", "440.33"},
	} {
		f.CUDADrivers = append(f.CUDADrivers, db.CUDADriver{CUDA: t.cuda, Label: t.label, OS: "linux", Kind: "toolkit", MinDriver: t.driver, Provenance: nv})
	}
	return f
}

// PinPath writes PinFacts to a temporary database file and returns its
// path. Its meta names a fixed build so goldens do not change.
func PinPath(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cudb.db")
	srcs := []db.SourceInfo{{Name: "fixture", URL: "https://example.test/torch", SHA256: "x", Rows: 1},
		{Name: "fixture-tf", URL: "https://example.test/tf", SHA256: "y", Rows: 1},
		{Name: "fixture-nvidia", URL: "https://example.test/cuda-release-notes", SHA256: "z", Rows: 1}}
	if err := db.Write(context.Background(), path, PinFacts(), srcs, map[string]string{"built_from": "0123456789abcdef0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	return path
}

// OpenPins writes PinFacts to a temporary database and opens it.
func OpenPins(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.OpenFile(context.Background(), PinPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
