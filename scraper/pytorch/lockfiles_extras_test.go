package pytorch

import (
	"testing"

	"github.com/cudb/cudb/scraper"
)

// TestLockfilesElidedExtras: evidence that quotes a wheel's pin with its
// extras elided (torch_pins_from_lockfiles.csv row 843, a design review
// citing torch 2.14.1's requires_dist: "cuda-toolkit[...]", 13.0.3)
// keeps the pinned version on the bare package name, a requirement pip
// and uv can read; the CUDA fact it implies stays.
func TestLockfilesElidedExtras(t *testing.T) {
	recs := []scraper.Record{{Table: "pins", Key: "2.14.1|cuda-toolkit[...]|13.0.3", Ref: "torch_pins_from_lockfiles.csv row 843",
		Fields: map[string]string{"torch_version": "2.14.1", "package": "cuda-toolkit[...]", "pinned_version": "13.0.3",
			"platform_marker": "(stated only as: on Linux)", "evidence_kind": "other"}}}
	f, err := Lockfiles{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range f.Requirements {
		got[r.Needs] = r.Spec
	}
	if got["cuda-toolkit"] != "==13.0.3" || got["cuda"] != "13.0.3" {
		t.Errorf("requirements %v: want cuda-toolkit ==13.0.3 and cuda 13.0.3", got)
	}
	if _, ok := got["cuda-toolkit[...]"]; ok {
		t.Error("the elided extras were kept")
	}
}
