package driverbranch

import (
	"context"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc/nvtest"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func live(file string) ([]scraper.Record, error) {
	s := &Source{PageURL: "http://fixture/sd"}
	return s.Scrape(context.Background(), scraper.Input{Fetcher: nvtest.Files{"http://fixture/sd": "testdata/" + file}})
}

func TestLivePage(t *testing.T) {
	recs, err := live("supported-drivers.html")
	if err != nil {
		t.Fatal(err)
	}
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]db.DriverBranch{}
	for _, b := range f.DriverBranches {
		got[b.Branch] = b
	}
	if b := got["535"]; b.MaxCUDA != "12" || b.EndOfLife != "June 2026" || b.BranchType != "Long Term Support Branch" {
		t.Errorf("R535: %+v", b)
	}
	if b := got["610"]; b.MaxCUDA != "13" || b.BranchType != "New Feature Branch" {
		t.Errorf("R610: %+v", b)
	}
}

func TestLiveSad(t *testing.T) {
	for _, file := range []string{"sad-no-table.html", "sad-empty.html", "sad-empty-table.html"} {
		if _, err := live(file); err == nil {
			t.Errorf("%s: want an error", file)
		}
	}
	f, _ := New().Normalize([]scraper.Record{{Table: TableBranches, Key: "x", Fields: map[string]string{"branch": "banana"}}})
	if len(f.Conflicts) != 1 || len(f.DriverBranches) != 0 {
		t.Errorf("garbage branch: %+v", f)
	}
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte("<table><caption>CUDA and Drivers</caption><tr><th></th><th>R535</th></tr><tr><td>End of Life</td><td>June 2026</td></tr></table>"))
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
	for _, b := range f.DriverBranches {
		if b.Branch == "535" && b.MaxCUDA != "12.2" {
			t.Errorf("R535: %+v", b)
		}
		if b.Branch == "580" && b.EndOfLife != "August 2028" {
			t.Errorf("R580: %+v", b)
		}
	}
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
