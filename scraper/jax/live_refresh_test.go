package jax

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

// prime writes a previous snapshot in the snapshot-mode shape: rows of an
// older release, which a live refresh must keep (the live page shows only
// the current release).
func prime(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	snap := &scraper.Snapshot{Source: "jax", URL: Source{}.URL(), Records: []scraper.Record{
		{Table: tableWheel, Key: "installation.md@jax-v0.8.0_403977d2e/cuda12", Ref: "installation.md@jax-v0.8.0_403977d2e line 12", URL: liveInstall,
			Fields: map[string]string{"release": "0.8.0", "built_cuda": "12.3", "compat_cuda": ">=12.1"}},
		{Table: tableDriver, Key: "installation.md@jax-v0.8.0_403977d2e/cuda12", Ref: "installation.md@jax-v0.8.0_403977d2e", URL: liveInstall,
			Fields: map[string]string{"release": "0.8.0", "cuda_major": "12", "min_driver": "525", "text": ">= 525 for CUDA 12"}},
	}}
	b, err := snap.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := datadir.WriteFileAtomic(scraper.SnapshotPath(dir, "jax"), b); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The live refresh end to end: the install page served on loopback, read
// through the fetch client, checked, and written by scraper.Refresh.

var livePages = map[string]string{liveInstall: "testdata/install_ok.md", livePyPI: "testdata/pypi_jax.json"}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, Source{}, t.TempDir())
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Table+"/"+r.Key] = r.Fields
	}
	// Two wheels and two driver floors.
	if len(snap.Records) != 4 {
		t.Errorf("wrote %d rows, want 4: %v", len(snap.Records), got)
	}
	if r := got[tableWheel+"/installation.md@0.11.0/cuda12"]; r["built_cuda"] != "12.3" || r["compat_cudnn"] != ">=9.8, <10.0" || r["release"] != "0.11.0" || r["release_from"] != livePyPI {
		t.Errorf("cuda12 wheel = %v", r)
	}
	if r := got[tableDriver+"/installation.md@0.11.0/cuda13"]; r["min_driver"] != "580" || r["release"] != "0.11.0" {
		t.Errorf("CUDA 13 driver floor = %v", r)
	}
}

// TestLiveRefreshKeepsHistory: the live page shows one release; the rows
// of earlier releases stay (jax is a scraper.Accumulator).
func TestLiveRefreshKeepsHistory(t *testing.T) {
	dir := prime(t)
	snap := livetest.New(t, livePages).MustPass(t, Source{}, dir)
	releases := map[string]bool{}
	for _, r := range snap.Records {
		releases[r.Fields["release"]] = true
	}
	if !releases["0.8.0"] || !releases["0.11.0"] || len(snap.Records) != 6 {
		t.Errorf("releases %v in %d rows: want the previous 0.8.0 rows kept beside 0.11.0's", releases, len(snap.Records))
	}
}

func TestLiveRefreshBadPyPIAnswer(t *testing.T) {
	up := livetest.New(t, livePages)
	up.Set(t, livePyPI, []byte(`{"info": {"version": "not a version"}}`))
	if err := up.MustFail(t, Source{}, prime(t)); !strings.Contains(err, "info.version") {
		t.Errorf("error %q", err)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, Source{}, t.TempDir())
	for _, page := range []string{liveInstall, livePyPI} {
		if n := up.Hits(page); n != 2 {
			t.Errorf("%s fetched %d times, want 2 (a 500, then the page)", page, n)
		}
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct{ name, file, why string }{
		{"tables vanished", "testdata/install_empty.md", "no Built with/Compatible with table"},
		{"columns renamed", "testdata/install_moved.md", "no Built with/Compatible with table"},
		{"empty table", "testdata/install_empty_table.md", "no rows"},
		// A cell naming no version fails the page as a whole: a garbage
		// row is never written, and neither are the good ones beside it.
		{"garbage versions", "testdata/install_garbage.md", `cell "whatever" names no CUDA, CUDNN or NCCL version`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := prime(t)
			if err := livetest.New(t, map[string]string{liveInstall: c.file, livePyPI: "testdata/pypi_jax.json"}).MustFail(t, Source{}, dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}
