package pytorch

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

func TestDomainsLive(t *testing.T) {
	fe := fakeFetcher{visionDoc.live: "testdata/vision_README.md", audioDoc.live: "testdata/audio_installation.rst"}
	src := Domains{}
	recs, err := src.Scrape(context.Background(), scraper.Input{Fetcher: fe})
	if err != nil {
		t.Fatal(err)
	}
	if err := scraper.CheckUnique(recs); err != nil {
		t.Fatal(err)
	}
	f, err := src.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	attr := map[string]string{}
	for _, a := range f.Attributes {
		attr[a.Version+" "+a.Key] = a.Value
		if a.Source != "pytorch-domains" || !strings.HasPrefix(a.Ref, visionDoc.live+":") {
			t.Errorf("provenance %+v", a.Provenance)
		}
	}
	for k, want := range map[string]string{"2.3 torchvision": "0.18", "2.3 python_min": "3.8", "2.3 python_max": "3.12",
		"1.2 python_min": "2.7", "1.0 torchvision": "0.2", "1.11 python_max": "3.10"} {
		if attr[k] != want {
			t.Errorf("attribute %s = %q, want %q", k, attr[k], want)
		}
	}
	wide := func(v, needs string) string {
		for _, r := range f.Requirements {
			if r.Build == releaseKey(v) && r.Needs == needs && r.Kind == db.KindPaired {
				return r.Spec
			}
		}
		return ""
	}
	if got := wide("1.2.0", "torchvision"); got != "0.4.1" {
		t.Errorf("1.2.0 torchvision = %q (a full version in the minor's row)", got)
	}
	if got := wide("2.3.0", "torchvision"); got != "" {
		t.Errorf("a minor-only cell (0.18) must not become a release pair, got %q", got)
	}
	if got := wide("2.0.0", "torchaudio"); got != "2.0.1" {
		t.Errorf("2.0.0 torchaudio = %q", got)
	}
	// the list-table cell continued on a second line is read whole
	var py []db.Conflict
	for _, c := range f.Conflicts {
		if c.Field == "value" {
			py = append(py, c)
		}
	}
	if len(py) != 1 || py[0].Subject != "attribute torch 1.11 python_max" || py[0].Kept != "3.10" || !strings.HasPrefix(py[0].Other, "3.9") {
		t.Errorf("python conflicts = %+v", py)
	}
	if n := refused(f); n != 2 { // main / nightly rows of both tables
		t.Errorf("refused = %d, want 2", n)
	}
}

func TestDomainsSad(t *testing.T) {
	for name, fe := range map[string]fakeFetcher{
		"no vision table": {visionDoc.live: "testdata/empty.md", audioDoc.live: "testdata/audio_installation.rst"},
		"bad list-table":  {visionDoc.live: "testdata/vision_README.md", audioDoc.live: "testdata/audio_bad.rst"},
		"no audio table":  {visionDoc.live: "testdata/vision_README.md", audioDoc.live: "testdata/empty.md"},
		"404":             {visionDoc.live: "testdata/vision_README.md"},
	} {
		if _, err := (Domains{}).Scrape(context.Background(), scraper.Input{Fetcher: fe}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := (Domains{}).Normalize([]scraper.Record{{Table: "torchaudio", Key: "x", Fields: map[string]string{"torch": "x"}}}); err == nil {
		t.Error("normalize of nothing usable: no error")
	}
}

func FuzzListTable(f *testing.F) {
	for _, p := range []string{"testdata/audio_installation.rst", "testdata/audio_bad.rst"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(".. list-table::\n   :header-rows: -1\n   * - a\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		tables, err := readListTables(src)
		if err != nil {
			return
		}
		for _, tb := range tables {
			for _, r := range tb.Rows {
				if r.Line < 1 {
					t.Fatalf("row without a line: %+v", r)
				}
			}
		}
		_, _ = parseAudioTable(src, "fuzz")
	})
}
