package db

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleFacts() *Facts {
	p := Provenance{Source: "a", URL: "https://a.test", Ref: "row 1"}
	b := Build{Component: "torch", Version: "2.1.0", Variant: "cu121", Platform: "linux", CUDA: "12.1", Provenance: p}
	return &Facts{
		Releases:     []Release{{Component: "torch", Version: "2.1.0", Provenance: p}},
		Builds:       []Build{b},
		Requirements: []Requirement{{Build: b.Key(), Needs: "cudnn", Spec: "8.9.2.26", Kind: KindBundled, Provenance: p}},
		CUDADrivers:  []CUDADriver{{CUDA: "12.1.0", OS: "linux", Kind: "toolkit", MinDriver: "530.30.02", Provenance: p}},
		GPUs:         []GPU{{Name: "Tesla T4", Aliases: []string{"T4"}, ComputeCapability: "7.5", Provenance: p}},
	}
}

func write(t testing.TB, f *Facts) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cudb.db")
	if err := Write(context.Background(), path, f, []SourceInfo{{Name: "a", URL: "https://a.test", SHA256: "s", Rows: 1}}, map[string]string{"built_from": "x"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWriteOpenFileAndImage(t *testing.T) {
	ctx := context.Background()
	path := write(t, sampleFacts())
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer fromFile.Close()
	fromImage, err := OpenImage(ctx, img, nil, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer fromImage.Close()
	cols, err := EncodeColumns(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	withCols, err := OpenImage(ctx, img, cols, "embedded with columns")
	if err != nil {
		t.Fatal(err)
	}
	defer withCols.Close()
	if withCols.conn != nil {
		t.Error("opening an image with its column image started SQLite")
	}
	for _, d := range []*DB{fromFile, fromImage, withCols} {
		builds, err := d.Builds(ctx, "torch", nil)
		if err != nil || len(builds) != 1 {
			t.Fatalf("%s: builds %v %v", d.Origin, builds, err)
		}
		if r, ok := builds[0].Req("cudnn", KindBundled); !ok || r.Spec != "8.9.2.26" || r.Build != builds[0].Key() {
			t.Errorf("%s: requirement %+v", d.Origin, r)
		}
		rep, err := d.Check(ctx)
		if err != nil || !rep.OK() {
			t.Errorf("%s: check %+v %v", d.Origin, rep, err)
		}
		// Read-only: a query cannot change the facts.
		conn, err := d.sqlHandle()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec("DELETE FROM build"); err == nil {
			t.Errorf("%s: write succeeded on a read-only database", d.Origin)
		}
	}
	meta, _ := fromImage.Meta(ctx)
	if meta["schema_version"] != fmt.Sprint(SchemaVersion) || meta["built_from"] != "x" {
		t.Errorf("meta %v", meta)
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	a, _ := os.ReadFile(write(t, sampleFacts()))
	f := sampleFacts()
	// Input order must not matter.
	f.GPUs = append([]GPU{{Name: "A100", ComputeCapability: "8.0", Provenance: Provenance{Source: "a"}}}, f.GPUs...)
	g := sampleFacts()
	g.GPUs = append(g.GPUs, GPU{Name: "A100", ComputeCapability: "8.0", Provenance: Provenance{Source: "a"}})
	b, _ := os.ReadFile(write(t, f))
	c, _ := os.ReadFile(write(t, g))
	if !bytes.Equal(b, c) {
		t.Error("same facts in another order gave different files")
	}
	if bytes.Equal(a, b) {
		t.Error("different facts gave the same file")
	}
}

func TestOpenRejectsOtherSchema(t *testing.T) {
	ctx := context.Background()
	path := write(t, sampleFacts())
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	_, err = OpenFile(ctx, path)
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"schema version 99", fmt.Sprintf("schema version %d", SchemaVersion), "cudb db build"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if _, err := OpenImage(ctx, []byte("not a database at all, just text"), nil, "junk"); err == nil {
		t.Error("junk image opened")
	}
	if _, err := OpenImage(ctx, nil, nil, "empty"); err == nil || !strings.Contains(err.Error(), "make data") {
		t.Errorf("empty image: %v", err)
	}
	// A column image of another schema is refused like a file of one.
	img, _ := os.ReadFile(write(t, sampleFacts()))
	cols, err := EncodeColumns(ctx, write(t, sampleFacts()))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(cols[8:], 99)
	if _, err := OpenImage(ctx, img, cols, "other"); !errors.Is(err, ErrSchema) {
		t.Errorf("column image of schema 99: %v", err)
	}
}

func TestWriteRejectsDanglingRequirement(t *testing.T) {
	f := sampleFacts()
	f.Requirements[0].Build.Variant = "cu999"
	err := Write(context.Background(), filepath.Join(t.TempDir(), "x.db"), f, []SourceInfo{{Name: "a", SHA256: "s"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "no such build") {
		t.Fatalf("err = %v", err)
	}
}

func TestMergePrecedenceAndConflicts(t *testing.T) {
	hi := &Facts{CUDADrivers: []CUDADriver{{CUDA: "12.0.0", OS: "windows", Kind: "minor_compat", MinDriver: "527.41", Provenance: Provenance{Source: "notes-12.0", Ref: "table 2"}}}}
	lo := &Facts{CUDADrivers: []CUDADriver{
		{CUDA: "12.0.0", OS: "windows", Kind: "minor_compat", MinDriver: "528.33", Label: "CUDA 12.0 GA", Provenance: Provenance{Source: "notes-12.1"}},
		{CUDA: "12.1.0", OS: "windows", Kind: "toolkit", MinDriver: "531.14", Provenance: Provenance{Source: "notes-12.1"}},
	}}
	m := Merge(hi, lo)
	if len(m.CUDADrivers) != 2 {
		t.Fatalf("rows %d", len(m.CUDADrivers))
	}
	kept := m.CUDADrivers[0]
	if kept.MinDriver != "527.41" || kept.Label != "CUDA 12.0 GA" || kept.Source != "notes-12.0" {
		t.Errorf("kept %+v (the earlier source wins, gaps filled from the later)", kept)
	}
	want := []Conflict{{Subject: "cuda_driver 12.0.0 windows minor_compat", Field: "min_driver", Kept: "527.41", KeptSource: "notes-12.0 (table 2)", Other: "528.33", OtherSource: "notes-12.1"}}
	if diff := cmp.Diff(want, m.Conflicts); diff != "" {
		t.Error(diff)
	}
}

func TestMergeReleaseWideRequirement(t *testing.T) {
	build := func(variant, plat, ch string) Build {
		return Build{Component: "torch", Version: "2.7.1", Variant: variant, Platform: plat, Channel: ch, Provenance: Provenance{Source: "b"}}
	}
	wide := BuildKey{Component: "torch", Version: "2.7.1", Variant: AnyBuild, Platform: AnyBuild}
	hi := &Facts{Requirements: []Requirement{
		{Build: wide, Needs: "torchvision", Spec: "0.22.1", Kind: KindPaired, Provenance: Provenance{Source: "locks", Ref: "row 7"}},
		{Build: BuildKey{Component: "torch", Version: "9.9.9", Variant: AnyBuild, Platform: AnyBuild}, Needs: "torchvision", Spec: "1.0", Kind: KindPaired, Provenance: Provenance{Source: "locks"}},
	}}
	lo := &Facts{
		Builds: []Build{build("cu126", "linux", ""), build("cu118", "windows", ""), build("cu118", "linux", "conda")},
		Requirements: []Requirement{{Build: BuildKey{Component: "torch", Version: "2.7.1", Variant: "cu118", Platform: "windows"},
			Needs: "torchvision", Spec: "0.22.0", Kind: KindPaired, Provenance: Provenance{Source: "b"}}},
	}
	m := Merge(hi, lo)
	got := map[string]string{}
	for _, r := range m.Requirements {
		got[r.Build.String()] = r.Spec + " " + r.Source
	}
	want := map[string]string{"torch==2.7.1 cu126 linux": "0.22.1 locks", "torch==2.7.1 cu118 windows": "0.22.1 locks"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pairs (conda builds are another channel; the earlier source still wins): %s", diff)
	}
	var fields []string
	for _, c := range m.Conflicts {
		fields = append(fields, c.Subject+" "+c.Field)
	}
	wantC := []string{"requirement torch==2.7.1 cu118 windows needs torchvision (paired) spec",
		"requirement torch==9.9.9 * * needs torchvision (paired) refused"}
	if diff := cmp.Diff(wantC, fields); diff != "" {
		t.Error(diff)
	}
}

func TestSchemaVersionIsNewestMigration(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if n := ms[len(ms)-1].n; n != SchemaVersion {
		t.Fatalf("the newest migration is %d but SchemaVersion is %d: raise SchemaVersion with the migration", n, SchemaVersion)
	}
}
