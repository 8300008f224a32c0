package ngc

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

// Every captured edition of NVIDIA's release notes gives its image,
// release, contents and driver requirements, wrapped (25.01) or not.
func TestParseCapturedNotes(t *testing.T) {
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]map[string]string{}
	for _, r := range recs {
		by[r.Table+" "+r.Key] = r.Fields
	}
	for key, want := range map[string]map[string]string{
		"release_notes tritonserver/24.10": {"cuda": "12.6.2", "cudnn": "9.5.0.50", "nccl": "2.22.3", "python": "3.10", "driver_release": "560",
			"datacenter_drivers": "470.57 525.85 535.86 545.23", "cc_min": "6.0", "based_on_cuda": "12.6.2"},
		"release_notes tritonserver/24.12": {"cuda": "12.6.3", "cudnn": "9.6.0.74", "nccl": "2.23.4", "python": "3.12", "driver_release": "560"},
		"release_notes tritonserver/25.01": {"cuda": "12.8.0.038", "cudnn": "9.7.0.66", "nccl": "2.25.1", "python": "3.12", "driver_release": "560", "cc_min": "7.5"},
	} {
		got := by[key]
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %s = %q, want %q", key, k, got[k], v)
			}
		}
	}
	var st map[string]string
	for k, f := range by {
		if strings.HasPrefix(k, "statement pytorch/24.10@") {
			st = f
		}
	}
	if st == nil || st["cuda"] != "12.6.2" || st["driver"] != "560" || st["python"] != "3.10" {
		t.Errorf("pytorch 24.10 statement: %v", st)
	}
}

// Notes that only point elsewhere (the file from release 25.02 on) and
// files of another shape are errors, never an empty result.
func TestParseNotesRefusesOtherShapes(t *testing.T) {
	b, err := os.ReadFile("testdata/release_notes_pointer_26.07.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseNotes(b, "u", "r"); err == nil || !strings.Contains(err.Error(), "26.07") {
		t.Errorf("pointer-only notes: %v", err)
	}
	for _, bad := range []string{"", "# Release notes\n\nnothing here\n", "<html><body>Triton</body></html>"} {
		if _, err := ParseNotes([]byte(bad), "u", "r"); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	// A driver section naming another release than the heading's.
	mixed := "# [Triton Inference Server Release 24.10](x)\n\nRelease 24.11 is based on CUDA 12.6.2 which requires NVIDIA Driver release 560 or later.\n"
	if _, err := ParseNotes([]byte(mixed), "u", "r"); err == nil {
		t.Error("a driver section of another release was read")
	}
}

// A statement's fact must be stated by one of its quotes.
func TestStatementsMustBeQuoted(t *testing.T) {
	good := "## https://example.org/a\nstrength: x\n> Release 24.10 is based on CUDA 12.6.2, which requires NVIDIA Driver release 560 or later\nimage: pytorch 24.10 | cuda 12.6.2 | driver 560\n"
	if recs, err := ParseStatements([]byte(good)); err != nil || len(recs) != 1 {
		t.Fatalf("good statement: %v %v", recs, err)
	}
	dc := strings.Replace(good, "image:", "> you can use NVIDIA driver release 470.57 (or later R470), 535.86 (or later R535).\nimage:", 1)
	if _, err := ParseStatements([]byte(strings.Replace(dc, "| driver 560", "| driver 560 | datacenter_drivers 470.57 535.86", 1))); err != nil {
		t.Errorf("data-center drivers stated: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(dc, "| driver 560", "| driver 560 | datacenter_drivers 470.57 550.54", 1),
		strings.Replace(good, "driver 560", "driver 570", 1),
		strings.Replace(good, "| cuda 12.6.2", "| cuda 12.6.3", 1),
		strings.Replace(good, "| driver 560", "| arch 9.0", 1),
		"image: pytorch 24.10 | cuda 12.6.2\n",
	} {
		if _, err := ParseStatements([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

// Normalize: one build per image release with its bundled libraries and
// floor; an image known from statements takes the data-center branches of
// its release's notes (same CUDA, same floor), citing those notes.
func TestNormalize(t *testing.T) {
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range (Source{}).Canaries() {
		if !c.HeldBy(f) {
			t.Errorf("canary %s does not hold", c.Fact)
		}
	}
	reqs := map[string]string{}
	for _, q := range f.Requirements {
		reqs[q.Build.Variant+"/"+q.Build.Version+" "+q.Needs+" "+q.Kind] = q.Spec
	}
	for k, want := range map[string]string{
		"pytorch/24.10 cuda bundled": "12.6.2", "pytorch/24.10 driver minimum": ">=560",
		"pytorch/25.12 torch bundled": "2.10.0a0+b4e4ee81d3", "pytorch/20.02 driver minimum": ">=440.33.01", "tritonserver/24.04 driver minimum": ">=545",
		"tritonserver/24.10 cudnn bundled": "9.5.0.50", "tritonserver/24.10 nccl bundled": "2.22.3", "tritonserver/25.01 driver minimum": ">=560",
	} {
		if reqs[k] != want {
			t.Errorf("%s = %q, want %q", k, reqs[k], want)
		}
	}
	if _, ok := reqs["pytorch/25.12 driver minimum"]; ok {
		t.Error("pytorch 25.12's notes state no floor")
	}
	if _, ok := reqs["pytorch/24.10 cudnn bundled"]; ok {
		t.Error("the pytorch image took the Triton image's cuDNN")
	}
	attrs := map[string]db.Attribute{}
	for _, a := range f.Attributes {
		attrs[a.Version+" "+a.Key] = a
	}
	a := attrs["24.10 datacenter_drivers@pytorch"]
	if a.Value != "470.57 525.85 535.86 545.23" || !strings.Contains(a.URL, "triton-inference-server/server/blob/0194c3da9") || !strings.Contains(a.Ref, "tritonserver image") {
		t.Errorf("pytorch 24.10 data-center drivers: %+v", a)
	}
	for _, b := range f.Builds {
		if b.Component != Component || b.Channel != Channel || b.Platform != "linux" {
			t.Errorf("build %+v", b.Key())
		}
		if b.Variant == "pytorch" && b.Version == "24.10" && (b.CUDA != "12.6" || b.PythonMin != "3.10") {
			t.Errorf("pytorch 24.10: CUDA %s Python %s", b.CUDA, b.PythonMin)
		}
	}
	// A statement that disagrees with the notes of the same image is a
	// conflict, the notes kept.
	recs = append(recs, scraper.Record{Table: tableStatement, Key: "tritonserver/24.10@x", Ref: "x", Fields: map[string]string{"image": "tritonserver", "release": "24.10", "cuda": "12.6.1"}})
	f, err = Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	var conflict bool
	for _, c := range f.Conflicts {
		conflict = conflict || (c.Field == "cuda" && c.Kept == "12.6.2" && c.Other == "12.6.1")
	}
	if !conflict {
		t.Errorf("no conflict for the disagreeing statement: %+v", f.Conflicts)
	}
}

// The live refresh end to end: the notes file served on loopback, read
// through the fetch client, checked and written; notes that only point
// elsewhere fail the source and keep the previous facts.
func TestLiveRefresh(t *testing.T) {
	snap := livetest.New(t, map[string]string{liveNotes: "testdata/release_notes_24.10.md"}).MustPass(t, Source{}, t.TempDir())
	if len(snap.Records) != 1 || snap.Records[0].Fields["cuda"] != "12.6.2" {
		t.Errorf("live refresh wrote %+v", snap.Records)
	}
	dir, _ := livetest.Prime(t, Source{}, map[string]string{liveNotes: "testdata/release_notes_24.10.md"})
	msg := livetest.New(t, map[string]string{liveNotes: "testdata/release_notes_pointer_26.07.md"}).MustFail(t, Source{}, dir)
	if !strings.Contains(msg, "26.07") {
		t.Errorf("failure names %q", msg)
	}
}

func FuzzParseNotes(f *testing.F) {
	for _, p := range []string{"testdata/release_notes_24.10.md", "testdata/release_notes_pointer_26.07.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ParseNotes(b, "u", "r")
		if err == nil && len(recs) != 1 {
			t.Fatalf("%d records without an error", len(recs))
		}
	})
}

func FuzzParseStatements(f *testing.F) {
	b, err := captures.ReadFile("captures/image-statements.md")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if recs, err := ParseStatements(b); err == nil && len(recs) == 0 {
			t.Fatal("no records and no error")
		}
	})
}
