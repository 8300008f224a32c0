package site

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
)

// TestInstallSelectorScreenshots makes docs/site.md's screenshots from
// the shipped database, clicking through the page as the Chromium test
// does:
//
//	CUDB_SITE_SCREENSHOTS=1 CUDB_ARTIFACTS=$PWD/../../../../docs/img go test ./cmd/cudb/internal/site -run Screenshots
//
// It also checks each answer against query.Resolve, so a screenshot never
// shows an answer the CLI would not give.
func TestInstallSelectorScreenshots(t *testing.T) {
	if os.Getenv("CUDB_SITE_SCREENSHOTS") == "" || os.Getenv("CUDB_ARTIFACTS") == "" {
		t.Skip("set CUDB_SITE_SCREENSHOTS=1 and CUDB_ARTIFACTS=<folder> to write the install selector's screenshots")
	}
	bin := chromium(t)
	ctx := context.Background()
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := t.TempDir()
	if _, err := Generate(ctx, d, out); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	page := openSelector(t, bin, srv.URL+"/install.html")
	for _, s := range []struct {
		file string
		c    selectorCase
	}{
		{"install-torch-driver.png", selectorCase{fw: "torch", v: "2.10.0", os: "linux", pm: "pip", driver: "535.54.03"}},
		{"install-torch-gpu.png", selectorCase{fw: "torch", v: "2.7.0", os: "windows", pm: "uv", gpu: "Tesla K80"}},
		{"install-pair-driver.png", selectorCase{fw: "torch", v: "2.10.0", fw2: "jax", v2: "0.9.0", os: "linux", pm: "pip", driver: "535.54.03"}},
		{"install-pair-conflict.png", selectorCase{fw: "torch", v: "2.9.0", fw2: "tensorflow", v2: "2.18.0", os: "linux", pm: "pip"}},
	} {
		page.selectCase(s.c)
		got := page.read()
		res, err := query.Resolve(ctx, d, query.ResolveRequest{Requirements: s.c.requirements(), Platform: s.c.os,
			Channel: s.c.channel(), GPU: s.c.gpu, Driver: s.c.driver})
		switch {
		case err != nil:
			t.Fatalf("%+v: resolve: %v", s.c, err)
		case len(res.Conflicts) > 0:
			if !slices.Equal(got.Conflicts, query.ConflictLines(res.Conflicts, false)) {
				t.Fatalf("%+v: page shows %q, resolve gives %v", s.c, got.Conflicts, res.Conflicts)
			}
		case got.Attr["command"] != res.Stacks[0].Install.Command:
			t.Fatalf("%+v: page shows %q, resolve gives %v", s.c, got.Attr["command"], res.Stacks[0].Install.Command)
		}
		page.screenshot(s.file)
	}
}

// TestDriverTableMatchesCheckDriverOS checks the selector's driver table
// for the shipped database: for drivers on both sides of every range edge
// (and at the edges, and one per driver branch), the verdict the page
// looks up is nvidia.CheckDriverOS's for every CUDA version it holds.
func TestDriverTableMatchesCheckDriverOS(t *testing.T) {
	ctx := context.Background()
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sel, err := BuildSelector(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	// The same database gives the same bytes (CUDA "10" and "10.0" once
	// swapped places from run to run).
	again, err := BuildSelector(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, sel), mustJSON(t, again); a != b {
		t.Errorf("two builds of data/install.js differ")
	}
	branches, err := d.DriverBranches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, os := range selectorOS {
		step := sel.Driver.OS[os]
		if len(step.Rows) != len(step.Breaks)+1 || len(step.Breaks) < 5 {
			t.Fatalf("%s: %d breaks, %d rows", os, len(step.Breaks), len(step.Rows))
		}
		drivers := []string{"100", "999.99"}
		for _, b := range step.Breaks {
			drivers = append(drivers, belowDriver(b), b, aboveDriver(b))
		}
		for _, b := range branches {
			drivers = append(drivers, b.Branch, b.Branch+".50")
		}
		for _, drv := range drivers {
			if _, err := nvidia.ParseDriver(drv); err != nil {
				continue
			}
			// The page's lookup: the number of edges at or below drv.
			i := 0
			for i < len(step.Breaks) && version.CompareDottedText(step.Breaks[i], drv) <= 0 {
				i++
			}
			row, max := sel.Driver.Verdicts[step.Rows[i]], sel.Driver.VerdictMax[step.Rows[i]]
			for cuda, idx := range row {
				p := sel.Driver.Picks[idx]
				got := DriverPick{OK: p.OK, Note: p.Note, Reason: FillDriverReason(p.Reason, drv, max), Unknown: p.Unknown}
				var want DriverPick
				if v, err := nvidia.CheckDriverOS(ctx, d, drv, cuda, os); err != nil {
					want.Reason = err.Error()
				} else {
					want = DriverPick{OK: v.OK, Note: v.Note, Reason: v.Reason, Unknown: v.Unknown}
				}
				if got != want {
					t.Errorf("%s driver %s, CUDA %s: the table says %+v, CheckDriverOS %+v", os, drv, cuda, got, want)
				}
				checked++
			}
		}
	}
	t.Logf("%d driver × CUDA verdicts checked", checked)
}

// TestInstallSelectorRealData clicks through the site generated from the
// shipped database (every release with a CUDA build) and checks each
// answer against query.Resolve and pin.Pins: each framework's newest and
// oldest offered release, typed drivers across the CUDA 11-13 floors on
// both OSes, GPUs from Kepler to Blackwell, uv and conda.
func TestInstallSelectorRealData(t *testing.T) {
	bin := chromium(t)
	ctx := context.Background()
	d, out, sel := shippedSite(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	gpuOf := func(cc string) string {
		for _, g := range sel.GPUs {
			if g.CC == cc {
				return g.Name
			}
		}
		t.Fatalf("no GPU of compute capability %s in the data", cc)
		return ""
	}
	var cases []selectorCase
	for _, f := range sel.Frameworks {
		newest, oldest := f.Versions[0], f.Versions[len(f.Versions)-1]
		cases = append(cases, selectorCase{fw: f.Name, v: newest, os: "linux", pm: "pip"},
			selectorCase{fw: f.Name, v: newest, os: "linux", pm: "uv", driver: "535.104.05"},
			selectorCase{fw: f.Name, v: oldest, os: "windows", pm: "uv"},
			selectorCase{fw: f.Name, v: newest, os: "linux", pm: "pip", gpu: gpuOf("8.6")})
	}
	for _, drv := range []string{"418.67", "470.82.01", "525.60.13", "535.54.03", "550.54.14", "570.86.10", "r580", "580.65.06", "999"} {
		cases = append(cases, selectorCase{fw: "torch", v: "2.10.0", os: "linux", pm: "pip", driver: drv})
	}
	for _, drv := range []string{"472.12", "531.14", "566.36", "581.15"} {
		cases = append(cases, selectorCase{fw: "torch", v: "2.10.0", os: "windows", pm: "uv", driver: drv})
	}
	for _, cc := range []string{"3.7", "5.0", "7.5", "9.0", "10.0", "12.0"} {
		cases = append(cases, selectorCase{fw: "torch", v: "2.7.0", os: "linux", pm: "pip", gpu: gpuOf(cc)})
	}
	cases = append(cases, selectorCase{fw: "torch", v: "2.5.1", os: "linux", pm: "conda"},
		selectorCase{fw: "torch", v: "1.13.1", os: "linux", pm: "conda", gpu: gpuOf("3.7"), driver: "470.82.01"})
	page := openSelector(t, bin, srv.URL+"/install.html")
	var n selectorTally
	for _, c := range cases {
		page.selectCase(c)
		n.check(t, ctx, d, c, page.read())
		if errs := page.consoleErrors(); len(errs) > 0 {
			t.Errorf("%+v: console errors:\n%s", c, strings.Join(errs, "\n"))
		}
	}
	t.Logf("%d selections on the shipped data: %d answered (%d pin files, %d pin refusals), %d refused, %d with builds ruled out",
		len(cases), n.answered, n.pinned, n.pinRefused, n.refused, n.dropped)
	if n.pinned < 10 || n.dropped == 0 || n.refused == 0 {
		t.Errorf("too little exercised: %+v", n)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
