package cudaarch

import (
	"context"
	"testing"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc/nvtest"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func live(file string) ([]scraper.Record, error) {
	s := &Source{PageURL: "http://fixture/am"}
	return s.Scrape(context.Background(), scraper.Input{Fetcher: nvtest.Files{"http://fixture/am": "testdata/" + file}})
}

func TestLivePage(t *testing.T) {
	recs, err := live("arch-matrix.html")
	if err != nil {
		t.Fatal(err)
	}
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range f.CUDAArches {
		got[a.CUDA] = a.Added
	}
	want := map[string]string{"12.8": "sm_100;sm_120", "11.8": "sm_90", "11.0": "sm_80;sm_86", "9.0": "sm_70"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: added %q, want %q (all %v)", k, got[k], v, got)
		}
	}
	if len(f.Conflicts) != 1 {
		t.Errorf("garbage row should be refused: %+v", f.Conflicts)
	}
}

func TestLiveSad(t *testing.T) {
	for _, file := range []string{"sad-no-table.html", "sad-empty.html"} {
		if _, err := live(file); err == nil {
			t.Errorf("%s: want an error", file)
		}
	}
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte("<table><tr><th>CUDA Capability</th><th>First CUDA Toolkit Support</th></tr><tr><td>8.0 8.6</td><td>CUDA 11.0</td></tr></table>"))
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
	f, _ := New().Normalize(recs)
	for _, a := range f.CUDAArches {
		if a.CUDA == "12.4" && (a.SMMin != "sm_50" || a.SMMax != "sm_90a") {
			t.Errorf("12.4: %+v", a)
		}
	}
	if len(f.CUDAArches) != 32 {
		t.Errorf("want 32 toolkit minors, got %d", len(f.CUDAArches))
	}
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
