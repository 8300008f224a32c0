package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// verify judges what resolve judges (embedded data): TensorFlow 1.12's
// CUDA "9" (no minor) against the driver over the 9.x minors, and a
// Python the data holds no range for as not judged, never a pass or a
// refusal.
func TestVerifySameAsResolve(t *testing.T) {
	d := querytest.Embedded(t)
	tf := func(drv string) *host.Snapshot {
		return &host.Snapshot{Origin: host.OriginReportPrefix + "collect_env", OS: "Ubuntu 16.04 LTS (x86_64)",
			Driver:  &host.Driver{Version: drv, Source: "collect_env"},
			Pythons: []host.Python{{Kind: "report", Version: "3.6", TensorFlow: &host.TensorFlow{Version: "1.12.0", Source: "collect_env"}}}}
	}
	find := func(r *Result, cat string) []findings.Finding {
		var out []findings.Finding
		for _, f := range r.Findings {
			if f.Category == cat {
				out = append(out, f)
			}
		}
		return out
	}
	r, err := Verify(context.Background(), d, tf("380.10"))
	if err != nil {
		t.Fatal(err)
	}
	if got := find(r, findings.CatDriverTooOld); len(got) != 1 || got[0].Severity != findings.SevError ||
		!strings.Contains(got[0].Message, "no CUDA 9.x runs on this driver: driver 380.10 supports CUDA up to 8.0") {
		t.Errorf("380.10: want one driver_too_old error, got %+v", r.Findings)
	}
	r, err = Verify(context.Background(), d, tf("535.104.05"))
	if err != nil {
		t.Fatal(err)
	}
	if got := find(r, findings.CatDriverTooOld); len(got) != 0 {
		t.Errorf("535.104.05: want no driver finding, got %+v", got)
	}
	r, err = Verify(context.Background(), d, tf("390.46"))
	if err != nil {
		t.Fatal(err)
	}
	if got := find(r, findings.CatUnknownVersion); len(got) != 1 || got[0].Severity != findings.SevInfo ||
		!strings.Contains(got[0].Message, "the build names CUDA 9 but not its minor: this driver runs CUDA 9.0, 9.1 but not 9.2 (needs >= 396.26)") {
		t.Errorf("390.46: want one unknown info naming the minors, got %+v", r.Findings)
	}
	jax := &host.Snapshot{Origin: host.OriginReportPrefix + "collect_env", OS: "Ubuntu 22.04.4 LTS (x86_64)",
		Driver: &host.Driver{Version: "550.90.07", Source: "collect_env"},
		Pythons: []host.Python{{Kind: "report", Version: "3.12", JAX: &host.JAX{Version: "0.4.30", Jaxlib: "0.4.30",
			Plugins: map[string]string{"jax-cuda12-plugin": "0.4.30", "jax-cuda12-pjrt": "0.4.30"}}}}}
	r, err = Verify(context.Background(), d, jax)
	if err != nil {
		t.Fatal(err)
	}
	if find(r, findings.CatPythonUnsupported) != nil {
		t.Errorf("jax 0.4.30 on 3.12: a missing range refused the Python: %+v", r.Findings)
	}
	// jaxlib/setup.py at jax-v0.4.30 states 3.9-3.12: the range is known
	// now, so 3.12 is judged (fits) rather than "not judged".
	for _, f := range find(r, findings.CatUnknownVersion) {
		if strings.Contains(f.Message, "the database records no Python range for jax 0.4.30") {
			t.Errorf("jax 0.4.30 on 3.12: its range is in the data, got %q", f.Message)
		}
	}
}

// A value a judgement needs that does not parse is said, as unknown (a
// warning naming the value), never skipped in silence and never an error.
func TestUnparsedValueIsSaid(t *testing.T) {
	d := querytest.Embedded(t)
	snap := &host.Snapshot{Origin: host.OriginReportPrefix + "collect_env", OS: "Ubuntu 22.04.4 LTS (x86_64)",
		Driver:  &host.Driver{Version: "535.104.05", Source: "collect_env"},
		Pythons: []host.Python{{Kind: "report", Version: "3.x", TensorFlow: &host.TensorFlow{Version: "2.15.0", Source: "collect_env"}}}}
	r, err := Verify(context.Background(), d, snap)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		if f.Category == findings.CatUnknownVersion && f.Severity == findings.SevWarning && strings.Contains(f.Message, `the Python version "3.x" does not parse: whether it runs on that Python is not judged`) {
			found = true
		}
		if f.Severity == findings.SevError {
			t.Errorf("an unparsed value gave an error: %+v", f)
		}
	}
	if !found {
		t.Errorf("want a warning naming the Python version that does not parse, got %+v", r.Findings)
	}
}
