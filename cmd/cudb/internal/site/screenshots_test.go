package site

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query"
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
	d, err := db.OpenImage(ctx, data.DB, "embedded")
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
	} {
		page.selectCase(s.c)
		got := page.read()
		res, err := query.Resolve(ctx, d, query.ResolveRequest{Requirements: []string{s.c.fw + "==" + s.c.v}, Platform: s.c.os,
			Channel: s.c.channel(), GPU: s.c.gpu, Driver: s.c.driver})
		if err != nil || got.Attr["command"] != res.Stacks[0].Install.Command {
			t.Fatalf("%+v: page shows %q, resolve gives %v %v", s.c, got.Attr["command"], res, err)
		}
		page.screenshot(s.file)
	}
}
