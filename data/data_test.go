package data_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// TestDataIsFresh rebuilds data/ from the source snapshots with the
// current code and fails when any committed file differs: data/ must
// never be stale against the scrapers, the schema or the snapshots.
func TestDataIsFresh(t *testing.T) {
	snapshots := sourcestest.Dir(t)
	tmp := t.TempDir()
	if ov, err := os.ReadFile("overrides.yaml"); err == nil {
		if err := os.WriteFile(filepath.Join(tmp, "overrides.yaml"), ov, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{Input: scraper.Input{Snapshots: snapshots}, DataDir: tmp, All: all.Sources()})
	if err != nil {
		t.Fatalf("refresh from snapshots failed: %v (%+v)", err, rep)
	}
	want := listFiles(t, tmp)
	got := listFiles(t, ".")
	for name := range want {
		a, _ := os.ReadFile(filepath.Join(tmp, name))
		b, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("data/%s is missing: run `make data` and commit", name)
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("data/%s is stale: run `make data` and commit", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("data/%s is not produced by any source: remove it or run `make data`", name)
		}
	}
	if b, _ := os.ReadFile("cudb.db"); !bytes.Equal(b, data.DB) {
		t.Error("the embedded database differs from data/cudb.db")
	}
	if b, _ := os.ReadFile("cudb.cols"); !bytes.Equal(b, data.Columns) {
		t.Error("the embedded column image differs from data/cudb.cols")
	}
}

// listFiles returns the generated files under dir: BuiltFiles
// and sources/*.json.
func listFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, n := range scraper.BuiltFiles {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			out[n] = true
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sources"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		out[filepath.Join("sources", n)] = true
	}
	return out
}

// TestEmbeddedDatabaseOpens checks the shipped image is a database this
// binary reads and that it is sound.
func TestEmbeddedDatabaseOpens(t *testing.T) {
	ctx := context.Background()
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rep, err := d.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("check: %+v %v", rep, err)
	}
	srcs, err := d.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != len(all.Sources()) {
		t.Errorf("embedded database has %d sources, the code lists %d: run `make data`", len(srcs), len(all.Sources()))
	}
}

// TestDataBuildsFromItsSources is the stale-data guard that needs nothing
// beside the clone: rebuilding the database from the committed
// sources/*.json and overrides.yaml with the current code must give the
// committed cudb.db, cudb.cols and manifest.json byte for byte (a schema,
// normaliser or override change without `make data` fails here).
func TestDataBuildsFromItsSources(t *testing.T) {
	tmp := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tmp, "sources"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile := func(rel string) {
		b, err := os.ReadFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("overrides.yaml")
	for name := range listFiles(t, ".") {
		if filepath.Dir(name) == "sources" {
			copyFile(name)
		}
	}
	if _, err := scraper.Build(context.Background(), tmp, all.Sources()); err != nil {
		t.Fatalf("building from data/sources: %v", err)
	}
	for _, name := range scraper.BuiltFiles {
		a, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(name); !bytes.Equal(a, b) {
			t.Errorf("data/%s is stale against data/sources and the code: run `make data` and commit", name)
		}
	}
}
