package driverbranch

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the supported-drivers page served on
// loopback, read through the fetch client, checked, and written by
// scraper.Refresh.

var livePages = map[string]string{PageURL: "testdata/supported-drivers.html"}

func readFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(livePages[PageURL])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, New(), t.TempDir())
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Key] = r.Fields
	}
	if len(got) != 4 {
		t.Errorf("wrote %d branches, want R535 R580 R595 R610", len(got))
	}
	if r := got["R580"]; r["end_of_life"] != "August 2028" || r["branch_type"] != "Long Term Support Branch" || r["max_cuda_datacenter_doc"] != "CUDA 13" {
		t.Errorf("R580 = %v", r)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, New(), t.TempDir())
	if n := up.Hits(PageURL); n != 2 {
		t.Errorf("supported-drivers page fetched %d times, want 2 (a 500, then the page)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	fixture := func(name string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	for _, c := range []struct {
		name string
		page func(t *testing.T) []byte
		why  string
	}{
		{"table vanished", fixture("testdata/sad-no-table.html"), "no table captioned"},
		{"caption moved", func(t *testing.T) []byte {
			return []byte(strings.ReplaceAll(readFixture(t), "CUDA and Drivers", "Driver Lifecycle"))
		}, "no table captioned"},
		{"no branch columns", fixture("testdata/sad-empty.html"), "names no branch column"},
		{"empty table", fixture("testdata/sad-empty-table.html"), "no designation, end-of-life or maximum-CUDA row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, New(), livePages)
			up := livetest.New(t, nil)
			up.Set(t, PageURL, c.page(t))
			if err := up.MustFail(t, New(), dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// Garbage where a version belongs: a header that is not a branch is not
// read as one, and an unreadable maximum-CUDA cell leaves the branch
// without a maximum (never a guessed one); everything else is written.
func TestLiveRefreshGarbageVersions(t *testing.T) {
	dir, _ := livetest.Prime(t, New(), livePages)
	page := readFixture(t)
	page = strings.Replace(page, "<th>R610</th>", "<th>R610</th><th>R6xx</th>", 1)
	page = strings.Replace(page, "<td>New Feature Branch</td>", "<td>New Feature Branch</td><td>Future Branch</td>", 1)
	page = strings.Replace(page, "<td>CUDA 12</td>", "<td>CUDA twelve</td>", 1)
	up := livetest.New(t, nil)
	up.Set(t, PageURL, []byte(page))
	snap := up.MustPass(t, New(), dir)
	if len(snap.Records) != 4 {
		t.Errorf("wrote %d branches, want the 4 real ones (R6xx is not a branch)", len(snap.Records))
	}
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.DriverBranches {
		switch b.Branch {
		case "535":
			if b.MaxCUDA != "" || b.EndOfLife != "June 2026" {
				t.Errorf("R535 with a garbage maximum CUDA = %+v", b)
			}
		case "580":
			if b.MaxCUDA != "13" {
				t.Errorf("R580 = %+v", b)
			}
		}
	}
}
