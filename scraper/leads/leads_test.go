package leads

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func TestParsePyPI(t *testing.T) {
	b, err := os.ReadFile("testdata/pypi_torch.json")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := ParsePyPI(b); err != nil || v != "2.6.0" {
		t.Errorf("ParsePyPI = %q, %v", v, err)
	}
	for _, f := range []string{"testdata/pypi_bad.json", "testdata/pypi_noinfo.json"} {
		b, _ := os.ReadFile(f)
		if _, err := ParsePyPI(b); err == nil {
			t.Errorf("%s: want an error (fail closed)", f)
		}
	}
}

// Live: every Python line's newest release from PyPI's JSON API, served
// on loopback; one broken document fails the whole source.
func TestLiveRefresh(t *testing.T) {
	pages := map[string]string{}
	for n := range Packages {
		pages[strings.Replace(PyPIURL, "%s", n, 1)] = "testdata/pypi_torch.json"
	}
	snap := livetest.New(t, pages).MustPass(t, Source{}, t.TempDir())
	if len(snap.Records) != len(Packages) {
		t.Errorf("%d records, want one per package (%d)", len(snap.Records), len(Packages))
	}
	dir, _ := livetest.Prime(t, Source{}, pages)
	bad := map[string]string{}
	for k, v := range pages {
		bad[k] = v
	}
	bad[strings.Replace(PyPIURL, "%s", "jax", 1)] = "testdata/pypi_noinfo.json"
	if err := livetest.New(t, bad).MustFail(t, Source{}, dir); !strings.Contains(err, "info.version") {
		t.Errorf("error %q does not name the missing field", err)
	}
}

// The leads file: rows naming a release become known releases (with the
// evidence), rows stating facts about a release are not leads.
func TestParseCSV(t *testing.T) {
	b, err := os.ReadFile("testdata/leads.csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseCSV(b, "leads.csv")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]scraper.Record{}
	for _, r := range recs {
		got[r.Key] = r
	}
	for _, k := range []string{"torch==2.15.0", "torchvision==0.29.2", "jax==0.11.1", "jax==0.11.2", "driver==620", "cudnn==9.28.0"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing lead %s (have %v)", k, recs)
		}
	}
	// A framework row naming a release (ORT 1.29.0's PyPI build) makes the
	// release known, not its fact; a line (torch 2.14), a build
	// (2.10.0+cu130) or a pre-release (2.22.0rc0) names no release.
	for _, k := range []string{"onnxruntime-gpu==1.29.0", "onnxruntime-gpu==1.31.0"} {
		if r, ok := got[k]; !ok || r.Fields["released"] != "" {
			t.Errorf("lead %s = %+v, %v; want a release without a date", k, r.Fields, ok)
		}
	}
	for _, k := range []string{"torch==2.14", "torch==2.10.0+cu130", "tensorflow==2.22.0rc0", "tensorflow==2.22.0"} {
		if _, ok := got[k]; ok {
			t.Errorf("lead %s: not a release", k)
		}
	}
	if r := got["cudnn==9.28.0"]; r.Fields["released"] != "2026-11-04" || r.Fields["strength"] != "official-manifest" {
		t.Errorf("cudnn 9.28.0 lead %+v", r.Fields)
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Builds) != 0 || len(f.Requirements) != 0 {
		t.Error("a lead became a fact about a release")
	}
	if _, err := ParseCSV([]byte("a,b\n1,2\n"), "x.csv"); err == nil {
		t.Error("a file with another header must fail")
	}
}

// Freshness: for every line, the newest release in data/ is at least the
// newest release the snapshots name (the leads file: what public evidence
// showed on the day the snapshots were taken).
func TestDataIsCurrentWithSnapshots(t *testing.T) {
	dir := sourcestest.Dir(t)
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	newest, err := d.NewestReleases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, l := range newest {
		have[l.Line] = strings.TrimPrefix(l.Version, "R")
	}
	for _, r := range recs {
		line, want := r.Fields["component"], r.Fields["version"]
		got, ok := have[line]
		if !ok {
			t.Errorf("%s: no release in data/, snapshots name %s (%s)", line, want, r.Ref)
			continue
		}
		if version.DottedKey(got) < version.DottedKey(want) {
			t.Errorf("%s: newest in data/ is %s, older than %s named by %s (%s): run make data", line, got, want, filepath.Base(r.Ref), r.Fields["evidence"])
		}
	}
}
