package site

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
)

// TestInstallSelectorPairsRealData clicks through two-framework
// selections on the site generated from the shipped database and checks
// each answer against query.Resolve and pin.Pins: torch with each other
// framework and TensorFlow with JAX (newest and oldest paired releases),
// the first paired torch × TensorFlow and torch × JAX pairs that conflict
// and that agree, each with drivers from too old to new enough on Linux
// and Windows, GPUs, and uv.
func TestInstallSelectorPairsRealData(t *testing.T) {
	bin := chromium(t)
	ctx := context.Background()
	d, out, sel := shippedSite(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	paired := map[string][]string{}
	for _, f := range sel.Frameworks {
		paired[f.Name] = f.Versions[:f.Paired]
	}
	turing := ""
	for _, g := range sel.GPUs {
		if g.CC == "7.5" && turing == "" {
			turing = g.Name
		}
	}
	var cases []selectorCase
	pair := func(a, b string) {
		va, vb := paired[a], paired[b]
		cases = append(cases, selectorCase{fw: a, v: va[0], fw2: b, v2: vb[0], os: "linux", pm: "pip"},
			selectorCase{fw: a, v: va[len(va)-1], fw2: b, v2: vb[len(vb)-1], os: "windows", pm: "uv"},
			selectorCase{fw: b, v: vb[0], fw2: a, v2: va[len(va)-1], os: "linux", pm: "pip", driver: "535.54.03"})
		// The first pairs resolve answers with conflicts and with a
		// shared stack, each under drivers from too old to new.
		// A shared stack cudb cannot vouch for (onnxruntime-gpu's
		// releases from 1.18 name no platform: unknown on Linux) stands
		// in for an agreeing one where none is known-good.
		var conflict, agree, unknown *selectorCase
		for _, x := range va {
			for _, y := range vb {
				res, err := query.Resolve(ctx, d, query.ResolveRequest{Requirements: []string{a + "==" + x, b + "==" + y}, Platform: "linux"})
				c := selectorCase{fw: a, v: x, fw2: b, v2: y, os: "linux", pm: "pip"}
				switch {
				case err != nil:
				case len(res.Conflicts) > 0 && conflict == nil:
					conflict = &c
				case len(res.Stacks) > 0 && res.Status == query.StatusOK && agree == nil:
					agree = &c
				case len(res.Stacks) > 0 && unknown == nil:
					unknown = &c
				}
				if conflict != nil && agree != nil {
					break
				}
			}
			if conflict != nil && agree != nil {
				break
			}
		}
		if agree == nil {
			agree = unknown
		}
		if conflict == nil || agree == nil {
			t.Fatalf("%s × %s: no paired releases conflict (%v) or agree (%v)", a, b, conflict, agree)
		}
		for _, c := range []selectorCase{*conflict, *agree} {
			for _, drv := range []string{"", "470.82.01", "535.54.03", "580.65.06"} {
				c.driver = drv
				cases = append(cases, c)
			}
			c.os, c.pm, c.driver = "windows", "uv", "581.15"
			cases = append(cases, c)
			c.os, c.pm, c.driver, c.gpu = "linux", "uv", "", turing
			cases = append(cases, c)
		}
	}
	pair(frameworks.Torch, frameworks.TensorFlow)
	pair(frameworks.Torch, frameworks.JAX)
	pair(frameworks.Torch, frameworks.ONNXRuntime)
	pair(frameworks.TensorFlow, frameworks.JAX)
	page := openSelector(t, bin, srv.URL+"/install.html")
	var n selectorTally
	for _, c := range cases {
		page.selectCase(c)
		n.check(t, ctx, d, c, page.read())
		if errs := page.consoleErrors(); len(errs) > 0 {
			t.Errorf("%+v: console errors:\n%s", c, strings.Join(errs, "\n"))
		}
	}
	t.Logf("%d two-framework selections on the shipped data: %d answered (%d pin files, %d pin refusals), %d in conflict, %d refused, %d with builds ruled out; statuses %v",
		len(cases), n.answered, n.pinned, n.pinRefused, n.conflicts, n.refused, n.dropped, n.statuses)
	if n.pinned < 5 || n.conflicts < 4 || n.refused == 0 || n.dropped == 0 {
		t.Errorf("too little exercised: %+v", n)
	}
}

// shipped is the site generated from the shipped database, made once for
// the tests that click through it (generating it is the slow part under
// the race detector) and removed by TestMain.
var shipped struct {
	once sync.Once
	d    *db.DB
	dir  string
	sel  *Selector
	err  error
}

func shippedSite(t *testing.T) (*db.DB, string, *Selector) {
	t.Helper()
	shipped.once.Do(func() {
		ctx := context.Background()
		if shipped.d, shipped.err = db.OpenImage(ctx, data.DB, data.Columns, "embedded"); shipped.err != nil {
			return
		}
		if shipped.dir, shipped.err = os.MkdirTemp("", "cudb-site-test-"); shipped.err != nil {
			return
		}
		if _, shipped.err = Generate(ctx, shipped.d, shipped.dir); shipped.err != nil {
			return
		}
		shipped.sel, shipped.err = BuildSelector(ctx, shipped.d)
	})
	if shipped.err != nil {
		t.Fatal(shipped.err)
	}
	return shipped.d, shipped.dir, shipped.sel
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shipped.dir != "" {
		if err := os.RemoveAll(shipped.dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if shipped.d != nil {
		shipped.d.Close()
	}
	os.Exit(code)
}
