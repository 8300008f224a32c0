package tensorflow

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the three install pages served on
// loopback, read through the fetch client, checked, and written by
// scraper.Refresh.

var livePages = map[string]string{
	rawBase + "source.md":         "testdata/source_ok.md",
	rawBase + "source_windows.md": "testdata/source_windows_ok.md",
	rawBase + "pip.md":            "testdata/pip_ok.md",
	liveServing:                   "testdata/serving_release_ok.md",
}

func pages(replace map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range livePages {
		m[k] = v
	}
	for k, v := range replace {
		m[k] = v
	}
	return m
}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, Source{}, t.TempDir())
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Table+"/"+r.Key] = r.Fields
	}
	// 4 Linux/macOS builds, 2 Windows builds, the cut-off, 2 driver floors,
	// 2 patch releases TF Serving's release notes name (rc lines skipped).
	if len(snap.Records) != 11 {
		t.Errorf("wrote %d rows, want 11: %v", len(snap.Records), got)
	}
	if r := got[tablePatch+"/2.12.1"]; r["version"] != "2.12.1" {
		t.Errorf("patch release 2.12.1 = %v", r)
	}
	if r := got[tableBuild+"/linux/gpu/tensorflow-2.15.0"]; r["cuda"] != "12.2" || r["cudnn"] != "8.9" || r["version"] != "2.15.0" {
		t.Errorf("linux GPU 2.15.0 = %v", r)
	}
	if r := got[tableBuild+"/windows/gpu/tensorflow_gpu-2.10.0"]; r["cuda"] != "11.2" {
		t.Errorf("windows GPU 2.10.0 = %v", r)
	}
	if r := got[tableCutoff+"/native-windows"]; r["version"] != "2.10" {
		t.Errorf("cut-off = %v", r)
	}
	if r := got[tableDriver+"/pip.md/linux/12"]; r["min_driver"] != "525.60.13" {
		t.Errorf("linux driver floor = %v", r)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, Source{}, t.TempDir())
	for u := range livePages {
		if n := up.Hits(u); n != 2 {
			t.Errorf("%s fetched %d times, want 2 (a 500, then the page)", u, n)
		}
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct {
		name  string
		pages map[string]string
		why   string
	}{
		// The GPU tables moved under an "Accelerators" heading.
		{"tables moved", pages(map[string]string{rawBase + "source.md": "testdata/source_moved.md"}), `no table under the heading "Tested build configurations > Linux > GPU"`},
		{"tables vanished", pages(map[string]string{rawBase + "source.md": "testdata/source_empty.md"}), "no table under the heading"},
		{"windows tables vanished", pages(map[string]string{rawBase + "source_windows.md": "testdata/source_empty.md"}), "source_windows.md"},
		{"empty table", pages(map[string]string{rawBase + "source.md": "testdata/source_empty_table.md"}), "have no rows"},
		{"no cut-off statement", pages(map[string]string{rawBase + "pip.md": "testdata/source_ok.md"}), "no statement of the last native-Windows GPU release"},
		// A version cell of words: the version check refuses the whole
		// scrape, so not even the good rows are written.
		{"garbage version", pages(map[string]string{rawBase + "source.md": "testdata/source_garbage.md"}), `"two.fifteen" does not parse as a version`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, Source{}, livePages)
			if err := livetest.New(t, c.pages).MustFail(t, Source{}, dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// With no previous snapshot either, the garbage page writes nothing.
func TestLiveRefreshGarbageWritesNothing(t *testing.T) {
	dir := t.TempDir()
	up := livetest.New(t, pages(map[string]string{rawBase + "source.md": "testdata/source_garbage.md"}))
	up.MustFail(t, Source{}, dir)
	if b := livetest.SnapshotBytes(t, dir, "tensorflow"); b != nil {
		t.Errorf("a failed first refresh wrote a snapshot of %d bytes", len(b))
	}
}
