package gpus

import (
	"context"
	"reflect"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc/nvtest"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func live(t *testing.T, file string) ([]scraper.Record, error) {
	s := &Source{Pages: []string{"http://fixture/gpus"}}
	return s.Scrape(context.Background(), scraper.Input{Fetcher: nvtest.Files{"http://fixture/gpus": "testdata/" + file}})
}

func byName(f *db.Facts) map[string]db.GPU {
	m := map[string]db.GPU{}
	for _, g := range f.GPUs {
		m[g.Name] = g
	}
	return m
}

func TestLivePage(t *testing.T) {
	recs, err := live(t, "cuda-gpus.html")
	if err != nil {
		t.Fatal(err)
	}
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	g := byName(f)
	if len(g) != 12 {
		t.Errorf("want 12 GPUs split on element boundaries, got %d: %v", len(g), g)
	}
	for name, want := range map[string][3]string{
		"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition": {"12.0", "Blackwell", "workstation"},
		"GeForce RTX 5090": {"12.0", "Blackwell", "geforce"},
		"NVIDIA L40S":      {"8.9", "Ada Lovelace", "datacenter"},
		"Jetson Orin Nano": {"8.7", "Ampere", "jetson"},
		"Tesla T4":         {"7.5", "Turing", "datacenter"},
	} {
		x := g[name]
		if got := [3]string{x.ComputeCapability, x.Architecture, x.Segment}; got != want {
			t.Errorf("%s: got %v want %v", name, got, want)
		}
	}
	if len(f.Conflicts) != 1 {
		t.Errorf("the N/A row should be refused: %+v", f.Conflicts)
	}
}

func TestLiveSad(t *testing.T) {
	for _, file := range []string{"sad-no-table.html", "sad-empty.html"} {
		if _, err := live(t, file); err == nil {
			t.Errorf("%s: want an error", file)
		}
	}
}

func TestAliases(t *testing.T) {
	for name, want := range map[string][]string{
		"Tesla T4":                {"T4", "NVIDIA T4", "NVIDIA Tesla T4"},
		"GeForce RTX 4090":        {"RTX 4090", "NVIDIA RTX 4090", "NVIDIA GeForce RTX 4090"},
		"NVIDIA H100":             {"H100"},
		"NVIDIA GB10 (DGX Spark)": {"NVIDIA GB10", "DGX Spark", "GB10"},
		"Tesla C2050/C2070":       {"Tesla C2050", "Tesla C2070", "C2050", "NVIDIA C2050", "NVIDIA Tesla C2050", "C2070", "NVIDIA C2070", "NVIDIA Tesla C2070"},
	} {
		if got := Aliases(name); !reflect.DeepEqual(got, want) {
			t.Errorf("Aliases(%q) = %q, want %q", name, got, want)
		}
	}
}

func FuzzParsePage(f *testing.F) {
	f.Add([]byte("<table><tr><th>Compute Capability</th><th>Jetson</th></tr><tr><td>8.7</td><td>A<br>B</td></tr></table>"))
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
	f, err := New().Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.GPUs) < 200 {
		t.Errorf("want >= 200 GPUs, got %d", len(f.GPUs))
	}
	if g := byName(f)["NVIDIA T4"]; g.ComputeCapability != "7.5" || !reflect.DeepEqual(g.Aliases, []string{"T4"}) {
		t.Errorf("NVIDIA T4: %+v", g)
	}
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
