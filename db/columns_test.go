package db

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/version"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// shippedDB is the database the binary ships: the typed reads are checked
// against SQL over its real rows, not a sample.
const shippedDB = "../data/cudb.db"

// openShipped opens the shipped database twice: as the column image the
// reads answer from, and as a plain SQLite handle for the reference
// queries (the SQL the reads ran before the column image).
func openShipped(t *testing.T) (*DB, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	img, err := os.ReadFile(shippedDB)
	if err != nil {
		t.Fatalf("the shipped database is missing (run `make data`): %v", err)
	}
	cols, err := EncodeColumns(ctx, shippedDB)
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenImage(ctx, img, cols, "shipped")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	conn, err := sql.Open("sqlite", "file:"+shippedDB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return d, conn
}

// query runs a reference query, scanning each row with scan.
func query[T any](t *testing.T, conn *sql.DB, q string, args []any, scan func(*sql.Rows, *T) error) []T {
	t.Helper()
	rows, err := conn.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func scanDriverRow(r *sql.Rows, c *CUDADriver) error {
	return r.Scan(&c.CUDA, &c.Label, &c.OS, &c.Kind, &c.MinDriver, &c.ReleasedOn, &c.Source, &c.URL, &c.Ref)
}

func scanGPURow(r *sql.Rows, g *GPU) error {
	var aliases string
	err := r.Scan(&g.Name, &aliases, &g.ComputeCapability, &g.Architecture, &g.Segment, &g.Source, &g.URL, &g.Ref)
	g.Aliases = splitList(aliases)
	return err
}

const driverCols = "cuda, label, os, kind, min_driver, released_on, source, url, ref"

// TestColumnReadsEqualSQL runs every typed read over the column image of
// the shipped database and the SQL it replaces over the same file, for
// every argument the data makes meaningful, and wants the same answers.
func TestColumnReadsEqualSQL(t *testing.T) {
	ctx := context.Background()
	d, conn := openShipped(t)
	same := func(what string, got, want any) {
		t.Helper()
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: column image vs SQL (-sql +columns):\n%s", what, diff)
		}
	}
	str := func(r *sql.Rows, s *string) error { return r.Scan(s) }

	components := query(t, conn, "SELECT DISTINCT component FROM build_version ORDER BY component", nil, str)
	if len(components) < 4 {
		t.Fatalf("only %d components in the shipped data", len(components))
	}
	for _, c := range append(components, "no-such-component") {
		got, err := d.Versions(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		same("versions of "+c, got, query(t, conn, "SELECT version FROM build_version WHERE component = ? ORDER BY version_key DESC", []any{c}, str))

		builds, err := d.Builds(ctx, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := query(t, conn, `SELECT id, component, version, variant, platform, package, pip_version, cuda, python_min, python_max,
			index_url, arch_list, is_default, channel, source, url, ref, arch_source, arch_url, arch_ref FROM build WHERE component = ? ORDER BY id`, []any{c},
			func(r *sql.Rows, x **BuildRow) error {
				*x = &BuildRow{}
				b := *x
				return r.Scan(&b.ID, &b.Component, &b.Version, &b.Variant, &b.Platform, &b.Package, &b.PipVersion, &b.CUDA,
					&b.PythonMin, &b.PythonMax, &b.IndexURL, &b.ArchList, &b.IsDefault, &b.Channel, &b.Source, &b.URL, &b.Ref,
					&b.ArchFrom.Source, &b.ArchFrom.URL, &b.ArchFrom.Ref)
			})
		for _, b := range want {
			b.Reqs = query(t, conn, `SELECT needs, spec, kind, marker, source, url, ref FROM requirement WHERE build_id = ?
				ORDER BY needs, kind`, []any{b.ID}, func(r *sql.Rows, q *Requirement) error {
				q.Build = b.Key()
				return r.Scan(&q.Needs, &q.Spec, &q.Kind, &q.Marker, &q.Source, &q.URL, &q.Ref)
			})
		}
		same("builds of "+c, builds, want)

		attrs, err := d.Attributes(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		wantAttrs := query(t, conn, "SELECT component, version, key, value, source, url, ref FROM attribute WHERE component = ? ORDER BY version, key",
			[]any{c}, func(r *sql.Rows, a *Attribute) error {
				return r.Scan(&a.Component, &a.Version, &a.Key, &a.Value, &a.Source, &a.URL, &a.Ref)
			})
		same("attributes of "+c, attrs, wantAttrs)
		for _, a := range wantAttrs {
			v, p, err := d.Attribute(ctx, c, a.Version, a.Key)
			if err != nil || v != a.Value || p != a.Provenance {
				t.Errorf("attribute %s %s %s = %q %+v %v, want %q %+v", c, a.Version, a.Key, v, p, err, a.Value, a.Provenance)
			}
		}
		if v, _, _ := d.Attribute(ctx, c, "0.0.0", "no-such-key"); v != "" {
			t.Errorf("a missing attribute of %s reads %q", c, v)
		}
	}

	// A subset of versions reads the same builds as the whole list
	// filtered (the per-version cache must not change the answer).
	torch, _ := d.Builds(ctx, "torch", func(v string) bool { return strings.HasPrefix(v, "2.1") })
	for _, b := range torch {
		if !strings.HasPrefix(b.Version, "2.1") {
			t.Errorf("a filtered read returned torch %s", b.Version)
		}
	}

	drivers, _ := d.CUDADrivers(ctx)
	same("cuda_driver", drivers, query(t, conn, "SELECT "+driverCols+" FROM cuda_driver ORDER BY cuda_key, os, kind", nil, scanDriverRow))
	cudas := map[string]bool{"99.9": true}
	for _, r := range drivers {
		cudas[r.CUDA] = true
		if i := strings.LastIndex(r.CUDA, "."); i > 0 {
			cudas[r.CUDA[:i]] = true
		}
	}
	for c := range cudas {
		for _, releases := range []bool{false, true} {
			lo, hi := c, c
			if releases {
				lo, hi = c+".", c+"/"
			}
			got, _ := d.CUDADriversOf(ctx, c, releases)
			same("cuda_driver rows of "+c, got, query(t, conn, "SELECT "+driverCols+" FROM cuda_driver WHERE cuda = ? OR (cuda > ? AND cuda < ?) ORDER BY cuda_key, os, kind",
				[]any{c, lo, hi}, scanDriverRow))
		}
	}
	floors := map[string]bool{"": true, "1.0": true, "999.99.99": true, "450.80.02": true, "535": true}
	for _, r := range drivers {
		floors[r.MinDriver] = true
	}
	for f := range floors {
		for _, os := range []string{"linux", "windows", "macos"} {
			got, _ := d.NewestToolkitFor(ctx, os, f)
			want := query(t, conn, `SELECT cuda FROM cuda_driver WHERE kind = 'toolkit' AND os = ? AND min_driver != '' AND driver_key <= ?
				ORDER BY cuda_key DESC LIMIT 1`, []any{os, version.DottedKey(f)}, str)
			if w := strings.Join(want, ""); got != w {
				t.Errorf("newest toolkit for %s %q = %q, SQL says %q", os, f, got, w)
			}
		}
	}

	gpus, _ := d.GPUs(ctx)
	same("gpu", gpus, query(t, conn, "SELECT name, aliases, compute_capability, architecture, segment, source, url, ref FROM gpu ORDER BY name", nil, scanGPURow))
	names, _ := d.GPUNames(ctx)
	for i, g := range gpus {
		if names[i].Name != g.Name || !cmp.Equal(names[i].Aliases, g.Aliases) {
			t.Errorf("gpu name %d: %+v vs %+v", i, names[i], g)
		}
		one, ok, err := d.GPU(ctx, g.Name)
		if !ok || err != nil {
			t.Errorf("GPU(%q) not found: %v", g.Name, err)
		}
		same("gpu "+g.Name, one, g)
	}
	if _, ok, _ := d.GPU(ctx, "GeForce 256"); ok {
		t.Error("a GPU the data lacks was found")
	}

	branches, _ := d.DriverBranches(ctx)
	same("driver_branch", branches, query(t, conn, "SELECT branch, max_cuda, branch_type, end_of_life, source, url, ref FROM driver_branch ORDER BY branch_key DESC", nil,
		func(r *sql.Rows, b *DriverBranch) error {
			return r.Scan(&b.Branch, &b.MaxCUDA, &b.BranchType, &b.EndOfLife, &b.Source, &b.URL, &b.Ref)
		}))
	cudnn, _ := d.CUDNNSupport(ctx)
	same("cudnn_support", cudnn, query(t, conn, `SELECT cudnn, cuda_major, cuda_versions, cuda_min, cuda_max, min_driver_linux, min_driver_windows, cc_list, cc_min,
		released_on, source, url, ref FROM cudnn_support ORDER BY cudnn_key DESC, cuda_major DESC, cuda_versions DESC`, nil,
		func(r *sql.Rows, c *CUDNNSupport) error {
			return r.Scan(&c.CUDNN, &c.CUDAMajor, &c.CUDAVersions, &c.CUDAMin, &c.CUDAMax, &c.MinDriverLinux, &c.MinDriverWindows,
				&c.CCList, &c.CCMin, &c.ReleasedOn, &c.Source, &c.URL, &c.Ref)
		}))
	archs, _ := d.CUDAArchs(ctx)
	same("cuda_arch", archs, query(t, conn, "SELECT cuda, sm_min, sm_max, added, deprecated, dropped, source, url, ref FROM cuda_arch ORDER BY cuda_key DESC", nil,
		func(r *sql.Rows, a *CUDAArch) error {
			return r.Scan(&a.CUDA, &a.SMMin, &a.SMMax, &a.Added, &a.Deprecated, &a.Dropped, &a.Source, &a.URL, &a.Ref)
		}))
	rels, _ := d.Releases(ctx)
	same("release", rels, query(t, conn, "SELECT component, version, released_on, source, url, ref FROM release ORDER BY component, version_key", nil,
		func(r *sql.Rows, x *Release) error {
			return r.Scan(&x.Component, &x.Version, &x.ReleasedOn, &x.Source, &x.URL, &x.Ref)
		}))
	torchRels, _ := d.ReleasesOf(ctx, "torch")
	same("release of torch", torchRels, query(t, conn, "SELECT component, version, released_on, source, url, ref FROM release WHERE component = 'torch' ORDER BY version_key", nil,
		func(r *sql.Rows, x *Release) error {
			return r.Scan(&x.Component, &x.Version, &x.ReleasedOn, &x.Source, &x.URL, &x.Ref)
		}))
	srcs, _ := d.Sources(ctx)
	same("source", srcs, query(t, conn, "SELECT name, url, fetched_at, sha256, rows FROM source ORDER BY name", nil,
		func(r *sql.Rows, s *SourceInfo) error {
			return r.Scan(&s.Name, &s.URL, &s.FetchedAt, &s.SHA256, &s.Rows)
		}))
	conflicts, _ := d.Conflicts(ctx)
	same("conflict", conflicts, query(t, conn, "SELECT subject, field, kept, kept_source, other, other_source, note FROM conflict ORDER BY id", nil,
		func(r *sql.Rows, c *Conflict) error {
			return r.Scan(&c.Subject, &c.Field, &c.Kept, &c.KeptSource, &c.Other, &c.OtherSource, &c.Note)
		}))
	meta, _ := d.Meta(ctx)
	type kv struct{ K, V string }
	wantMeta := map[string]string{}
	for _, p := range query(t, conn, "SELECT key, value FROM meta", nil, func(r *sql.Rows, p *kv) error { return r.Scan(&p.K, &p.V) }) {
		wantMeta[p.K] = p.V
	}
	same("meta", meta, wantMeta)
}

// TestColumnDumpEqualsSQL wants every table's every cell, with its
// SQLite type, back from the column image.
func TestColumnDumpEqualsSQL(t *testing.T) {
	ctx := context.Background()
	d, conn := openShipped(t)
	for _, name := range Tables {
		cols, rows, err := d.Dump(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		order := "rowid"
		if k, ok := keyOrder[name]; ok {
			order = k
		}
		rs, err := conn.Query("SELECT * FROM " + name + " ORDER BY " + order)
		if err != nil {
			t.Fatal(err)
		}
		wantCols, _ := rs.Columns()
		var want [][]any
		for rs.Next() {
			vals := make([]any, len(wantCols))
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			want = append(want, vals)
		}
		rs.Close()
		if !cmp.Equal(cols, wantCols) || !cmp.Equal(rows, want) {
			t.Errorf("table %s: the column image's dump differs from SQL's (%d vs %d rows)", name, len(rows), len(want))
		}
		n, _ := d.Count(ctx, name)
		if n != len(want) {
			t.Errorf("count %s = %d, want %d", name, n, len(want))
		}
	}
	if _, _, err := d.Dump(ctx, "sqlite_master"); err == nil {
		t.Error("a table outside Tables was dumped")
	}
}

// TestColumnImageIsDeterministic: the same database gives the same bytes,
// so data/cudb.cols is reproducible by `make data`.
func TestColumnImageIsDeterministic(t *testing.T) {
	ctx := context.Background()
	a, err := EncodeColumns(ctx, shippedDB)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	b0, _ := os.ReadFile(shippedDB)
	if err := os.WriteFile(cp, b0, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := EncodeColumns(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same database gave two column images")
	}
}

// TestOrderFollowsSQLite checks the ORDER BY rules the reads rely on:
// NULL, then numbers by value, then texts byte by byte.
func TestOrderFollowsSQLite(t *testing.T) {
	vals := []any{"b", int64(10), nil, "B", 2.5, int64(2), "a", "", int64(-1)}
	sort.SliceStable(vals, func(i, j int) bool { return compareValues(vals[i], vals[j]) < 0 })
	want := []any{nil, int64(-1), int64(2), 2.5, int64(10), "", "B", "a", "b"}
	if !cmp.Equal(vals, want) {
		t.Errorf("order %v, want %v", vals, want)
	}
}

// FuzzOpenColumns feeds damaged column images: opening and reading every
// cell must fail cleanly or succeed, never panic or read out of bounds.
func FuzzOpenColumns(f *testing.F) {
	ctx := context.Background()
	good, err := EncodeColumns(ctx, write(f, sampleFacts()))
	if err == nil {
		f.Add(good)
		short := append([]byte(nil), good[:len(good)/2]...)
		f.Add(short)
		big := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(big[12:], 1<<31)
		f.Add(big)
	}
	f.Add([]byte(colMagic))
	f.Add([]byte("CUDBCOL1\x05\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := openColumns(b)
		if err != nil {
			return
		}
		d := &DB{cols: img, Origin: "fuzz"}
		for _, tbl := range img.tables {
			for r := 0; r < tbl.rows && r < 64; r++ {
				for c := range tbl.cols {
					_ = tbl.value(c, r)
					_ = tbl.str(c, r)
				}
			}
		}
		if img.check() == nil {
			d.Builds(ctx, "torch", nil)
			d.CUDADrivers(ctx)
			d.GPUs(ctx)
			d.NewestToolkitFor(ctx, "linux", "535.54.03")
			for _, name := range Tables {
				d.Dump(ctx, name)
			}
		}
	})
}
