package onnxruntime

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/sourcestest"
)

const feed12 = "https://aiinfra.pkgs.visualstudio.com/PublicPackages/_packaging/onnxruntime-cuda-12/pypi/simple/"

func TestInstallSections(t *testing.T) {
	secs, err := InstallSections(read(t, "install_ok.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 2 {
		t.Fatalf("sections = %+v, want CUDA 11.x and CUDA 12.x", secs)
	}
	if s := secs[0]; s.CUDAMajor != "11" || s.Index != "" || s.Command != "pip install onnxruntime-gpu" || !strings.Contains(s.Text, "default CUDA version for ORT is 11.8") {
		t.Errorf("CUDA 11.x = %+v", s)
	}
	if s := secs[1]; s.CUDAMajor != "12" || s.Index != feed12 || s.Option != "extra-index-url" {
		t.Errorf("CUDA 12.x = %+v", s)
	}
	for _, bad := range []string{"install_no_command.md", "ep_ok.md"} {
		if _, err := InstallSections(read(t, bad)); err == nil {
			t.Errorf("%s: expected an error", bad)
		}
	}
	for args, want := range map[string]string{
		"pip install onnxruntime-gpu -i https://x/simple":            "https://x/simple index-url",
		"pip install onnxruntime-gpu --index-url=https://y/simple":   "https://y/simple index-url",
		"pip install onnxruntime-gpu --extra-index-url https://z/s/": "https://z/s/ extra-index-url",
		"pip install onnxruntime-gpu":                                " ",
	} {
		u, o := indexOf(strings.Fields(args))
		if u+" "+o != want {
			t.Errorf("indexOf(%q) = %q %q, want %q", args, u, o, want)
		}
	}
}

// pypiFacts is, per build, whether PyPI serves it and the index it
// comes from otherwise.
func pypiFacts(f *db.Facts) map[string]string {
	out := map[string]string{}
	for _, b := range f.Builds {
		v := "index=" + b.IndexURL
		if b.IsDefault {
			v = "pypi"
		}
		out[b.Version+" "+b.Variant+" "+b.Platform] = v
	}
	return out
}

// The captured pages alone (no shared snapshots needed): which build
// PyPI serves, and the CUDA 12 feed of 1.17–1.18.x.
func TestPyPIDefaultAndFeedFromCaptures(t *testing.T) {
	page, err := capturedPage()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := scrapeInstall(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The 2023 table's 1.17 row (CUDA 11.8) beside the captured rows.
	doc := scraper.Record{Table: tableDoc, Key: "Requirements/1.17", Ref: "t line 3",
		Fields: map[string]string{"versions": "1.17\n1.16", "cuda": "11.8", "cudnn": "8.2.4", "notes": ""}}
	cuda12 := scraper.Record{Table: tableCSV, Key: "1.17/12.2", Ref: "c line 2",
		Fields: map[string]string{"ort_version": "1.17 (CUDA 12 build)", "cuda": "12.2", "cudnn_linux": "8.9.2.26", "evidence_type": "official PR diff"}}
	f, err := Source{}.Normalize(append(append(append(page, inst...), doc), cuda12))
	if err != nil {
		t.Fatal(err)
	}
	got := pypiFacts(f)
	for k, want := range map[string]string{
		"1.16.0 cuda11 ": "index=", // one build: nothing to choose between
		"1.17.0 cuda11 ": "pypi",   // the install page: CUDA 11.x is plain pip
		"1.17.0 cuda12 ": "index=" + feed12,
		"1.18.0 cuda11 ": "pypi", // "1.18.x … Available in PyPI."
		"1.18.0 cuda12 ": "index=" + feed12,
		"1.19.0 cuda12 ": "pypi", // "Avaiable in PyPI"
		"1.19.0 cuda11 ": "index=",
		"1.20.0 cuda12 ": "pypi",
		"1.20.0 cuda11 ": "index=",
	} {
		if got[k] != want {
			t.Errorf("%s: %q, want %q", k, got[k], want)
		}
	}
	cites := map[string]string{}
	for _, a := range f.Attributes {
		cites[a.Version+" "+a.Key] = a.Value + " — " + a.Ref
	}
	if c := cites["1.18.0 index_url@cuda12"]; !strings.Contains(c, feed12+" (pip --extra-index-url)") || !strings.Contains(c, "install-index.md@009fd8d line") {
		t.Errorf("1.18.0 feed citation = %q", c)
	}
	if c := cites["1.18.0 pypi_default@cuda11"]; !strings.Contains(c, "CUDA-ExecutionProvider.html@onnxruntime.ai line 25") {
		t.Errorf("1.18.0 PyPI-default citation = %q", c)
	}
	if c := cites["1.17.0 pypi_default@cuda11"]; !strings.Contains(c, "install-index.md@009fd8d line") {
		t.Errorf("1.17.0 PyPI-default citation = %q", c)
	}
}

// On the shared snapshots: the pages settle 1.17–1.20; from 1.19 on the
// statements (captures/statements.md) name PyPI's CUDA line (12 from 1.19,
// 13 from 1.27), and from 1.18 every build is one per platform.
func TestSnapshotPyPIDefaults(t *testing.T) {
	dir := sourcestest.Dir(t)
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := pypiFacts(f)
	for k, want := range map[string]string{
		"1.17.0 cuda11 linux":   "pypi",
		"1.17.0 cuda11 windows": "pypi",
		"1.17.0 cuda12 ":        "index=" + feed12,
		"1.18.0 cuda12 linux":   "index=" + feed12,
		"1.18.1 cuda11 windows": "pypi", // "1.18.x" covers 1.18.1 too
		"1.18.1 cuda12 linux":   "index=" + feed12,
		"1.19.0 cuda11 linux":   "index=",
		"1.19.0 cuda12 windows": "pypi",
		"1.24.0 cuda12 linux":   "pypi",
		"1.24.0 cuda13 linux":   "index=",
		"1.28.0 cuda13 linux":   "pypi",
		"1.28.0 cuda12 windows": "index=",
	} {
		if got[k] != want {
			t.Errorf("%s: %q, want %q", k, got[k], want)
		}
	}
}

func FuzzInstallSections(f *testing.F) {
	for _, n := range []string{"install_ok.md", "install_no_command.md"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		secs, err := InstallSections(b)
		if err != nil {
			return
		}
		var recs []scraper.Record
		for _, s := range secs {
			recs = append(recs, scraper.Record{Table: tableInstall, Key: "cuda" + s.CUDAMajor, Ref: "f line 1",
				Fields: map[string]string{"cuda_major": s.CUDAMajor, "command": s.Command, "index_url": s.Index, "index_option": s.Option, "text": s.Text}})
		}
		recs = append(recs, scraper.Record{Table: tableDoc, Key: "a", Ref: "f line 2",
			Fields: map[string]string{"versions": "1.17", "cuda": "11.8", "cudnn": "8.2.4", "notes": ""}})
		Source{}.Normalize(recs)
	})
}
