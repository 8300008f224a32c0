package site

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/testenv"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/querytest"
)

// testDB is the query fixture plus a few GPUs and a built_from stamp.
func testDB(t testing.TB) *db.DB {
	t.Helper()
	return testDBWith(t, nil)
}

// testDBWith is testDB with more facts added by extra.
func testDBWith(t testing.TB, extra func(*db.Facts)) *db.DB {
	t.Helper()
	f := querytest.Facts()
	if extra != nil {
		extra(f)
	}
	have := map[string]bool{}
	for _, g := range f.GPUs {
		have[g.Name] = true
	}
	for _, g := range []db.GPU{
		{Name: "Tesla T4", ComputeCapability: "7.5", Architecture: "Turing"},
		{Name: "NVIDIA A100", ComputeCapability: "8.0", Architecture: "Ampere"},
		{Name: "GeForce RTX 4090", ComputeCapability: "8.9", Architecture: "Ada Lovelace"},
		{Name: "Tesla K80", ComputeCapability: "3.7", Architecture: "Kepler"},
		{Name: "NVIDIA B200", ComputeCapability: "10.0", Architecture: "Blackwell"},
	} {
		if !have[g.Name] {
			g.Provenance = db.Provenance{Source: "fixture", URL: "https://example.test/gpus", Ref: g.Name}
			f.GPUs = append(f.GPUs, g)
		}
	}
	path := filepath.Join(t.TempDir(), "cudb.db")
	srcs := []db.SourceInfo{{Name: "fixture", URL: "https://example.test/torch", SHA256: "abc123abc123abc123", Rows: 42},
		{Name: "fixture-tf", URL: "https://example.test/tf", SHA256: "def456", Rows: 4}}
	if err := db.Write(context.Background(), path, f, srcs, map[string]string{"built_from": "feedface"}); err != nil {
		t.Fatal(err)
	}
	d, err := db.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerate(t *testing.T) {
	d := testDB(t)
	out := t.TempDir()
	if _, err := Generate(context.Background(), d, out); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, out)
	for _, want := range []string{"index.html", "gpu.html", "torch.html", "site.css", "site.js", "meta.json", "data/torch.json", "data/torch-gpu.json"} {
		if _, ok := tree[want]; !ok {
			t.Errorf("missing %s", want)
		}
	}
	// Same database, same bytes.
	again := t.TempDir()
	if _, err := Generate(context.Background(), d, again); err != nil {
		t.Fatal(err)
	}
	tree2 := readTree(t, again)
	if len(tree2) != len(tree) {
		t.Errorf("second run wrote %d files, first %d", len(tree2), len(tree))
	}
	for name, b := range tree {
		if !bytes.Equal(b, tree2[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	// The JSON beside the pages is the API's body.
	rows, err := query.MatrixTorch(context.Background(), d, "")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := encodeJSON(rows)
	if !bytes.Equal(tree["data/torch.json"], want) {
		t.Error("data/torch.json is not the torch matrix")
	}
	var info query.DataInfo
	if err := json.Unmarshal(tree["meta.json"], &info); err != nil || info.BuiltFrom != "feedface" || len(info.Sources) != 2 {
		t.Errorf("meta.json: %v %+v", err, info)
	}
	external := regexp.MustCompile(`<(script|link|img)[^>]+(src|href)="(https?:)?//`)
	for name, b := range tree {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		page := string(b)
		for _, s := range []string{"feedface", "fixture-tf", "https://example.test/tf", "abc123abc123", `src="site.js"`} {
			if !strings.Contains(page, s) {
				t.Errorf("%s lacks %q (data build and sources belong on every page)", name, s)
			}
		}
		if m := external.FindString(page); m != "" {
			t.Errorf("%s loads an external asset: %s", name, m)
		}
	}
	torch := string(tree["torch.html"])
	for _, s := range []string{"<th>cudnn</th>", "<th>torchvision</th>", "<th>python_min</th>", `<a href="https://example.test/torch">9.1.0.70</a>`} {
		if !strings.Contains(torch, s) {
			t.Errorf("torch.html lacks %s", s)
		}
	}
	gpu := string(tree["gpu.html"])
	for _, s := range []string{`data-filter="Tesla T4 7.5 sm_75 Turing"`, `class="s s-sass"`, `class="s s-sass_compatible"`, `class="s s-ptx_jit"`, `class="s s-none"`, "2.4.0 cu124"} {
		if !strings.Contains(gpu, s) {
			t.Errorf("gpu.html lacks %s", s)
		}
	}
}

func TestTableOfFallbacks(t *testing.T) {
	if tb := tableOf("x", []byte(`{"a": 1}`)); tb.Raw == "" {
		t.Error("an object was not shown as JSON")
	}
	tb := tableOf("x", []byte(`[{"b": "2", "a": [1, "y"], "c": {"k": true}, "d": true, "sources": [{"name": "s", "url": "https://u.test"}]}, {"e": null}]`))
	if strings.Join(tb.Columns, ",") != "b,a,c,d,e" || tb.Body[0].URL != "https://u.test" || tb.Body[1].URL != "" {
		t.Fatalf("%+v", tb)
	}
	if got := strings.Join(tb.Body[0].Cells, "|"); got != `2|1 y|{"k":true}|yes|` {
		t.Errorf("cells %q", got)
	}
}

// chromium finds a headless-capable browser or skips.
func chromium(t *testing.T) string {
	testenv.Slow(t)
	if testing.Short() {
		// The race run (.ci/run) is -short: the page runs in Chromium's
		// own processes, and make test has already driven it.
		t.Skip("-short: the Chromium tests run in make test")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary found (CI installs Debian's chromium package; apt-get install -y chromium)")
	return ""
}

func runChromium(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--window-size=1280,900"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// consoleErrors picks the page's console errors out of chromium's log.
func consoleErrors(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "Uncaught") || strings.Contains(line, "CONSOLE") && strings.Contains(strings.ToLower(line), "error") {
			out = append(out, line)
		}
	}
	return out
}

func TestSiteInChromium(t *testing.T) {
	bin := chromium(t)
	out := t.TempDir()
	if _, err := Generate(context.Background(), testDB(t), out); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.ToSlash(filepath.Join(out, "gpu.html"))

	artifacts := os.Getenv("CUDB_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	} else if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts, "gpu-grid.png")
	_, log := runChromium(t, bin, "--screenshot="+shot, page)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10000 {
		t.Fatalf("screenshot %s: %v (%d bytes)\n%s", shot, err, len(png), log)
	}
	if errs := consoleErrors(log); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	t.Logf("screenshot of the GPU grid: %s", shot)

	dom, log := runChromium(t, bin, "--dump-dom", page+"#filter=T4")
	if errs := consoleErrors(log); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	for _, want := range []string{`data-errors="0"`, `data-ready="1"`, `data-visible="1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("body %s lacks %s", body, want)
		}
	}
	rows := regexp.MustCompile(`<tr data-filter="([^"]*)"( hidden="")?>`).FindAllStringSubmatch(dom, -1)
	if len(rows) != 5 {
		t.Fatalf("found %d GPU rows in the DOM, want 5", len(rows))
	}
	for _, r := range rows {
		shown := r[2] == ""
		if shown != strings.Contains(r[1], "T4") {
			t.Errorf("row %q: shown = %v under #filter=T4", r[1], shown)
		}
	}
	if !strings.Contains(dom, `value="T4"`) && !strings.Contains(dom, "1 of 5 rows") {
		t.Errorf("the filter box does not show the filter")
	}

	// The table pages run the same script without errors too.
	dom, _ = runChromium(t, bin, "--dump-dom", "file://"+filepath.ToSlash(filepath.Join(out, "torch.html"))+"?filter=cu118")
	body = regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	if !strings.Contains(body, `data-errors="0"`) || !strings.Contains(body, `data-visible="2"`) {
		t.Errorf("torch.html?filter=cu118: body %s", body)
	}
}
