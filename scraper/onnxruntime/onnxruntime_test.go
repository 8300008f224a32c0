package onnxruntime

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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

func records(t *testing.T, name string) []scraper.Record {
	rows, err := RequirementRows(read(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var recs []scraper.Record
	for i, r := range rows {
		recs = append(recs, scraper.Record{Table: tableDoc, Key: string(rune('a' + i)), Ref: "t line 1",
			Fields: map[string]string{"versions": r.Versions, "cuda": r.CUDA, "cudnn": r.CUDNN, "notes": r.Notes}})
	}
	return recs
}

func TestRequirementRows(t *testing.T) {
	rows, err := RequirementRows(read(t, "ep_ok.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Versions != "1.15\n1.16" || rows[0].CUDNN != "8.2.4 (Linux)\n8.5.0.96 (Windows)" {
		t.Fatalf("rows = %+v", rows)
	}
	for _, bad := range []string{"ep_moved.md", "ep_empty.md"} {
		if _, err := RequirementRows(read(t, bad)); err == nil {
			t.Errorf("%s: expected an error", bad)
		}
	}
}

func TestNormalize(t *testing.T) {
	f, err := Source{}.Normalize(records(t, "ep_ok.md"))
	if err != nil {
		t.Fatal(err)
	}
	var vers []string
	for _, b := range f.Builds {
		vers = append(vers, b.Version+"/"+b.Variant+"/"+b.Platform)
	}
	// 1.15/1.16 give Windows its own cuDNN: a Linux and a Windows build.
	if want := []string{"1.15.0/cuda11/linux", "1.15.0/cuda11/windows", "1.16.0/cuda11/linux", "1.16.0/cuda11/windows", "1.5.0/cuda10/", "1.6.0/cuda10/"}; !reflect.DeepEqual(vers, want) {
		t.Errorf("builds = %v, want %v", vers, want)
	}
	var win string
	for _, a := range f.Attributes {
		if a.Version == "1.15.0" && a.Key == "cudnn_windows@cuda11" {
			win = a.Value
		}
	}
	if win != "8.5.0.96" {
		t.Errorf("windows cuDNN = %q", win)
	}
	g, err := Source{}.Normalize(records(t, "ep_garbage.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Builds) != 4 || len(g.Conflicts) != 1 || g.Conflicts[0].Field != "refused" {
		t.Errorf("garbage: builds %d, conflicts %v", len(g.Builds), g.Conflicts)
	}
}

func TestExpandVersions(t *testing.T) {
	for cell, want := range map[string][]string{"1.17 - 1.15": {"1.15.0", "1.16.0", "1.17.0"}, "1.20.x": {"1.20.0"}, "1.24.0 / 1.24.3": {"1.24.0", "1.24.3"}, "1.14\n1.13.1": {"1.14.0", "1.13.1"}} {
		got, err := ExpandVersions(cell)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ExpandVersions(%q) = %v, %v", cell, got, err)
		}
	}
	for _, bad := range []string{"", "one", "1.0-2.0", "1.0-1.99"} {
		if _, err := ExpandVersions(bad); err == nil {
			t.Errorf("ExpandVersions(%q): expected an error", bad)
		}
	}
}

func TestSnapshot(t *testing.T) {
	dir := sourcestest.Dir(t)
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	reqs := map[string]string{}
	for _, r := range f.Requirements {
		reqs[r.Build.String()+"/"+r.Needs+"/"+r.Kind] = r.Spec
	}
	// Every row of the official table, each version of a multi-version
	// cell, is a build with the row's CUDA and Linux cuDNN.
	for _, r := range recs {
		if r.Table != tableDoc {
			continue
		}
		vers, err := ExpandVersions(r.Fields["versions"])
		if err != nil {
			t.Fatal(err)
		}
		linux, win := cudnnOf(r.Fields["cudnn"])
		for _, v := range vers {
			k := "onnxruntime-gpu==" + v + " cuda" + strings.Split(r.Fields["cuda"], ".")[0]
			if win != linux {
				// Windows has its own cuDNN: two builds, one per platform.
				if reqs[k+" windows/cudnn/tested"] != win {
					t.Errorf("%s windows: cuDNN %q, row says %q", k, reqs[k+" windows/cudnn/tested"], win)
				}
				k += " linux"
			}
			if reqs[k+"/cuda/tested"] != r.Fields["cuda"] || reqs[k+"/cudnn/tested"] != linux {
				t.Errorf("%s: %q/%q, row says %q/%q", k, reqs[k+"/cuda/tested"], reqs[k+"/cudnn/tested"], r.Fields["cuda"], linux)
			}
		}
	}
	for k, want := range map[string]string{
		// From 1.18 on every build is one per platform (PR #27760: Linux
		// x86_64 and Windows wheels), each with the row's requirements.
		"onnxruntime-gpu==1.18.1 cuda12 linux/cudnn/tested":          "9",
		"onnxruntime-gpu==1.18.1 cuda12 windows/cudnn/tested":        "9",
		"onnxruntime-gpu==1.18.1 cuda11 linux/cudnn/tested":          "8",
		"onnxruntime-gpu==1.17.0 cuda12/cudnn/tested":                "8.9.2.26",
		"onnxruntime-gpu==1.21.0 cuda12 linux/nvidia-cudnn-cu12/pin": "~=9.0",
		"onnxruntime-gpu==1.22.0 cuda12 linux/nvidia-cufft-cu12/pin": ">=11.0,<12.0",
		"onnxruntime-gpu==1.27.0 cuda13 linux/cuda/tested":           "13",
		"onnxruntime-gpu==1.25.0 cuda13 linux-aarch64/cuda/tested":   "13.1.1",
		// The CUDA 13 builds' cuDNN major (darktable's manifest, PR #26516).
		"onnxruntime-gpu==1.28.0 cuda13 windows/cudnn/tested": "9",
		// Releases no table names: PyPI's CUDA 13 build (darktable#21533),
		// the platforms of PyPI's wheels where they cover Linux and Windows.
		"onnxruntime-gpu==1.30.0 cuda13 linux-aarch64/cuda/tested": "13",
		"onnxruntime-gpu==1.29.0 cuda13/cudnn/tested":              "9",
		"onnxruntime-gpu==1.31.1 cuda13/cuda/tested":               "13",
	} {
		if reqs[k] != want {
			t.Errorf("%s = %q, want %q", k, reqs[k], want)
		}
	}
	py := map[string]string{}
	for _, b := range f.Builds {
		py[b.Version+" "+b.Variant+" "+b.Platform] = b.PythonMin + "-" + b.PythonMax
	}
	// PR #27760: the CUDA 13 pipeline's Python configs, 3.11–3.14.
	if py["1.28.0 cuda13 linux"] != "3.11-3.14" || py["1.28.0 cuda12 linux"] != "-" || py["1.30.0 cuda13 linux"] != "-" {
		t.Errorf("Python ranges: 1.28.0 cuda13 %q, cuda12 %q, 1.30.0 cuda13 %q", py["1.28.0 cuda13 linux"], py["1.28.0 cuda12 linux"], py["1.30.0 cuda13 linux"])
	}
	def := map[string]string{}
	for _, b := range f.Builds {
		if b.IsDefault {
			def[b.Version] = b.Variant
		}
	}
	for v, want := range map[string]string{"1.20.0": "cuda12", "1.24.0": "cuda12", "1.26.0": "cuda12", "1.27.0": "cuda13", "1.28.0": "cuda13", "1.31.1": "cuda13", "1.17.0": "cuda11"} {
		if def[v] != want {
			t.Errorf("PyPI's build of %s = %q, want %q", v, def[v], want)
		}
	}
	refused := 0
	for _, c := range f.Conflicts {
		if c.Field == "refused" {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("refused rows = %d, want 3 (proposed 1.18 row, 1.19 zip packages, 1.24 dev)", refused)
	}
}

func FuzzRequirementRows(f *testing.F) {
	for _, n := range []string{"ep_ok.md", "ep_moved.md", "ep_garbage.md", "ep_empty.md"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		rows, err := RequirementRows(b)
		if err != nil {
			return
		}
		var recs []scraper.Record
		for i, r := range rows {
			recs = append(recs, scraper.Record{Table: tableDoc, Key: string(rune('a' + i%26)), Ref: "f line 1",
				Fields: map[string]string{"versions": r.Versions, "cuda": r.CUDA, "cudnn": r.CUDNN, "notes": r.Notes}})
		}
		Source{}.Normalize(recs)
	})
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
