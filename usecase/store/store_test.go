package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query/querytest"
	"github.com/cudb/cudb/scraper/fakesource"
	"github.com/cudb/cudb/usecase/store"
)

// TestOpenAndDescribe opens the embedded database and a file, and reads
// db info's answer from each.
func TestOpenAndDescribe(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{"", querytest.Path(t)} {
		d, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("Open(%q): %v", path, err)
		}
		if path == "" && d.Origin != store.EmbeddedOrigin {
			t.Errorf("embedded origin %q", d.Origin)
		}
		info, err := store.Describe(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if info.SchemaVersion != store.SchemaVersion || len(info.Tables) != len(store.Tables) || info.Tables["build"] == 0 || len(info.Newest) == 0 {
			t.Errorf("Describe(%q) = schema %d, %d tables, %d builds, %d lines", path, info.SchemaVersion, len(info.Tables), info.Tables["build"], len(info.Newest))
		}
		j, err := store.RecoverBeside(path)
		if err != nil || j.Recovered != "" || j.Pending != nil {
			t.Fatalf("RecoverBeside(%q) = %+v, %v: nothing was pending", path, j, err)
		}
		rep, err := store.Check(ctx, d, j)
		if err != nil || !rep.OK() || rep.Journal != "" {
			t.Errorf("Check(%q) = %+v, %v", path, rep, err)
		}
	}
}

// TestSelect keeps the order asked for and refuses an unknown name with
// the known ones.
func TestSelect(t *testing.T) {
	all := []store.Source{fakesource.New("a"), fakesource.New("b")}
	got, err := store.Select(all, []string{"b", "a"})
	if err != nil || len(got) != 2 || got[0].Name() != "b" {
		t.Fatalf("Select = %v, %v", got, err)
	}
	if got, _ := store.Select(all, nil); len(got) != 2 {
		t.Errorf("Select(nil) = %d sources, want all", len(got))
	}
	_, err = store.Select(all, []string{"c"})
	if errs.CodeOf(err) != errs.CodeUsage || !strings.Contains(err.Error(), "sources: a, b") {
		t.Errorf("unknown source: %v", err)
	}
}

// TestRefreshFromSnapshots refreshes a new data directory from snapshot
// pages, then builds it again, and opens what was written.
func TestRefreshFromSnapshots(t *testing.T) {
	ctx := context.Background()
	snaps, dir := t.TempDir(), t.TempDir()
	src := fakesource.New("fake-a")
	p := fakesource.SnapshotFile(snaps, src.ID)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(fakesource.Page([3]string{"1.0", "1.0", "2024-05-01"}, [3]string{"1.1", "1.1", "2024-06-01"})), 0o644); err != nil {
		t.Fatal(err)
	}
	var events []string
	rep, err := store.Refresh(ctx, store.RefreshOptions{DataDir: dir, All: []store.Source{src}, Snapshots: snaps,
		Progress: func(e store.Event) { events = append(events, e.Source+" "+e.Stage) }})
	if err != nil || rep.Error != "" || len(rep.Written) == 0 {
		t.Fatalf("Refresh = %+v, %v", rep, err)
	}
	if events[len(events)-1] != "fake-a "+store.StageDone {
		t.Errorf("events %v: the last is the source's done", events)
	}
	var text strings.Builder
	if err := store.WriteText(&text, rep); err != nil || !strings.Contains(text.String(), "fake-a") {
		t.Errorf("WriteText = %q, %v", text.String(), err)
	}
	m, err := store.Build(ctx, dir, []store.Source{src})
	if err != nil || len(m.Sources) != 1 || m.Sources[0].Rows == 0 {
		t.Fatalf("Build = %+v, %v", m, err)
	}
	d, err := store.Open(ctx, filepath.Join(dir, "cudb.db"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := store.Describe(ctx, d)
	if err != nil || info.Tables["release"] != 2 {
		t.Errorf("the refreshed database holds %v releases (%v), want the page's 2", info.Tables["release"], err)
	}
}
