package site

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
)

// pairDB is selectorDB with a conda build of TensorFlow 2.14.0 beside
// the fixture's conda-only torch 1.10.2, so a pair has conda answers.
func pairDB(t *testing.T) *db.DB {
	return testDBWith(t, func(f *db.Facts) {
		selectorFacts(f)
		p := db.Provenance{Source: "fixture-tf", URL: "https://example.test/tf-conda", Ref: "tensorflow 2.14.0 conda"}
		b := db.Build{Component: frameworks.TensorFlow, Version: "2.14.0", Variant: "cuda11", Platform: "linux", Channel: "conda", CUDA: "11.8",
			PythonMin: "3.9", PythonMax: "3.11", Provenance: p}
		f.Builds = append(f.Builds, b)
		f.Requirements = append(f.Requirements, db.Requirement{Build: b.Key(), Needs: "cudnn", Spec: "8.6.0", Kind: db.KindTested, Provenance: p})
	})
}

// requirements is the selection as cudb resolve's arguments: one
// framework, or two in the order of the framework table (the order the
// page's pair files and its cudb command use).
func (c selectorCase) requirements() []string {
	reqs := []string{c.fw + "==" + c.v}
	if c.fw2 == "" {
		return reqs
	}
	reqs = append(reqs, c.fw2+"=="+c.v2)
	rank := func(r string) int {
		name, _, _ := strings.Cut(r, "==")
		return slices.IndexFunc(frameworks.All, func(f frameworks.Framework) bool { return f.Name == name })
	}
	slices.SortFunc(reqs, func(a, b string) int { return rank(a) - rank(b) })
	return reqs
}

// checkConflicts: where resolve finds no shared stack, the page shows
// status incompatible, the conflict lines cudb resolve prints (one per
// pair of builds, the first component that disagrees), and pin's refusal.
func (n *selectorTally) checkConflicts(t *testing.T, c selectorCase, res *query.Resolution, perr error, got shown) {
	t.Helper()
	n.conflicts++
	want := query.ConflictLines(res.Conflicts, false)
	if !slices.Equal(got.Conflicts, want) {
		t.Errorf("%+v: the page shows the conflicts\n%q\ncudb resolve prints\n%q", c, got.Conflicts, want)
	}
	if got.Attr["status"] != "incompatible" || !strings.Contains(got.Status, "incompatible (cudb resolve exits 3)") || got.Attr["command"] != "" {
		t.Errorf("%+v: conflicts shown as status %q (%q), command %q", c, got.Attr["status"], got.Status, got.Attr["command"])
	}
	if errs.CodeOf(perr) != errs.CodeIncompatible {
		t.Errorf("%+v: pin should refuse with exit 3, got %v", c, perr)
	}
	if got.Attr["pin"] != "refused" || got.PinRefused == "" || got.PinFileShown {
		t.Errorf("%+v: pin refuses (%v), the page shows pin %q, refusal %q, file block %v", c, perr, got.Attr["pin"], got.PinRefused, got.PinFileShown)
	}
}

// TestInstallSelectorPairsInChromium clicks through two-framework
// selections on the fixture site (every paired torch × TensorFlow release
// on Linux, ONNX Runtime with a cuDNN the data lacks, typed drivers, GPUs,
// uv and Windows, the pair picked in either order) and checks each answer
// against query.Resolve and pin.Pins for the same inputs: the shared
// stack and its pin file byte for byte, the conflict lines, the
// refusals.
func TestInstallSelectorPairsInChromium(t *testing.T) {
	bin := chromium(t)
	ctx := context.Background()
	d := pairDB(t)
	out := t.TempDir()
	if _, err := Generate(ctx, d, out); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	sel, err := BuildSelector(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	paired := map[string][]string{}
	for _, f := range sel.Frameworks {
		paired[f.Name] = f.Versions[:f.Paired]
	}
	var cases []selectorCase
	for _, v := range paired[frameworks.Torch] {
		for _, v2 := range paired[frameworks.TensorFlow] {
			cases = append(cases, selectorCase{fw: frameworks.Torch, v: v, fw2: frameworks.TensorFlow, v2: v2, os: "linux", pm: "pip"})
		}
	}
	for _, drv := range []string{"470.57.02", belowDriver("520.61.05"), "520.61.05", belowDriver("525.60.13"), "525.60.13", "530.30.02", "550.54.14"} {
		for _, v2 := range []string{"2.14.0", "2.17.0"} {
			cases = append(cases, selectorCase{fw: frameworks.Torch, v: "2.1.0", fw2: frameworks.TensorFlow, v2: v2, os: "linux", pm: "pip", driver: drv})
		}
	}
	cases = append(cases,
		selectorCase{fw: frameworks.Torch, v: "2.1.0", fw2: frameworks.TensorFlow, v2: "2.17.0", os: "linux", pm: "uv"},
		selectorCase{fw: frameworks.Torch, v: "2.1.0", fw2: frameworks.TensorFlow, v2: "2.17.0", os: "linux", pm: "uv", gpu: "NVIDIA A100", driver: "535.104.05"},
		selectorCase{fw: frameworks.Torch, v: "2.1.0", fw2: frameworks.TensorFlow, v2: "2.14.0", os: "linux", pm: "pip", gpu: "Tesla T4"},
		selectorCase{fw: frameworks.Torch, v: "2.1.0", fw2: frameworks.TensorFlow, v2: "2.14.0", os: "linux", pm: "pip", gpu: "Tesla K80"},
		selectorCase{fw: frameworks.Torch, v: "2.4.0", fw2: frameworks.TensorFlow, v2: "2.17.0", os: "windows", pm: "pip"},
		selectorCase{fw: frameworks.Torch, v: "2.4.0", fw2: frameworks.TensorFlow, v2: "2.17.0", os: "windows", pm: "uv", driver: "551.61"},
		// Picked the other way round: the same pair, the same answer.
		selectorCase{fw: frameworks.TensorFlow, v: "2.17.0", fw2: frameworks.Torch, v2: "2.1.0", os: "linux", pm: "pip"},
		selectorCase{fw: frameworks.TensorFlow, v: "2.15.0", fw2: frameworks.Torch, v2: "2.1.0", os: "linux", pm: "pip", driver: "530.30.02"},
		selectorCase{fw: frameworks.Torch, v: "2.4.0", fw2: frameworks.ONNXRuntime, v2: "1.99.0", os: "linux", pm: "pip"},
		selectorCase{fw: frameworks.Torch, v: "2.4.0", fw2: frameworks.ONNXRuntime, v2: "1.99.0", os: "linux", pm: "pip", driver: "530.30.02"},
		selectorCase{fw: frameworks.TensorFlow, v: "2.17.0", fw2: frameworks.ONNXRuntime, v2: "1.99.0", os: "linux", pm: "uv"},
		selectorCase{fw: frameworks.Torch, v: "1.10.2", fw2: frameworks.TensorFlow, v2: "2.14.0", os: "linux", pm: "conda"},
		selectorCase{fw: frameworks.Torch, v: "1.10.2", fw2: frameworks.TensorFlow, v2: "2.14.0", os: "linux", pm: "conda", driver: "470.57.02"},
		// Back to one framework: the pair is dropped from the answer.
		selectorCase{fw: frameworks.Torch, v: "2.1.0", os: "linux", pm: "pip"})
	page := openSelector(t, bin, srv.URL+"/install.html")
	var n selectorTally
	for i, c := range cases {
		page.selectCase(c)
		n.check(t, ctx, d, c, page.read())
		if errs := page.consoleErrors(); len(errs) > 0 {
			t.Errorf("%+v: console errors:\n%s", c, strings.Join(errs, "\n"))
		}
		if i == 0 {
			page.screenshot("install-pair.png")
		}
	}
	t.Logf("%d selections: %d answered (%d pin files, %d pin refusals), %d in conflict, %d refused, %d with builds ruled out; statuses %v",
		len(cases), n.answered, n.pinned, n.pinRefused, n.conflicts, n.refused, n.dropped, n.statuses)
	if n.statuses["ok"] == 0 || n.statuses["unknown"] == 0 || n.conflicts == 0 || n.refused == 0 || n.dropped == 0 || n.pinned < 5 {
		t.Errorf("too little exercised: %+v", n)
	}
}

// TestInstallSelectorPairLink: a shared link to a pair opens from
// file:// (the pair file loads as a script) and names the pair in the
// order cudb's commands use, whichever order the link gives.
func TestInstallSelectorPairLink(t *testing.T) {
	bin := chromium(t)
	d := selectorDB(t)
	out := t.TempDir()
	if _, err := Generate(context.Background(), d, out); err != nil {
		t.Fatal(err)
	}
	base := "file://" + filepath.ToSlash(filepath.Join(out, "install.html"))
	c := selectorCase{fw: frameworks.TensorFlow, v: "2.14.0", fw2: frameworks.Torch, v2: "2.1.0", os: "linux", pm: "uv", driver: "530.30.02"}
	page := openSelector(t, bin, base+"?"+c.query().Encode())
	page.cur = c
	page.selectCase(c) // nothing to change: waits for the answer
	got := page.read()
	if want := "# cudb pin torch==2.1.0 tensorflow==2.14.0 --platform linux --driver 530.30.02 --format uv\n"; !strings.HasPrefix(got.Pin, want) {
		t.Errorf("the linked pair shows %q and pin file\n%s\nwant it to start %q", got.Status, got.Pin, want)
	}
	if errs := page.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
