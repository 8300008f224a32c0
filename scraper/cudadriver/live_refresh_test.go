package cudadriver

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the release notes served on loopback, read
// through the fetch client, checked, and written by scraper.Refresh.

var livePages = map[string]string{PageURL: "testdata/release-notes-13.2.2.html"}

func TestLiveRefreshHappy(t *testing.T) {
	dir := t.TempDir()
	snap := livetest.New(t, livePages).MustPass(t, New(), dir)
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Table+"/"+r.Key] = r.Fields
	}
	if r := got[TableToolkit+"/CUDA 12.1 Update 1"]; r["linux"] != ">=530.30.02" {
		t.Errorf("CUDA 12.1 Update 1 row = %v", r)
	}
	if _, ok := got[TableMinorCompat+"/13.x"]; !ok {
		t.Errorf("no CUDA 13.x minor-compat row in %d records", len(snap.Records))
	}
	if snap.URL != PageURL {
		t.Errorf("snapshot URL %q", snap.URL)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, New(), t.TempDir())
	if n := up.Hits(PageURL); n != 2 {
		t.Errorf("release notes fetched %d times, want 2 (a 500, then the page)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct{ name, file, why string }{
		{"table vanished", "testdata/sad-no-table.html", "no table captioned"},
		{"empty table", "testdata/sad-empty-table.html", "has no rows"},
		// Every row unusable: the rows would be recorded and refused one
		// by one, but the table shrank past the guard, so the source fails.
		{"garbage versions", "testdata/sad-garbage.html", "rows dropped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, New(), livePages)
			if err := livetest.New(t, map[string]string{PageURL: c.file}).MustFail(t, New(), dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// A page whose Table 3 caption moved to a heading the parser does not
// look for.
func TestLiveRefreshMovedTable(t *testing.T) {
	dir, _ := livetest.Prime(t, New(), livePages)
	b, err := os.ReadFile(livePages[PageURL])
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.ReplaceAll(string(b), "CUDA Toolkit and Corresponding Driver Versions", "Driver Versions by Release")
	up := livetest.New(t, nil)
	up.Set(t, PageURL, []byte(moved))
	if err := up.MustFail(t, New(), dir); !strings.Contains(err, "no table captioned") {
		t.Errorf("error %q does not say the table is missing", err)
	}
}

// One garbage row among good ones is recorded and refused by Normalize
// (listed by `cudb db check`); the good rows are written.
func TestLiveRefreshGarbageRowRefused(t *testing.T) {
	dir, _ := livetest.Prime(t, New(), livePages)
	b, err := os.ReadFile(livePages[PageURL])
	if err != nil {
		t.Fatal(err)
	}
	row := "<tr><td>CUDA 12.9 GA</td><td>&gt;=banana</td><td>&gt;=576.02</td></tr>\n</tbody>"
	page := strings.Replace(string(b), "</tbody>", row, 1)
	if page == string(b) {
		t.Fatal("fixture has no </tbody> to add a row to")
	}
	up := livetest.New(t, nil)
	up.Set(t, PageURL, []byte(page))
	snap := up.MustPass(t, New(), dir)
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range f.Conflicts {
		if c.Field == "refused" && strings.Contains(c.Other, "CUDA 12.9 GA") {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("garbage row refused %d times, want once: %+v", refused, f.Conflicts)
	}
	if _, ok := find(f, "12.1.1", "linux", "toolkit"); !ok {
		t.Error("the good rows were not written beside the refused one")
	}
	if _, ok := find(f, "12.9.0", "windows", "toolkit"); ok {
		t.Error("half of the garbage row became a fact")
	}
}
