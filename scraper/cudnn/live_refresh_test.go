package cudnn

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the support matrix served on loopback,
// read through the fetch client, checked, and written by scraper.Refresh.

var livePages = map[string]string{PageURL: "testdata/support-matrix-9.10.2.html"}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, New(), t.TempDir())
	if len(snap.Records) != 4 {
		t.Errorf("wrote %d rows, want the page's 4", len(snap.Records))
	}
	found := false
	for _, r := range snap.Records {
		if r.Fields["cuda_versions"] == "12.9;12.8" {
			found = true
			if r.Fields["cudnn_version"] != "9.10.2" || r.Fields["min_linux_driver"] != ">=570.26" || r.Fields["cuda_major_line"] != "12.x" {
				t.Errorf("12.9;12.8 row = %v", r.Fields)
			}
		}
	}
	if !found {
		t.Errorf("no 12.9;12.8 row in %+v", snap.Records)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, New(), t.TempDir())
	if n := up.Hits(PageURL); n != 2 {
		t.Errorf("support matrix fetched %d times, want 2 (a 500, then the page)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct{ name, file, why string }{
		{"table vanished", "testdata/sad-no-table.html", "no support-matrix table"},
		// The table is there but its CUDA toolkit column moved out of it.
		{"columns moved", "testdata/sad-headers-lost.html", "lacks the package, CUDA toolkit or driver column"},
		{"empty table", "testdata/sad-empty-table.html", "has no rows"},
		// Every row unusable: each would be refused, so the page has
		// changed shape and the source fails (the previous rows stay).
		{"garbage versions", "testdata/sad-garbage.html", "none is usable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, New(), livePages)
			if err := livetest.New(t, map[string]string{PageURL: c.file}).MustFail(t, New(), dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// One garbage row among good ones is recorded and refused by Normalize;
// the good rows are written.
func TestLiveRefreshGarbageRowRefused(t *testing.T) {
	dir, _ := livetest.Prime(t, New(), livePages)
	b, err := os.ReadFile(livePages[PageURL])
	if err != nil {
		t.Fatal(err)
	}
	row := "<tr><td><p>cuDNN 9.10.2 for CUDA 12.x</p></td><td><p>twelve</p></td><td><p>Yes</p></td>" +
		"<td><p>&gt;=525.60.13</p></td><td><p>&gt;=527.41</p></td><td><p>9.0</p></td><td><p>NVIDIA Hopper</p></td></tr>\n</tbody>"
	page := strings.Replace(string(b), "</tbody>", row, 1)
	up := livetest.New(t, nil)
	up.Set(t, PageURL, []byte(page))
	snap := up.MustPass(t, New(), dir)
	if len(snap.Records) != 5 {
		t.Errorf("wrote %d rows, want 4 good + 1 refused", len(snap.Records))
	}
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range f.Conflicts {
		if c.Field == "refused" && strings.Contains(c.Other, "twelve") {
			refused++
		}
	}
	if refused != 1 || len(f.CUDNN) != 4 {
		t.Errorf("want 4 facts and the garbage row refused once; got %d facts, conflicts %+v", len(f.CUDNN), f.Conflicts)
	}
}
