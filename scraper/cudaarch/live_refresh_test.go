package cudaarch

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the architecture matrix served on
// loopback, read through the fetch client, checked, and written by
// scraper.Refresh.

var livePages = map[string]string{PageURL: "testdata/arch-matrix.html"}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, New(), t.TempDir())
	// One row per capability: 10.0 12.0 9.0 8.0 8.6 7.0, and the garbage x.y.
	if len(snap.Records) != 7 {
		t.Errorf("wrote %d rows, want 7", len(snap.Records))
	}
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Key] = r.Fields
	}
	if r := got["8.6"]; r["first"] != "11.0" || r["architecture"] != "NVIDIA Ampere" {
		t.Errorf("8.6 row = %v", r)
	}
	if r := got["12.0"]; r["first"] != "12.8" {
		t.Errorf("12.0 row = %v", r)
	}
	// The page's garbage row is written and refused by Normalize, the
	// rest become facts.
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Conflicts) != 1 || !strings.Contains(f.Conflicts[0].Subject, "x.y") || len(f.CUDAArches) == 0 {
		t.Errorf("want facts and the x.y row refused; got %d facts, conflicts %+v", len(f.CUDAArches), f.Conflicts)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, New(), t.TempDir())
	if n := up.Hits(PageURL); n != 2 {
		t.Errorf("architecture matrix fetched %d times, want 2 (a 500, then the page)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	b, err := os.ReadFile(livePages[PageURL])
	if err != nil {
		t.Fatal(err)
	}
	// The First CUDA Toolkit column renamed: the parser no longer knows
	// which table is the matrix.
	moved := strings.ReplaceAll(string(b), "First CUDA Toolkit Support", "Introduced In")
	for _, c := range []struct {
		name string
		page []byte
		file string
		why  string
	}{
		{name: "table vanished", file: "testdata/sad-no-table.html", why: "no table with CUDA Capability"},
		{name: "column moved", page: []byte(moved), why: "no table with CUDA Capability"},
		{name: "empty table", file: "testdata/sad-empty.html", why: "has no rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, New(), livePages)
			up := livetest.New(t, nil)
			page := c.page
			if c.file != "" {
				if page, err = os.ReadFile(c.file); err != nil {
					t.Fatal(err)
				}
			}
			up.Set(t, PageURL, page)
			if err := up.MustFail(t, New(), dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// A second garbage row beside the good ones is still only refused: the
// good rows are written, each garbage row refused by Normalize.
func TestLiveRefreshGarbageRowRefused(t *testing.T) {
	dir, _ := livetest.Prime(t, New(), livePages)
	b, err := os.ReadFile(livePages[PageURL])
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(b), "</tbody>", "<tr><td>NVIDIA Pascal</td><td>6.0</td><td>CUDA eight</td><td>CUDA 12.x</td><td>R580</td></tr>\n</tbody>", 1)
	up := livetest.New(t, nil)
	up.Set(t, PageURL, []byte(page))
	snap := up.MustPass(t, New(), dir)
	if len(snap.Records) != 8 {
		t.Errorf("wrote %d rows, want 8", len(snap.Records))
	}
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range f.Conflicts {
		if c.Field == "refused" && strings.Contains(c.Subject, "6.0") {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("the 6.0 row with no readable toolkit should be refused once: %+v", f.Conflicts)
	}
}
