package pytorch

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// fakeFetcher serves testdata files by URL; anything else is an error.
type fakeFetcher map[string]string

func (f fakeFetcher) Get(_ context.Context, url string) ([]byte, error) {
	p, ok := f[url]
	if !ok {
		return nil, errors.New("404 " + url)
	}
	return os.ReadFile(p)
}

func findBuild(f *db.Facts, v, variant, plat, channel string) *db.Build {
	for i, b := range f.Builds {
		if b.Version == v && b.Variant == variant && b.Platform == plat && b.Channel == channel {
			return &f.Builds[i]
		}
	}
	return nil
}

func findReq(f *db.Facts, v, variant, plat, channel, needs, kind string) string {
	for _, r := range f.Requirements {
		k := r.Build
		if k.Version == v && k.Variant == variant && k.Platform == plat && k.Channel == channel && r.Needs == needs && r.Kind == kind {
			return r.Spec
		}
	}
	return ""
}

func refused(f *db.Facts) int {
	n := 0
	for _, c := range f.Conflicts {
		if c.Field == "refused" {
			n++
		}
	}
	return n
}

func TestPreviousVersionsLive(t *testing.T) {
	fe := fakeFetcher{prevDoc.live: "testdata/previous-versions.md"}
	src := PreviousVersions{}
	recs, err := src.Scrape(context.Background(), scraper.Input{Fetcher: fe})
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	b := findBuild(f, "2.1.0", "cu121", "linux", "")
	if b == nil || !b.IsDefault || b.PipVersion != "2.1.0+cu121" || b.CUDA != "12.1" {
		t.Fatalf("cu121 linux build = %+v, want the PyPI default 2.1.0+cu121", b)
	}
	if w := findBuild(f, "2.1.0", "cu121", "windows", ""); w == nil || w.IsDefault {
		t.Errorf("cu121 windows build = %+v, want a non-default build", w)
	}
	if findBuild(f, "2.1.0", "rocm5.6", "windows", "") != nil {
		t.Error("ROCm is Linux only")
	}
	if m := findBuild(f, "2.1.0", "cpu", "macos", ""); m == nil || !m.IsDefault {
		t.Errorf("macos build = %+v", m)
	}
	if got := findReq(f, "2.1.0", "rocm5.6", "linux", "", "torchvision", db.KindPaired); got != "0.16.0" {
		t.Errorf("torchvision pairing = %q", got)
	}
	if refused(f) != 1 {
		t.Errorf("want the garbage version section refused once, conflicts: %+v", f.Conflicts)
	}
}

func TestMarkdownSourcesSad(t *testing.T) {
	for _, tc := range []struct {
		src scraper.Source
		url string
	}{
		{PreviousVersions{}, prevDoc.live},
		{ReleaseMD{}, releaseDoc.live},
	} {
		_, err := tc.src.Scrape(context.Background(), scraper.Input{Fetcher: fakeFetcher{tc.url: "testdata/empty.md"}})
		if err == nil {
			t.Errorf("%s: scraping a page without its table succeeded", tc.src.Name())
		}
		if _, err := tc.src.Scrape(context.Background(), scraper.Input{Fetcher: fakeFetcher{}}); err == nil {
			t.Errorf("%s: a failed fetch did not fail the scrape", tc.src.Name())
		}
	}
	for _, s := range []scraper.Source{Lockfiles{}, BuildMatrix{}} {
		_, err := s.Scrape(context.Background(), scraper.Input{Fetcher: fakeFetcher{}})
		if err == nil || !strings.Contains(err.Error(), "failed to fetch") {
			t.Errorf("%s live with nothing served: err = %v, want a fetch failure", s.Name(), err)
		}
	}
}

func TestReleaseMDLive(t *testing.T) {
	src := ReleaseMD{}
	recs, err := src.Scrape(context.Background(), scraper.Input{Fetcher: fakeFetcher{releaseDoc.live: "testdata/release.md"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"2.1|cudnn.cu121": "8.9.2.26", "2.1|cudnn.cu118": "8.7.0.84", "2.6|cudnn.cu118": "9.1.0.70",
		"2.6|cudnn.cu126": "9.5.1.17", "2.6|python_max": "3.13", "2.1|python_min": "3.8", "2.1|cuda.cu121": "experimental"}
	got := map[string]string{}
	for _, a := range f.Attributes {
		got[a.Version+"|"+a.Key] = a.Value
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if refused(f) != 1 {
		t.Errorf("want the 'two' row refused, conflicts %+v", f.Conflicts)
	}
}

func TestMoi90Live(t *testing.T) {
	fe := fakeFetcher{}
	for _, d := range moi90Docs {
		fe[d.live] = "testdata/moi90.md"
	}
	src := Moi90{}
	recs, err := src.Scrape(context.Background(), scraper.Input{Fetcher: fe})
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	b := findBuild(f, "2.1.0", "cu121", "linux", "conda")
	if b == nil || b.PythonMin != "3.9" || b.PythonMax != "3.11" || !strings.HasPrefix(b.ArchList, "sm_50 sm_60 sm_61") {
		t.Fatalf("conda build = %+v", b)
	}
	if got := findReq(f, "2.1.0", "cu121", "linux", "conda", "cudnn", db.KindBundled); got != "8.9.2" {
		t.Errorf("cudnn = %q", got)
	}
	if refused(f) != 1 {
		t.Errorf("want the garbage package refused, conflicts %+v", f.Conflicts)
	}
}

func TestArchList(t *testing.T) {
	for in, want := range map[string]string{
		"3.5;5.0+PTX;6.0":       "sm_35 sm_50 compute_50 sm_60",
		"sm_37, sm_50, sm_90a":  "sm_37 sm_50 sm_90a",
		"sm_80 sm_90 sm_90+PTX": "sm_80 sm_90 compute_90",
	} {
		if got, err := archList(in); err != nil || got != want {
			t.Errorf("archList(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := archList("Ampere"); err == nil {
		t.Error("archList accepted a name")
	}
}

func TestExpandVersions(t *testing.T) {
	rel := []string{"2.7.0", "2.7.1", "2.9.0", "2.10.0", "2.12.0", "2.12.1", "2.13.0"}
	for sel, want := range map[string]string{
		"2.7.0.dev (main)":          "2.7.0 2.7.1",
		"2.9/2.10.dev (main)":       "2.9.0 2.10.0",
		"main snapshot (~2.10 dev)": "2.10.0",
		"2.12/2.13":                 "2.12.0 2.12.1 2.13.0",
		"2.7.1":                     "2.7.1",
		"2.15.0.dev (main)":         "",
	} {
		if got := strings.Join(expandVersions(sel, rel), " "); got != want {
			t.Errorf("expandVersions(%q) = %q, want %q", sel, got, want)
		}
	}
}

func FuzzReadTables(f *testing.F) {
	for _, p := range []string{"testdata/release.md", "testdata/moi90.md", "testdata/empty.md"} {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		_, _ = parseReleaseMatrix(b, "fuzz")
		if recs, err := parseMoi90(b, "fuzz"); err == nil {
			_, _ = Moi90{}.Normalize(recs)
		}
	})
}

func FuzzPreviousVersions(f *testing.F) {
	b, _ := os.ReadFile("testdata/previous-versions.md")
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		if recs, err := parsePreviousVersions(b, "fuzz"); err == nil {
			_, _ = PreviousVersions{}.Normalize(recs)
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("torch_version,package,pinned_version,platform_marker,source_repo,source_path,source_commit_or_issue\n2.1.0,nvidia-cudnn-cu12,8.9.2.26,x,r,p,c\n2.1.0,nvidia-cuda-runtime-cu12,12.1.105,x,r,p,c\n"))
	f.Add([]byte("a,b\n1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		recs, err := readCSV(b, "pins", "fuzz.csv", []string{"torch_version", "package", "pinned_version"}, []string{"source_repo"})
		if err == nil {
			_, _ = Lockfiles{}.Normalize(recs)
		}
	})
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
