package driverbranch

import (
	"context"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
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

// NVIDIA's release-620 table (text capture): R620 is a Long Term Support
// Branch ending September 2029; its facts fill the empty R620 and a
// different end of life for R580 is a conflict, not a replacement.
func TestCapturedTableText(t *testing.T) {
	b, err := captures.ReadFile("captures/supported-drivers@620.txt")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseTableText(b, "x.txt", "u")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[2].Fields["branch"] != "R620" || recs[2].Fields["branch_type"] != "Long Term Support Branch" ||
		recs[2].Fields["end_of_life"] != "September 2029" || recs[2].Fields["max_cuda_datacenter_doc"] != "CUDA 13" {
		t.Fatalf("records %+v", recs)
	}
	csv := []scraper.Record{{Table: nvsrc.TableCSV, Key: "R580", Fields: map[string]string{"branch": "R580", "branch_type": "Long Term Support Branch", "end_of_life": "August 2028"}}}
	f, err := New().Normalize(append(csv, recs...))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]db.DriverBranch{}
	for _, b := range f.DriverBranches {
		got[b.Branch] = b
	}
	if r := got["620"]; r.BranchType != "Long Term Support Branch" || r.EndOfLife != "September 2029" || r.MaxCUDA != "" {
		t.Errorf("R620 = %+v (the page names a CUDA major only: no maximum from it)", r)
	}
	if got["580"].EndOfLife != "August 2028" {
		t.Errorf("R580 = %+v, want the table row kept", got["580"])
	}
	conflict := false
	for _, c := range f.Conflicts {
		conflict = conflict || (c.Subject == "driver_branch 580" && c.Field == "end_of_life" && c.Other == "June 2028")
	}
	if !conflict {
		t.Errorf("no conflict for R580's end of life: %+v", f.Conflicts)
	}
	for _, bad := range []string{"no table here", "Table 2 CUDA and Drivers#\n\nnot a branch\n", "Table 2 CUDA and Drivers#\nR580\nR620\nEnd of Life\nJune 2028\n"} {
		if _, err := ParseTableText([]byte(bad), "x", "u"); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

func FuzzParseCaptures(f *testing.F) {
	for _, d := range captureDocs {
		b, err := captures.ReadFile("captures/" + d.file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		for _, d := range captureDocs {
			if recs, err := d.parse(b, d.file, d.url); err == nil {
				New().Normalize(recs)
			}
		}
	})
}
