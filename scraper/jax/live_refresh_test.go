package jax

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

// liveNormalizes is false while the live install page cannot refresh:
// it does not name the release it describes, the live scrape leaves the
// release field empty, and Normalize skips such rows, so every live
// scrape ends in "no usable rows". Flip it when that is fixed.
const liveNormalizes = false

func skipUntilLiveNormalizes(t *testing.T) {
	t.Helper()
	if !liveNormalizes {
		t.Skip("known bug: jax's live install page names no release, so its rows never normalize (\"no usable rows\")")
	}
}

// TestLiveRefreshKnownBug pins today's behaviour so the fix is noticed:
// the good page fails the source and writes nothing.
func TestLiveRefreshKnownBug(t *testing.T) {
	if liveNormalizes {
		return
	}
	dir := t.TempDir()
	if err := livetest.New(t, livePages).MustFail(t, Source{}, dir); !strings.Contains(err, "no usable rows") {
		t.Errorf("error %q: the happy page fails for another reason", err)
	}
}

// prime writes a previous snapshot in the snapshot-mode shape (rows tied
// to a release), since the live page cannot produce one yet.
func prime(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	snap := &scraper.Snapshot{Source: "jax", URL: Source{}.URL(), Records: []scraper.Record{
		{Table: tableWheel, Key: "installation.md@cec06d116/cuda12", Ref: "installation.md@cec06d116 line 12", URL: liveInstall,
			Fields: map[string]string{"release": "0.11.0", "built_cuda": "12.3", "compat_cuda": ">=12.1"}},
		{Table: tableDriver, Key: "installation.md@cec06d116/cuda12", Ref: "installation.md@cec06d116", URL: liveInstall,
			Fields: map[string]string{"release": "0.11.0", "cuda_major": "12", "min_driver": "525", "text": ">= 525 for CUDA 12"}},
	}}
	b, err := snap.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := scraper.WriteFileAtomic(scraper.SnapshotPath(dir, "jax"), b); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The live refresh end to end: the install page served on loopback, read
// through the fetch client, checked, and written by scraper.Refresh.

var livePages = map[string]string{liveInstall: "testdata/install_ok.md"}

func TestLiveRefreshHappy(t *testing.T) {
	skipUntilLiveNormalizes(t)
	snap := livetest.New(t, livePages).MustPass(t, Source{}, t.TempDir())
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Table+"/"+r.Key] = r.Fields
	}
	// Two wheels and two driver floors.
	if len(snap.Records) != 4 {
		t.Errorf("wrote %d rows, want 4: %v", len(snap.Records), got)
	}
	if r := got[tableWheel+"/installation.md/cuda12"]; r["built_cuda"] != "12.3" || r["compat_cudnn"] != ">=9.8, <10.0" {
		t.Errorf("cuda12 wheel = %v", r)
	}
	if r := got[tableDriver+"/installation.md/cuda13"]; r["min_driver"] != "580" {
		t.Errorf("CUDA 13 driver floor = %v", r)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	if liveNormalizes {
		up.MustPass(t, Source{}, t.TempDir())
	} else {
		up.MustFail(t, Source{}, t.TempDir())
	}
	if n := up.Hits(liveInstall); n != 2 {
		t.Errorf("install page fetched %d times, want 2 (a 500, then the page)", n)
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
			if err := livetest.New(t, map[string]string{liveInstall: c.file}).MustFail(t, Source{}, dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}
