package onnxruntime

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
)

func TestStatementsCaptureParses(t *testing.T) {
	b, err := captures.ReadFile("captures/" + capStatements)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseStatements(b, capStatements)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range recs {
		kinds[r.Fields["kind"]]++
		if r.URL == "" {
			t.Errorf("%s cites no address", r.Key)
		}
	}
	if kinds["platforms"] == 0 || kinds["pypi-cuda"] != 2 || kinds["cudnn"] == 0 || kinds["wheel"] < 10 || kinds["release"] != 3 || kinds["python"] != 1 {
		t.Errorf("kinds = %v", kinds)
	}
}

// A fact its section's quotes do not state is refused: every fact must be
// traceable to a quote.
func TestStatementsRefuseUnquotedFacts(t *testing.T) {
	for name, c := range map[string]struct{ text, why string }{
		"platform not quoted": {"## https://example.org/a\n> ships x86_64 wheels\nplatforms: 1.0.0..1.1.0 | linux windows\n", "names platform windows"},
		"cuda not quoted":     {"## https://example.org/a\n> built with CUDA 12\npypi-cuda: 1.27.0.. | 13\n", `says "CUDA 13"`},
		"cudnn not quoted":    {"## https://example.org/a\n> cuDNN 8 only\ncudnn: 1.24.0.. | cuda13 | 9\n", `says "cuDNN 9"`},
		"wheel not quoted":    {"## https://example.org/a\n> nothing\nwheel: https://files.pythonhosted.org/packages/87/7b/764082683bbc3b3351a3864ffb87be11aa13642913f78569fa72b934e319/onnxruntime_gpu-1.29.0-cp312-cp312-manylinux_2_28_x86_64.whl\n", "holds the address"},
		"not a wheel":         {"## https://example.org/a\n> x\nwheel: https://example.org/onnxruntime_gpu-1.29.0.tar.gz\n", "not an onnxruntime-gpu wheel"},
		"release not quoted":  {"## https://example.org/a\n> 1.30.0\nrelease: 1.31.0\n", "names 1.31.0"},
		"outside a section":   {"release: 1.31.0\n", "outside a section"},
		"bad span":            {"## https://example.org/a\n> x86_64\nplatforms: 1.0..1.1 | linux\n", "not a span"},
		"python not quoted":   {"## https://example.org/a\n> Python 3.10–3.13\npython: 1.24.0..1.28.0 | cuda13 | 3.11-3.14\n", "says 3.11–3.14"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseStatements([]byte(c.text), "s.md")
			if err == nil || !strings.Contains(err.Error(), c.why) {
				t.Errorf("error %v, want one saying %q", err, c.why)
			}
		})
	}
}

func TestParseWheelURL(t *testing.T) {
	w, ok := ParseWheelURL("https://files.pythonhosted.org/packages/d1/1b/a634783c2455cca7c66261dc4e3e16f4058047b79679925737a30dd4c76e/onnxruntime_gpu-1.28.0-cp311-cp311-win_amd64.whl")
	if !ok || w.Version != "1.28.0" || w.PythonTag != "cp311" || w.Platform != "windows" {
		t.Errorf("got %+v %v", w, ok)
	}
}

func FuzzParseStatements(f *testing.F) {
	b, _ := captures.ReadFile("captures/" + capStatements)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		recs, err := ParseStatements(b, "f.md")
		if err != nil {
			return
		}
		Source{}.Normalize(append(recs, scraperDocRow()))
	})
}

func scraperDocRow() scraper.Record {
	return scraper.Record{Table: tableDoc, Key: "a", Ref: "f line 1", Fields: map[string]string{"versions": "1.28", "cuda": "13.0", "cudnn": "", "notes": ""}}
}
