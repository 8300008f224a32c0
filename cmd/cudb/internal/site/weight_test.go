package site

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/cudb/cudb/internal/docfigures"
	"github.com/cudb/cudb/query"
)

// Page-weight budgets (DESIGN.md §7, docs/site.md): what a browser fetches
// to show the page, counted in bytes as served.
const (
	installFirstLoadBudget = 250_000
	gpuPageBudget          = 600_000
)

// countingServer serves the site and counts the bytes of every response
// by path, in the order the browser asked for them.
type countingServer struct {
	mu    sync.Mutex
	paths []string
	bytes map[string]int
}

type countingWriter struct {
	http.ResponseWriter
	n *int
}

func (w countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	*w.n += n
	return n, err
}

func (c *countingServer) handler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No revalidation: every load is a first load.
		w.Header().Set("Cache-Control", "no-store")
		n := 0
		files.ServeHTTP(countingWriter{w, &n}, r)
		c.mu.Lock()
		c.paths = append(c.paths, r.URL.Path)
		c.bytes[r.URL.Path] += n
		c.mu.Unlock()
	})
}

// take returns what was fetched since the last call and its total.
func (c *countingServer) take() (paths []string, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.paths {
		total += c.bytes[p]
		delete(c.bytes, p)
	}
	paths, c.paths = c.paths, nil
	c.bytes = map[string]int{}
	return paths, total
}

// TestPageWeightInChromium opens the shipped site in headless Chromium
// and counts what it fetches: install.html until its first answer is
// shown (at most 250 kB), then only the picked release's file when
// another framework is picked; and each page of the GPU grid (at most
// 600 kB each).
func TestPageWeightInChromium(t *testing.T) {
	bin := chromium(t)
	_, out, sel := shippedSite(t)
	cs := &countingServer{bytes: map[string]int{}}
	srv := httptest.NewServer(cs.handler(out))
	defer srv.Close()

	page := openSelector(t, bin, srv.URL+"/install.html")
	answered := chromedp.WaitVisible(chromedp.CSS(`#install-answer[data-query]:not([data-loading])`))
	if err := chromedp.Do(page.ctx, answered); err != nil {
		t.Fatal(err)
	}
	paths, total := cs.take()
	paths = slices.DeleteFunc(paths, func(p string) bool { return p == "/favicon.ico" })
	t.Logf("install.html first load: %d bytes in %d files %v", total, len(paths), paths)
	if total > installFirstLoadBudget {
		t.Errorf("install.html first load is %d bytes, over the %d budget: %v", total, installFirstLoadBudget, paths)
	}
	// What docs/site.md states (make docs-figures) is what Chromium fetched.
	want, err := InstallFirstLoad(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i] = "/" + want[i]
	}
	if !slices.Equal(slices.Sorted(slices.Values(paths)), slices.Sorted(slices.Values(want))) {
		t.Errorf("the first load fetched %v; InstallFirstLoad (the docs' figure) says %v", paths, want)
	}
	figs, err := Figures(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := docfigures.KB(int64(total)); figs["install-first-load"] != got {
		t.Errorf("Chromium's first load is %s, the docs' figure %s", got, figs["install-first-load"])
	}

	// Picking another framework fetches that framework's release files
	// only (the release picked, and one the version list passed through
	// on the way: the framework is picked before its release).
	var other SelectorFramework
	for _, f := range sel.Frameworks {
		if f.Name != sel.Frameworks[0].Name {
			other = f
			break
		}
	}
	page.selectCase(selectorCase{fw: other.Name, v: other.Versions[0], os: "linux", pm: "pip"})
	paths, total = cs.take()
	picked := "/data/" + ReleaseFile(other.Name, other.Versions[0])
	t.Logf("picking %s %s: %d bytes %v", other.Name, other.Versions[0], total, paths)
	if !slices.Contains(paths, picked) || slices.ContainsFunc(paths, func(p string) bool { return !strings.HasPrefix(p, "/data/install/"+other.Name+"-") }) {
		t.Errorf("picking %s %s fetched %v, want %s and nothing but %s's release files", other.Name, other.Versions[0], paths, picked, other.Name)
	}

	for _, gp := range splitGrid(shippedGrid(t)) {
		if err := chromedp.Do(page.ctx, chromedp.Navigate(srv.URL+"/"+gp.File), chromedp.WaitVisible(chromedp.CSS("body[data-ready]"))); err != nil {
			t.Fatalf("%s: %v", gp.File, err)
		}
		paths, total = cs.take()
		t.Logf("%s (%s): %d bytes in %d files", gp.File, gp.Label, total, len(paths))
		if total > gpuPageBudget {
			t.Errorf("%s weighs %d bytes, over the %d budget", gp.File, total, gpuPageBudget)
		}
	}
	if errs := page.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// shippedGrid is the GPU grid of the shipped database, as gen site pages it.
func shippedGrid(t *testing.T) *query.GPUGrid {
	t.Helper()
	d, _, _ := shippedSite(t)
	g, err := query.TorchGPUGrid(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
