package gpus

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: both GPU pages served on loopback, read
// through the fetch client, checked, and written by scraper.Refresh.

var livePages = map[string]string{
	PageURL:   "testdata/cuda-gpus.html",
	LegacyURL: "testdata/cuda-legacy-gpus.html",
}

// pages is livePages with some pages replaced.
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
	snap := livetest.New(t, livePages).MustPass(t, New(), t.TempDir())
	// 12 GPUs and one N/A row from the current page, 7 from the legacy one.
	if len(snap.Records) != 20 {
		t.Errorf("wrote %d rows, want 20", len(snap.Records))
	}
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Key] = r.Fields
	}
	for name, cc := range map[string]string{"GeForce RTX 5090": "12.0", "NVIDIA L40S": "8.9", "Tesla K80": "3.7", "GeForce GTX 980": "5.2"} {
		if got[name]["compute_capability"] != cc {
			t.Errorf("%s: %v, want compute capability %s", name, got[name], cc)
		}
	}
	// The current page's N/A row is written and refused by Normalize.
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.GPUs) != 19 || len(f.Conflicts) != 1 || !strings.Contains(f.Conflicts[0].Subject, "NVIDIA Mystery") {
		t.Errorf("want 19 GPUs and NVIDIA Mystery refused, got %d GPUs, conflicts %+v", len(f.GPUs), f.Conflicts)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, New(), t.TempDir())
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
		{"table vanished", pages(map[string]string{PageURL: "testdata/sad-no-table.html"}), "no table with a Compute Capability column"},
		{"empty table", pages(map[string]string{PageURL: "testdata/sad-empty.html"}), "has no rows"},
		// Either page failing fails the source: the legacy page is not optional.
		{"legacy table vanished", pages(map[string]string{LegacyURL: "testdata/sad-no-table.html"}), "cuda-legacy-gpus"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, New(), livePages)
			if err := livetest.New(t, c.pages).MustFail(t, New(), dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// A garbage compute capability among good rows is recorded and refused by
// Normalize; the good rows are written.
func TestLiveRefreshGarbageRowRefused(t *testing.T) {
	dir, _ := livetest.Prime(t, New(), livePages)
	b, err := os.ReadFile(livePages[LegacyURL])
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(b), "</tbody>", "<tr><td>three point oh</td><td>Tesla K10</td><td></td><td></td></tr>\n</tbody>", 1)
	up := livetest.New(t, map[string]string{PageURL: livePages[PageURL]})
	up.Set(t, LegacyURL, []byte(page))
	snap := up.MustPass(t, New(), dir)
	f, err := New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	for _, c := range f.Conflicts {
		if c.Field == "refused" {
			refused[c.Subject] = true
		}
	}
	if !refused["gpu Tesla K10"] || len(f.GPUs) != 19 {
		t.Errorf("want Tesla K10 refused beside 19 GPUs; got %d GPUs, refused %v", len(f.GPUs), refused)
	}
}
