package pytorch

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

// The captured find-links page (real anchors, captures/CAPTURES.md):
// torch 1.7.0 was published for cp36-cp38 only; 3.9 came with 1.7.1.
func TestWheelIndexCapture(t *testing.T) {
	recs, err := WheelIndex{}.Scrape(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f, err := WheelIndex{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[db.BuildKey]db.Build{}
	for _, b := range f.Builds {
		got[b.Key()] = b
	}
	k := func(v, variant, plat string) db.Build {
		return got[db.BuildKey{Component: "torch", Version: v, Variant: variant, Platform: plat}]
	}
	if b := k("1.7.0", "cu110", "linux"); b.PythonMin != "3.6" || b.PythonMax != "3.8" || b.CUDA != "11.0" {
		t.Errorf("1.7.0 cu110 linux = %+v", b)
	}
	if b := k("1.7.1", "cu110", "windows"); b.PythonMax != "3.9" {
		t.Errorf("1.7.1 cu110 windows = %+v", b)
	}
	if b := k("1.8.0", "cpu", "linux-aarch64"); b.PythonMin != "3.6" || b.PythonMax != "3.9" {
		t.Errorf("1.8.0 cpu aarch64 = %+v", b)
	}
	if _, ok := got[db.BuildKey{Component: "torch", Version: "1.7.0", Variant: "cu92", Platform: "windows"}]; ok {
		t.Error("cu92 had no Windows wheels in the index")
	}
}

// Live: the PEP 503 page (real index lines), served on loopback; a page
// with no wheel in a variant directory fails the source (fail closed).
func TestWheelIndexLive(t *testing.T) {
	pages := map[string]string{wheelDoc.live: "testdata/live/whl_torch_pep503.html"}
	snap := livetest.New(t, pages).MustPass(t, WheelIndex{}, t.TempDir())
	if len(snap.Records) != 2 || snap.Records[0].Fields["variant"] != "cu117" {
		t.Fatalf("records %+v", snap.Records)
	}
	dir, _ := livetest.Prime(t, WheelIndex{}, pages)
	err := livetest.New(t, map[string]string{wheelDoc.live: "testdata/live/whl_torch_empty.html"}).MustFail(t, WheelIndex{}, dir)
	if !strings.Contains(err, "no torch wheel") {
		t.Errorf("error %q", err)
	}
}

func FuzzParseWheelIndex(f *testing.F) {
	for _, p := range []string{"testdata/live/whl_torch_pep503.html", "captures/torch_stable.html@226d096.html"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		recs, err := ParseWheelIndex(b, "fuzz")
		if err != nil {
			return
		}
		if _, err := (WheelIndex{}).Normalize(recs); err != nil && len(recs) > 0 && !strings.Contains(err.Error(), "no builds") {
			t.Fatalf("normalize: %v", err)
		}
	})
}
