package jax

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWheels(t *testing.T) {
	ws, err := Wheels(read(t, "install_ok.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Wheel != "cuda12" || ws[1].Wheel != "cuda13" {
		t.Fatalf("wheels = %+v", ws)
	}
	if f := ws[0].Fields; f["built_cuda"] != "12.3" || f["compat_cudnn"] != ">=9.8, <10.0" || f["compat_cuda"] != ">=12.1" {
		t.Errorf("cuda12 wheel = %v", f)
	}
	bs, err := Wheels(read(t, "install_bullets.md"))
	if err != nil || len(bs) != 2 || bs[0].Fields["built_cudnn"] != "8.9.4" || bs[1].Fields["built_cuda"] != "11.8" {
		t.Errorf("bullets = %+v, %v", bs, err)
	}
	for _, bad := range []string{"install_garbage.md", "install_empty.md"} {
		if _, err := Wheels(read(t, bad)); err == nil {
			t.Errorf("%s: expected an error", bad)
		}
	}
}

func TestDriverFloors(t *testing.T) {
	fl, err := DriverFloors(read(t, "install_ok.md"))
	if err != nil || len(fl) != 2 || fl[0].MinDriver != "525" || fl[1].Major != "13" || fl[1].MinDriver != "580" {
		t.Errorf("floors = %+v, %v", fl, err)
	}
	fl, err = DriverFloors(read(t, "install_bullets.md"))
	if err != nil || len(fl) != 2 || fl[1].MinDriver != "450.80.02" {
		t.Errorf("floors = %+v, %v", fl, err)
	}
	if _, err := DriverFloors(read(t, "install_empty.md")); err == nil {
		t.Error("expected an error")
	}
}

func TestNormalizeRefusesGarbage(t *testing.T) {
	recs := []scraper.Record{
		{Table: tableExtra, Key: "a", Ref: "x line 2", Fields: map[string]string{"jax_version": "zero.four", "extra": "cuda12", "requirement_resolved": "jaxlib==0.4.30"}},
		{Table: tableExtra, Key: "b", Ref: "x line 3", Fields: map[string]string{"jax_version": "0.4.30", "extra": "cuda12", "requirement_resolved": "jaxlib==0.4.30"}},
		{Table: tablePin, Key: "c", Ref: "y line 2", Fields: map[string]string{"jax_version": "0.4.30", "cuda_variant": "cuda12", "package": "nvidia-cudnn-cu12", "spec": ">>9"}},
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Builds) != 1 || len(f.Conflicts) != 2 {
		t.Errorf("builds %d (want 1), conflicts %v (want 2)", len(f.Builds), f.Conflicts)
	}
}

func snapshot(t *testing.T) ([]scraper.Record, *db.Facts) {
	t.Helper()
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: sourcestest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := scraper.CheckUnique(recs); err != nil {
		t.Fatal(err)
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	return recs, f
}

func TestSnapshot(t *testing.T) {
	recs, f := snapshot(t)
	reqs := map[string]string{}
	for _, r := range f.Requirements {
		reqs[r.Build.String()+"/"+r.Needs+"/"+r.Kind] = r.Spec
	}
	// Every release with a stated table has its built-with CUDA and cuDNN.
	stated := 0
	for _, r := range recs {
		if r.Table != tableWheel {
			continue
		}
		stated++
		k := "jax==" + r.Fields["release"] + " " + r.Key[strings.LastIndex(r.Key, "/")+1:] + " linux"
		if reqs[k+"/cuda/tested"] != r.Fields["built_cuda"] || reqs[k+"/cudnn/tested"] != r.Fields["built_cudnn"] {
			t.Errorf("%s: cuda %q cudnn %q, page says %q %q", k, reqs[k+"/cuda/tested"], reqs[k+"/cudnn/tested"], r.Fields["built_cuda"], r.Fields["built_cudnn"])
		}
	}
	if stated != 12 {
		t.Errorf("stated wheel tables = %d, want 12 (two each for 0.4.16, 0.4.17, 0.8.0, 0.11.0; one each for 0.4.26, 0.4.30, 0.4.31, 0.7.1)", stated)
	}
	for k, want := range map[string]string{
		"jax==0.4.31 cuda12 linux/cudnn/minimum":           ">=9.1,<10.0",
		"jax==0.11.0 cuda13 linux/nvidia-cudnn-cu13/pin":   ">=9.12.0.46,<10.0",
		"jax==0.11.0 cuda13 linux/driver/minimum":          ">=580",
		"jax==0.7.1 cuda12 linux/driver/minimum":           ">=525.60.13",
		"jax==0.4.14 cuda12 linux/jaxlib/paired":           "==0.4.14+cuda12.cudnn89",
		"jax==0.4.14 cuda11 linux/driver/minimum":          ">=450.80.02",
		"jax==0.6.0 cuda12 linux/jax-cuda12-plugin/paired": ">=0.6.0,<=0.6.0",
	} {
		if reqs[k] != want {
			t.Errorf("%s = %q, want %q", k, reqs[k], want)
		}
	}
	attrs := map[string]string{}
	for _, a := range f.Attributes {
		attrs[a.Version+"/"+a.Key] = a.Value
	}
	for k, want := range map[string]string{"0.4.14/extra@cuda12": "cuda12_pip", "0.6.0/extra_local@cuda12": "cuda12-local", "0.8.0/extra@cuda13": "cuda13", "0.5.0/extra": "cuda12", "0.8.0/extra@cuda12": "cuda12"} {
		if attrs[k] != want {
			t.Errorf("attribute %s = %q, want %q", k, attrs[k], want)
		}
	}
	var lag bool
	for _, c := range f.Conflicts {
		lag = lag || (c.Subject == "build jax==0.11.0 cuda12 linux" && c.Field == "cuda" && c.Kept == "12.9" && c.Other == "12.3")
	}
	if !lag {
		t.Error("the doc-lags-build-config conflict for 0.11.0 is missing")
	}
}

func FuzzWheels(f *testing.F) {
	for _, n := range []string{"install_ok.md", "install_bullets.md", "install_garbage.md", "install_empty.md"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		Wheels(b)
		DriverFloors(b)
	})
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
