package cudnn

import (
	"context"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc/nvtest"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func live(t *testing.T, file string) ([]scraper.Record, error) {
	t.Helper()
	s := &Source{PageURL: "http://fixture/sm"}
	return s.Scrape(context.Background(), scraper.Input{Fetcher: nvtest.Files{"http://fixture/sm": "testdata/" + file}})
}

func TestLivePage(t *testing.T) {
	recs, err := live(t, "support-matrix-9.10.2.html")
	if err != nil {
		t.Fatal(err)
	}
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.CUDNN) != 4 || len(f.Conflicts) != 0 {
		t.Fatalf("got %d rows, conflicts %+v", len(f.CUDNN), f.Conflicts)
	}
	want := map[string]db.CUDNNSupport{
		"12.9;12.8": {CUDNN: "9.10.2", CUDAMajor: "12", CUDAMin: "12.8", CUDAMax: "12.9", MinDriverLinux: "570.26", MinDriverWindows: "570.65", CCList: "12.0;10.0;9.0;8.0;7.5;5.0"},
		"12.6;12.0": {CUDNN: "9.10.2", CUDAMajor: "12", CUDAMin: "12.0", CUDAMax: "12.6", MinDriverLinux: "525.60.13", MinDriverWindows: "527.41", CCList: "9.0;8.9;5.0"},
		"11.8":      {CUDNN: "9.10.2", CUDAMajor: "11", CUDAMin: "11.8", CUDAMax: "11.8", MinDriverLinux: "450.80.02", MinDriverWindows: "452.39", CCList: "9.0;5.0"},
		"13.0":      {CUDNN: "9.10.2", CUDAMajor: "13", CUDAMin: "13.0", CUDAMax: "13.0", MinDriverLinux: "580.65.06", CCList: "12.0;7.5"},
	}
	for _, c := range f.CUDNN {
		w := want[c.CUDAVersions]
		w.CUDAVersions = c.CUDAVersions
		w.Provenance = c.Provenance
		if c != w {
			t.Errorf("got %+v\nwant %+v", c, w)
		}
	}
}

func TestLiveSad(t *testing.T) {
	for _, file := range []string{"sad-no-table.html", "sad-headers-lost.html"} {
		if _, err := live(t, file); err == nil {
			t.Errorf("%s: want an error", file)
		}
	}
	recs, err := live(t, "sad-garbage.html")
	if err != nil {
		t.Fatal(err)
	}
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.CUDNN) != 0 || len(f.Conflicts) != 3 {
		t.Errorf("want 3 refused rows and no facts, got %+v / %+v", f.CUDNN, f.Conflicts)
	}
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte("<table><thead><tr><th>cuDNN Package</th><th>CUDA Toolkit Version</th><th>Linux</th></tr></thead><tr><td>cuDNN 9.1.0 for CUDA 12.x</td><td><ul><li>12.4 [3]</li></ul></td><td>&gt;= 1</td></tr></table>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		if recs, err := ParsePage(b, "u"); err == nil {
			New().Normalize(recs)
		}
	})
}

func TestSnapshotEveryRow(t *testing.T) {
	dir := sourcestest.Dir(t)
	sourcestest.File(t, "nvidia/"+CSVFile)
	recs, err := New().Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatal(err)
	}
	c := nvtest.CheckEveryRowLands(t, New(), recs)
	t.Logf("%+v", c)
	if c.Rows < 90 {
		t.Errorf("only %d rows", c.Rows)
	}
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]db.CUDNNSupport{}
	for _, r := range f.CUDNN {
		got[r.CUDNN+" "+r.CUDAMajor+" "+r.CUDAVersions] = r
	}
	if r := got["7.6.3 10 10.1.243"]; r.MinDriverLinux != "418.39" {
		t.Errorf("r418.39 branch notation: %+v", r)
	}
	// A manifest-only row is a known release (with its date and CUDA
	// majors), never an all-blank support row.
	if _, blank := got["9.27.0 13 "]; blank {
		t.Error("manifest-only 9.27.0 became a blank support row")
	}
	var rel string
	for _, r := range f.Releases {
		if r.Component == "cudnn" && r.Version == "9.27.0" {
			rel = r.ReleasedOn
		}
	}
	if rel == "" {
		t.Errorf("manifest-only 9.27.0 should be a release with its date: %+v", f.Releases)
	}
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
