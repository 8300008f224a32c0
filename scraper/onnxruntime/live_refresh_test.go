package onnxruntime

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper/livetest"
)

// The live refresh end to end: the CUDA Execution Provider page served on
// loopback, read through the fetch client, checked, and written by
// scraper.Refresh.

var livePages = map[string]string{liveDoc: "testdata/ep_ok.md"}

func TestLiveRefreshHappy(t *testing.T) {
	snap := livetest.New(t, livePages).MustPass(t, Source{}, t.TempDir())
	if len(snap.Records) != 2 {
		t.Errorf("wrote %d rows, want the table's 2", len(snap.Records))
	}
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Key] = r.Fields
	}
	if r := got["Requirements/1.5-1.6"]; r["cuda"] != "10.2" || r["cudnn"] != "8.0.3" {
		t.Errorf("1.5-1.6 row = %v (all %v)", r, got)
	}
}

func TestLiveRefreshRetries(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	up.MustPass(t, Source{}, t.TempDir())
	if n := up.Hits(liveDoc); n != 2 {
		t.Errorf("EP page fetched %d times, want 2 (a 500, then the page)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct{ name, file, why string }{
		{"table moved", "testdata/ep_moved.md", "no ONNX Runtime/CUDA/cuDNN table under a Requirements heading"},
		{"table vanished", "testdata/ep_empty.md", "no ONNX Runtime/CUDA/cuDNN table under a Requirements heading"},
		{"empty table", "testdata/ep_empty_table.md", "has no rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, Source{}, livePages)
			if err := livetest.New(t, map[string]string{liveDoc: c.file}).MustFail(t, Source{}, dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

// A garbage CUDA cell beside a good row fails the source (the field's
// grammar is a dotted version), and the previous file is kept: a row is
// never dropped silently.
func TestLiveRefreshGarbageRow(t *testing.T) {
	dir, _ := livetest.Prime(t, Source{}, livePages)
	err := livetest.New(t, map[string]string{liveDoc: "testdata/ep_garbage.md"}).MustFail(t, Source{}, dir)
	if !strings.Contains(err, `field cuda: "ten" does not parse as a version`) {
		t.Errorf("error %q does not name the garbage cell", err)
	}
}
