package cudadriver

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func parseFixture(t *testing.T, file string) []scraper.Record {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseText(b, "")
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func normalize(t *testing.T, recs []scraper.Record) *db.Facts {
	t.Helper()
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

type floor struct{ cuda, os, kind, min string }

func checkFloors(t *testing.T, f *db.Facts, want []floor) {
	t.Helper()
	for _, w := range want {
		c, ok := find(f, w.cuda, w.os, w.kind)
		if !ok || c.MinDriver != w.min {
			t.Errorf("%s %s %s: got %+v (found %v), want %s", w.cuda, w.os, w.kind, c, ok, w.min)
		}
	}
}

// TestTextDump reads Table 2 and Table 3 of the 13.2.2 notes from the
// line-numbered text rendering: every row of Table 3 (64) and Table 2 (3),
// each cited to NVIDIA's page and the line it was printed on.
func TestTextDump(t *testing.T) {
	recs := parseFixture(t, "release-notes-13.2.2-sec2.2.txt")
	var toolkit, compat int
	for _, r := range recs {
		if r.URL != "https://docs.nvidia.com/cuda/archive/13.2.2/cuda-toolkit-release-notes/index.html" {
			t.Errorf("%s/%s cites %q", r.Table, r.Key, r.URL)
		}
		switch r.Table {
		case TableToolkit:
			toolkit++
		case TableMinorCompat:
			compat++
		}
	}
	if toolkit != 64 || compat != 3 {
		t.Errorf("read %d Table 3 rows and %d Table 2 rows, want 64 and 3", toolkit, compat)
	}
	f := normalize(t, recs)
	checkFloors(t, f, []floor{
		{"13.2.2", "linux", "toolkit", "595.71.05"},
		{"13.1.0", "linux", "toolkit", "590.44.01"},
		{"12.8.0", "windows", "toolkit", "570.65"},
		{"11.0.3", "linux", "toolkit", "450.51.06"}, // ">= " with a space
		{"10.1.105", "windows", "toolkit", "418.96"},
		{"9.2.148", "windows", "toolkit", "398.26"},
		{"7.0.28", "linux", "toolkit", "346.46"},
		{"13", "linux", "minor_compat", "580"},
		{"12", "linux", "minor_compat", "525"},
		{"11", "linux", "minor_compat", "450"},
	})
	if _, ok := find(f, "13.2.2", "windows", "toolkit"); ok {
		t.Error("the N/A Windows cell became a floor")
	}
	if _, ok := find(f, "13", "windows", "minor_compat"); ok {
		t.Error("the Max column was read as a Windows floor")
	}
	c, _ := find(f, "13.2.2", "linux", "toolkit")
	if c.Label != "CUDA 13.2 Update 2" || c.Provenance.Ref != "Table: "+captionToolkit+" (text line 113)" {
		t.Errorf("13.2.2 is labelled %q and cited %q", c.Label, c.Provenance.Ref)
	}
	if len(f.Conflicts) != 0 {
		t.Errorf("NVIDIA's own table refused rows: %+v", f.Conflicts)
	}
}

// TestTextMarkdown reads the one-cell-a-line markdown rendering of the
// 13.1.0 notes (no captions; the tables are told apart by their header).
func TestTextMarkdown(t *testing.T) {
	recs := parseFixture(t, "release-notes-13.1.0-sec2.2.md")
	f := normalize(t, recs)
	checkFloors(t, f, []floor{
		{"13.1.0", "linux", "toolkit", "590.44.01"}, // printed "CUDA 13.1", no "GA"
		{"12.9.0", "windows", "toolkit", "576.02"},
		{"11.0.1", "windows", "toolkit", "451.22"},
		{"8.0.44", "windows", "toolkit", "369.30"},
		{"12", "linux", "minor_compat", "525"},
	})
	if len(f.CUDADrivers) != 2*20-4+3 { // 20 rows, the four 13.x rows N/A on Windows, three Table 2 floors
		t.Errorf("%d floors: %+v", len(f.CUDADrivers), f.CUDADrivers)
	}
	if len(f.Conflicts) != 0 {
		t.Errorf("conflicts: %+v", f.Conflicts)
	}
}

// TestTextEditions: two editions of Table 3 read together give one row per
// toolkit, the newest edition's, whatever order the records come in (the
// refresh stores records sorted by key); a value an older edition prints
// differently is a conflict.
func TestTextEditions(t *testing.T) {
	recs := append(parseFixture(t, "release-notes-13.1.0-sec2.2.md"), parseFixture(t, "release-notes-13.2.2-sec2.2.txt")...)
	for i := range recs {
		recs[i].Key = editionOf(recs[i].URL) + ": " + recs[i].Key
	}
	rev := make([]scraper.Record, len(recs))
	for i, r := range recs {
		rev[len(recs)-1-i] = r
	}
	for _, in := range [][]scraper.Record{recs, rev} {
		f := normalize(t, in)
		c, _ := find(f, "13.1.0", "linux", "toolkit")
		if c.Label != "CUDA 13.1 GA" || !strings.Contains(c.Provenance.URL, "/13.2.2/") {
			t.Errorf("13.1.0 should come from the 13.2.2 edition: %+v", c)
		}
		if len(f.Conflicts) != 0 {
			t.Errorf("the two editions agree on every row, got %+v", f.Conflicts)
		}
	}
	// An older edition that printed another floor (as the 11.1-era
	// table did for 11.1.0) is kept as a conflict, not a second fact.
	var old []scraper.Record
	for _, r := range recs {
		if strings.Contains(r.URL, "/13.1.0/") && r.Fields["row_text"] == "CUDA 11.0.3 Update 1" {
			r.Fields = map[string]string{"row_text": r.Fields["row_text"], "linux": ">= 450.51.05", "windows": r.Fields["windows"]}
		}
		old = append(old, r)
	}
	f := normalize(t, old)
	checkFloors(t, f, []floor{{"11.0.3", "linux", "toolkit", "450.51.06"}})
	if len(f.Conflicts) != 1 || f.Conflicts[0].Kept != "450.51.06" || f.Conflicts[0].Other != "450.51.05" {
		t.Errorf("want one conflict keeping the newest edition: %+v", f.Conflicts)
	}
}

// TestSnapshotPrecedence runs the snapshot mode `make data` uses: NVIDIA's
// text first, the CSV filling what the text does not show.
func TestSnapshotPrecedence(t *testing.T) {
	dir := sourcestest.Dir(t)
	sourcestest.File(t, "nvidia/"+CSVFile)
	recs, err := New().Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := normalize(t, recs)
	page := func(cuda, os, kind string) {
		t.Helper()
		c, ok := find(f, cuda, os, kind)
		if !ok || !strings.HasPrefix(c.Provenance.URL, "https://docs.nvidia.com/cuda/archive/") || !strings.Contains(c.Provenance.Ref, "text line") {
			t.Errorf("%s %s %s should be cited to NVIDIA's text: %+v", cuda, os, kind, c)
		}
	}
	page("13.2.2", "linux", "toolkit")
	page("9.2.148", "windows", "toolkit")
	page("13", "linux", "minor_compat")
	// Rows and fields the pages do not show come from the CSV.
	// Table 2 prints the 12.x floor as the branch (">= 525"); the CSV's
	// 525.60.13 lies in it and is kept.
	for _, w := range []floor{{"13.3.1", "linux", "toolkit", "610.43.02"},
		{"12", "windows", "minor_compat", "527.41"}, {"12", "linux", "minor_compat", "525.60.13"}} {
		c, ok := find(f, w.cuda, w.os, w.kind)
		if !ok || c.MinDriver != w.min || c.Provenance.Ref == "" || strings.Contains(c.Provenance.Ref, "text line") {
			t.Errorf("%s %s %s: want %s from the CSV, got %+v", w.cuda, w.os, w.kind, w.min, c)
		}
	}
	var date string
	for _, r := range f.Releases {
		if r.Component == "cuda" && r.Version == "13.2.2" {
			date = r.ReleasedOn
		}
	}
	if date != "2026-07" {
		t.Errorf("13.2.2's release date (from the CSV) = %q", date)
	}
	// A CSV value that disagrees with NVIDIA's table is a conflict, and
	// NVIDIA's value stays.
	for i, r := range recs {
		if r.Table == nvsrc.TableCSV && r.Key == "12.4.0" {
			fields := map[string]string{}
			for k, v := range r.Fields {
				fields[k] = v
			}
			fields["min_linux_driver"] = "550.54.99"
			recs[i].Fields = fields
		}
	}
	f = normalize(t, recs)
	checkFloors(t, f, []floor{{"12.4.0", "linux", "toolkit", "550.54.14"}})
	found := false
	for _, c := range f.Conflicts {
		if c.Subject == "cuda_driver 12.4.0 linux" && c.Kept == "550.54.14" && c.Other == "550.54.99" && strings.Contains(c.KeptSource, "docs.nvidia.com") {
			found = true
		}
	}
	if !found {
		t.Errorf("no conflict for the CSV's 12.4.0 Linux floor: %+v", f.Conflicts)
	}
}

func TestTextSad(t *testing.T) {
	for name, in := range map[string]string{
		"no origin":   "L1: CUDA Toolkit | Toolkit Driver Version\nL2: --- | ---\n",
		"no table":    "Origin page : https://docs.nvidia.com/x\nL1: nothing here\n",
		"only header": "Origin page : https://docs.nvidia.com/x\nL1: CUDA Toolkit | Toolkit Driver Version\nL2: --- | ---\nL3:  | Linux | Windows\n",
	} {
		if _, err := ParseText([]byte(in), ""); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func FuzzParseText(f *testing.F) {
	for _, file := range []string{"release-notes-13.2.2-sec2.2.txt", "release-notes-13.1.0-sec2.2.md"} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("Origin page : http://u\n|\n|---|\nx |\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		recs, err := ParseText(b, "")
		if err == nil {
			New().Normalize(recs)
		}
	})
}
