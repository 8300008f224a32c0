package site

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query"
)

// selectorCase is one set of selections on install.html.
type selectorCase struct {
	fw, v, os, pm, gpu, driver string
}

func (c selectorCase) url(base string) string {
	q := url.Values{}
	for k, v := range map[string]string{"fw": c.fw, "v": c.v, "os": c.os, "pm": c.pm, "gpu": c.gpu, "driver": c.driver} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return base + "/install.html?" + q.Encode()
}

// TestInstallSelectorInChromium serves the generated site on loopback,
// selects through install.html in headless Chromium and checks every
// answer against query.Resolve for the same inputs.
func TestInstallSelectorInChromium(t *testing.T) {
	bin := chromium(t)
	ctx := context.Background()
	// Driver floors as NVIDIA's CUDA release notes give them, so the
	// driver picks have something to judge.
	d := testDBWith(t, func(f *db.Facts) {
		p := db.Provenance{Source: "fixture", URL: "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"}
		for _, r := range [][4]string{{"11.3.0", "toolkit", "465.19.01", "465.89"}, {"11.7.0", "toolkit", "515.43.04", "516.01"},
			{"11.8.0", "toolkit", "520.61.05", "520.06"}, {"12.1.0", "toolkit", "530.30.02", "531.14"},
			{"12.4.0", "toolkit", "550.54.14", "551.61"}, {"11", "minor_compat", "450.80.02", "452.39"}, {"12", "minor_compat", "525.60.13", "527.41"}} {
			f.CUDADrivers = append(f.CUDADrivers, db.CUDADriver{CUDA: r[0], OS: "linux", Kind: r[1], MinDriver: r[2], Provenance: p},
				db.CUDADriver{CUDA: r[0], OS: "windows", Kind: r[1], MinDriver: r[3], Provenance: p})
		}
		// A release whose cuDNN the data lacks: its answer is "unknown".
		q := db.Provenance{Source: "fixture", URL: "https://example.test/ort", Ref: "ort row"}
		k := db.BuildKey{Component: "onnxruntime-gpu", Version: "1.99.0", Variant: "cuda12", Platform: "linux"}
		f.Releases = append(f.Releases, db.Release{Component: k.Component, Version: k.Version, Provenance: q})
		f.Builds = append(f.Builds, db.Build{Component: k.Component, Version: k.Version, Variant: k.Variant, Platform: k.Platform, CUDA: "12.4", Provenance: q})
		f.Requirements = append(f.Requirements, db.Requirement{Build: k, Needs: "cuda", Kind: db.KindTested, Spec: "12.4", Provenance: q})
	})
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
	var cases []selectorCase
	for _, f := range sel.Frameworks {
		cases = append(cases, selectorCase{fw: f.Name, v: f.Versions[0], os: "linux", pm: "pip"})
	}
	for _, f := range sel.Frameworks {
		if f.Name == "torch" {
			for _, v := range f.Versions[:min(3, len(f.Versions))] {
				cases = append(cases, selectorCase{fw: "torch", v: v, os: "linux", pm: "pip", gpu: "Tesla K80"},
					selectorCase{fw: "torch", v: v, os: "linux", pm: "pip", gpu: "Tesla T4"},
					selectorCase{fw: "torch", v: v, os: "windows", pm: "pip", gpu: "NVIDIA A100"})
			}
		}
	}
	for _, os := range []string{"linux", "windows"} {
		drv := sel.Drivers[os]
		if len(drv) < 2 {
			t.Fatalf("%s: %d drivers offered, want at least 2", os, len(drv))
		}
		for _, dv := range drv {
			cases = append(cases, selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: dv})
		}
		cases = append(cases, selectorCase{fw: "torch", v: "2.1.0", os: os, pm: "pip", driver: drv[0], gpu: "Tesla T4"})
	}
	cases = append(cases, selectorCase{fw: "torch", v: "1.10.2", os: "linux", pm: "conda", gpu: "Tesla K80"})
	if len(cases) < 5 {
		t.Fatalf("only %d selections to try; the fixture should give at least 5", len(cases))
	}
	var answered, refused, dropped int
	statuses := map[string]int{}
	for _, c := range cases {
		dom, log := runChromium(t, bin, "--dump-dom", c.url(srv.URL))
		if errs := consoleErrors(log); len(errs) > 0 {
			t.Errorf("%+v: console errors:\n%s", c, strings.Join(errs, "\n"))
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(dom))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Find("body").Attr("data-install-ready"); !ok {
			t.Fatalf("%+v: the selector script did not finish", c)
		}
		ans := doc.Find("#install-answer")
		attr := func(k string) string { return ans.AttrOr("data-"+k, "<missing>") }
		// The selects hold what was asked (a value the page does not
		// offer would fall back to another and fail here).
		if got, want := attr("query"), strings.TrimPrefix(c.url(""), "/install.html?"); got != want {
			t.Errorf("the page selected %q, asked %q", got, want)
		}
		req := query.ResolveRequest{Requirements: []string{c.fw + "==" + c.v}, Platform: c.os, Channel: c.pm, GPU: c.gpu, Driver: c.driver}
		res, err := query.Resolve(ctx, d, req)
		if err != nil || len(res.Stacks) == 0 {
			refused++
			if attr("status") != "error" || attr("command") != "" {
				t.Errorf("%+v: resolve says %v, the page shows status %q command %q", c, err, attr("status"), attr("command"))
			}
			continue
		}
		answered++
		best := res.Stacks[0]
		for k, want := range map[string]string{"command": best.Install.Command, "variant": best.Variant, "cuda": best.CUDA,
			"cudnn": best.CUDNN, "status": best.Status} {
			if got := attr(k); got != want {
				t.Errorf("%+v: page %s = %q, resolve's best stack has %q", c, k, got, want)
			}
		}
		// The three-valued verdict is shown, not only carried in data-*.
		if got := doc.Find("#ans-status").Text(); got != "status: "+best.Status {
			t.Errorf("%+v: shown %q, resolve's best stack is %q", c, got, best.Status)
		}
		statuses[best.Status]++
		for _, u := range best.Unknown {
			if doc.Find("#ans-reasons li").FilterFunction(func(_ int, li *goquery.Selection) bool { return li.Text() == "unknown: "+u }).Length() == 0 {
				t.Errorf("%+v: the page does not name the gap %q", c, u)
			}
		}
		if got := doc.Find("#ans-command").Text(); got != best.Install.Command {
			t.Errorf("%+v: shown command %q, want %q", c, got, best.Install.Command)
		}
		if attr("dropped") != "0" {
			dropped++
			if doc.Find("#ans-reasons li:contains('not chosen')").Length() == 0 {
				t.Errorf("%+v: builds were dropped but no reason is listed", c)
			}
		}
	}
	t.Logf("%d selections: %d answered, %d refused, %d with builds ruled out; statuses %v", len(cases), answered, refused, dropped, statuses)
	if statuses["ok"] == 0 || statuses["unknown"] == 0 {
		t.Errorf("statuses shown %v: the check needs an ok and an unknown answer", statuses)
	}
	if dropped == 0 || refused == 0 {
		t.Errorf("no selection ruled a build out (%d) or was refused (%d): the reasons went unchecked", dropped, refused)
	}
	if answered < 5 {
		t.Errorf("only %d selections gave a stack; the check needs at least 5", answered)
	}
}
