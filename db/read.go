package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/version"
)

// BuildRow is a build as stored, with its row id and the requirements that
// hang off it.
type BuildRow struct {
	ID int64
	Build
	Reqs []Requirement
}

// Req returns the first requirement on needs, preferring kinds in the
// order given (what pip installs first, then what documents say).
func (b *BuildRow) Req(needs string, kinds ...string) (Requirement, bool) {
	for _, k := range kinds {
		for _, r := range b.Reqs {
			if r.Needs == needs && r.Kind == k {
				return r, true
			}
		}
	}
	return Requirement{}, false
}

// cache keeps what typed reads load, for the life of a handle: a cudb
// database is read-only, so a table read into memory never goes stale.
// Errors are not remembered.
type cache struct {
	mu          sync.Mutex
	versions    map[string][]string     // component -> versions, newest first
	builds      map[string][]*BuildRow  // component + "\x00" + version -> builds
	cudaDrivers []CUDADriver            // nil until read
	gpus        []GPU                   // nil until read
	gpuNames    []GPU                   // names and aliases only; nil until read
	branches    map[string]DriverBranch // nil until read
	cudaFloors  map[string][]CUDADriver // CUDA version ("12.1", or "12.1.*" with its releases) -> its rows
	stmts       map[string]*sql.Stmt    // prepared statements by SQL text
}

// once returns *slot, filling it with load the first time it is asked for.
func once[T any](d *DB, slot *T, isSet func(T) bool, load func() (T, error)) (T, error) {
	d.cache.mu.Lock()
	v := *slot
	d.cache.mu.Unlock()
	if isSet(v) {
		return v, nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	d.cache.mu.Lock()
	*slot = v
	d.cache.mu.Unlock()
	return v, nil
}

// scanAll runs q and scans each row with scan.
func scanAll[T any](ctx context.Context, d *DB, q string, args []any, scan func(*sql.Rows, *T) error) ([]T, error) {
	st, err := d.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// The columns and scanners of the rows several reads return.
const (
	cudaDriverCols = "cuda, label, os, kind, min_driver, released_on, source, url, ref"
	gpuCols        = "name, aliases, compute_capability, architecture, segment, source, url, ref"
)

func scanCUDADriver(r *sql.Rows, c *CUDADriver) error {
	return r.Scan(&c.CUDA, &c.Label, &c.OS, &c.Kind, &c.MinDriver, &c.ReleasedOn, &c.Source, &c.URL, &c.Ref)
}

func scanGPU(r *sql.Rows, g *GPU) error {
	var aliases string
	if err := r.Scan(&g.Name, &aliases, &g.ComputeCapability, &g.Architecture, &g.Segment, &g.Source, &g.URL, &g.Ref); err != nil {
		return err
	}
	if aliases != "" {
		g.Aliases = strings.Split(aliases, ";")
	}
	return nil
}

// Versions lists the distinct versions of component, newest first.
func (d *DB) Versions(ctx context.Context, component string) ([]string, error) {
	d.cache.mu.Lock()
	v, ok := d.cache.versions[component]
	d.cache.mu.Unlock()
	if ok {
		return v, nil
	}
	// build_version holds one row per version (the database build fills
	// it), so this reads tens of rows, not every build.
	v, err := scanAll(ctx, d, "SELECT version FROM build_version WHERE component = ? ORDER BY version_key DESC", []any{component},
		func(r *sql.Rows, s *string) error { return r.Scan(s) })
	if err != nil {
		return nil, fmt.Errorf("failed to read %s versions: %w", component, err)
	}
	d.cache.mu.Lock()
	if d.cache.versions == nil {
		d.cache.versions = map[string][]string{}
	}
	d.cache.versions[component] = v
	d.cache.mu.Unlock()
	return v, nil
}

// Builds reads the builds of component whose version keep accepts (all
// when keep is nil), with their requirements, in id order. Versions are
// matched first so that only the rows a question needs are read, and each
// version's builds are kept per handle: a server asks about the same
// releases again and again. Callers must not modify the rows.
func (d *DB) Builds(ctx context.Context, component string, keep func(version string) bool) ([]*BuildRow, error) {
	versions, err := d.Versions(ctx, component)
	if err != nil {
		return nil, err
	}
	var out []*BuildRow
	var missing []string
	d.cache.mu.Lock()
	for _, v := range versions {
		if keep != nil && !keep(v) {
			continue
		}
		if cached, ok := d.cache.builds[component+"\x00"+v]; ok {
			out = append(out, cached...)
		} else {
			missing = append(missing, v)
		}
	}
	d.cache.mu.Unlock()
	if len(missing) > 0 {
		loaded, err := d.readBuilds(ctx, component, missing)
		if err != nil {
			return nil, err
		}
		byVersion := map[string][]*BuildRow{}
		for _, b := range loaded {
			byVersion[b.Version] = append(byVersion[b.Version], b)
		}
		d.cache.mu.Lock()
		if d.cache.builds == nil {
			d.cache.builds = map[string][]*BuildRow{}
		}
		for _, v := range missing {
			d.cache.builds[component+"\x00"+v] = byVersion[v]
		}
		d.cache.mu.Unlock()
		out = append(out, loaded...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// readBuilds reads the builds of the given versions with their
// requirements.
func (d *DB) readBuilds(ctx context.Context, component string, versions []string) ([]*BuildRow, error) {
	args := []any{component}
	marks := make([]string, len(versions))
	for i, v := range versions {
		marks[i] = "?"
		args = append(args, v)
	}
	in := " IN (" + strings.Join(marks, ",") + ")"
	out, err := scanAll(ctx, d, `SELECT id, component, version, variant, platform, package, pip_version, cuda,
		python_min, python_max, index_url, arch_list, is_default, channel, source, url, ref
		FROM build WHERE component = ? AND version`+in+` ORDER BY id`, args,
		func(r *sql.Rows, b **BuildRow) error {
			*b = &BuildRow{}
			x := *b
			return r.Scan(&x.ID, &x.Component, &x.Version, &x.Variant, &x.Platform, &x.Package, &x.PipVersion, &x.CUDA,
				&x.PythonMin, &x.PythonMax, &x.IndexURL, &x.ArchList, &x.IsDefault, &x.Channel, &x.Source, &x.URL, &x.Ref)
		})
	if err != nil {
		return nil, fmt.Errorf("failed to read %s builds: %w", component, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	byID := make(map[int64]*BuildRow, len(out))
	for _, b := range out {
		byID[b.ID] = b
	}
	type req struct {
		id int64
		Requirement
	}
	reqs, err := scanAll(ctx, d, `SELECT r.build_id, r.needs, r.spec, r.kind, r.marker, r.source, r.url, r.ref
		FROM requirement r JOIN build b ON b.id = r.build_id WHERE b.component = ? AND b.version`+in+
		` ORDER BY r.build_id, r.needs, r.kind`, args,
		func(r *sql.Rows, q *req) error {
			return r.Scan(&q.id, &q.Needs, &q.Spec, &q.Kind, &q.Marker, &q.Source, &q.URL, &q.Ref)
		})
	if err != nil {
		return nil, fmt.Errorf("failed to read %s requirements: %w", component, err)
	}
	for _, q := range reqs {
		if b := byID[q.id]; b != nil {
			q.Build = b.Key()
			b.Reqs = append(b.Reqs, q.Requirement)
		}
	}
	return out, nil
}

// Attribute returns the value of a component attribute ("" when absent)
// and the provenance of the row that holds it.
func (d *DB) Attribute(ctx context.Context, component, version, key string) (string, Provenance, error) {
	var v string
	var p Provenance
	err := d.conn.QueryRowContext(ctx, "SELECT value, source, url, ref FROM attribute WHERE component = ? AND version = ? AND key = ?",
		component, version, key).Scan(&v, &p.Source, &p.URL, &p.Ref)
	if errors.Is(err, sql.ErrNoRows) {
		return "", p, nil
	}
	return v, p, err
}

// Attributes lists every attribute of component, ordered by version and key.
func (d *DB) Attributes(ctx context.Context, component string) ([]Attribute, error) {
	return scanAll(ctx, d, "SELECT component, version, key, value, source, url, ref FROM attribute WHERE component = ? ORDER BY version, key",
		[]any{component}, func(r *sql.Rows, a *Attribute) error {
			return r.Scan(&a.Component, &a.Version, &a.Key, &a.Value, &a.Source, &a.URL, &a.Ref)
		})
}

// CUDADrivers is the cuda_driver table in CUDA version order (then OS and
// kind), each row with its provenance.
func (d *DB) CUDADrivers(ctx context.Context) ([]CUDADriver, error) {
	return once(d, &d.cache.cudaDrivers, func(v []CUDADriver) bool { return v != nil }, func() ([]CUDADriver, error) {
		return scanAll(ctx, d, "SELECT "+cudaDriverCols+" FROM cuda_driver ORDER BY cuda_key, os, kind", nil, scanCUDADriver)
	})
}

// CUDADriversOf is the part of the cuda_driver table about one CUDA
// version: the rows whose CUDA is cuda exactly or, with releases, a
// release of it ("12.1" gives 12.1.0 and 12.1.1 too), in CUDA version
// order. A question about one stack reads these few rows through the
// table's key, once per handle, instead of the whole table.
func (d *DB) CUDADriversOf(ctx context.Context, cuda string, releases bool) ([]CUDADriver, error) {
	key := cuda
	if releases {
		key += ".*"
	}
	d.cache.mu.Lock()
	all := d.cache.cudaDrivers
	rows, ok := d.cache.cudaFloors[key]
	d.cache.mu.Unlock()
	if ok {
		return rows, nil
	}
	if all != nil {
		rows = []CUDADriver{}
		for _, r := range all {
			if r.CUDA == cuda || (releases && strings.HasPrefix(r.CUDA, cuda+".")) {
				rows = append(rows, r)
			}
		}
	} else {
		hi, lo := cuda, cuda
		if releases {
			// The range on the primary key (cuda, os, kind) finds
			// "cuda." followed by anything: '/' sorts just before '0'.
			lo, hi = cuda+".", cuda+"/"
		}
		var err error
		rows, err = scanAll(ctx, d, "SELECT "+cudaDriverCols+" FROM cuda_driver WHERE cuda = ? OR (cuda > ? AND cuda < ?) ORDER BY cuda_key, os, kind",
			[]any{cuda, lo, hi}, scanCUDADriver)
		if err != nil {
			return nil, err
		}
	}
	d.cache.mu.Lock()
	if d.cache.cudaFloors == nil {
		d.cache.cudaFloors = map[string][]CUDADriver{}
	}
	d.cache.cudaFloors[key] = rows
	d.cache.mu.Unlock()
	return rows, nil
}

// prepared returns the handle's prepared statement for q, preparing it on
// first use: parsing SQL costs more than running these small queries.
func (d *DB) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	d.cache.mu.Lock()
	st, ok := d.cache.stmts[q]
	d.cache.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := d.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	d.cache.mu.Lock()
	defer d.cache.mu.Unlock()
	if prev, ok := d.cache.stmts[q]; ok {
		st.Close()
		return prev, nil
	}
	if d.cache.stmts == nil {
		d.cache.stmts = map[string]*sql.Stmt{}
	}
	d.cache.stmts[q] = st
	return st, nil
}

// NewestToolkitFor is the newest CUDA toolkit release whose floor on os
// the driver meets ("" when none does): the search runs in SQLite over
// the stored driver keys, so no row but the answer is read.
func (d *DB) NewestToolkitFor(ctx context.Context, os, driver string) (string, error) {
	var cuda string
	err := d.conn.QueryRowContext(ctx, `SELECT cuda FROM cuda_driver WHERE kind = 'toolkit' AND os = ? AND min_driver != '' AND driver_key <= ?
		ORDER BY cuda_key DESC LIMIT 1`, os, version.DottedKey(driver)).Scan(&cuda)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return cuda, err
}

// GPUNames is the gpu table's names and aliases only, ordered by name:
// enough to find a GPU by any of its names without reading every row's
// facts (GPU then reads the one that matched).
func (d *DB) GPUNames(ctx context.Context) ([]GPU, error) {
	return once(d, &d.cache.gpuNames, func(v []GPU) bool { return v != nil }, func() ([]GPU, error) {
		return scanAll(ctx, d, "SELECT name, aliases FROM gpu ORDER BY name", nil,
			func(r *sql.Rows, g *GPU) error {
				var aliases string
				if err := r.Scan(&g.Name, &aliases); err != nil {
					return err
				}
				if aliases != "" {
					g.Aliases = strings.Split(aliases, ";")
				}
				return nil
			})
	})
}

// GPU reads one GPU by its table name; ok is false when there is none.
func (d *DB) GPU(ctx context.Context, name string) (g GPU, ok bool, err error) {
	gs, err := scanAll(ctx, d, "SELECT "+gpuCols+" FROM gpu WHERE name = ?", []any{name}, scanGPU)
	if err != nil || len(gs) == 0 {
		return GPU{}, false, err
	}
	return gs[0], true, nil
}

// GPUs is the gpu table ordered by name.
func (d *DB) GPUs(ctx context.Context) ([]GPU, error) {
	return once(d, &d.cache.gpus, func(v []GPU) bool { return v != nil }, func() ([]GPU, error) {
		return scanAll(ctx, d, "SELECT "+gpuCols+" FROM gpu ORDER BY name", nil, scanGPU)
	})
}

// DriverBranches is the driver_branch table, newest branch first.
func (d *DB) DriverBranches(ctx context.Context) ([]DriverBranch, error) {
	return scanAll(ctx, d, "SELECT branch, max_cuda, branch_type, end_of_life, source, url, ref FROM driver_branch ORDER BY branch_key DESC", nil,
		func(r *sql.Rows, b *DriverBranch) error {
			return r.Scan(&b.Branch, &b.MaxCUDA, &b.BranchType, &b.EndOfLife, &b.Source, &b.URL, &b.Ref)
		})
}

// DriverBranch returns one driver branch ("535"); ok is false when the
// data does not hold it.
func (d *DB) DriverBranch(ctx context.Context, branch string) (b DriverBranch, ok bool, err error) {
	all, err := once(d, &d.cache.branches, func(v map[string]DriverBranch) bool { return v != nil }, func() (map[string]DriverBranch, error) {
		rows, err := d.DriverBranches(ctx)
		m := make(map[string]DriverBranch, len(rows))
		for _, r := range rows {
			m[r.Branch] = r
		}
		return m, err
	})
	if err != nil {
		return DriverBranch{}, false, err
	}
	b, ok = all[branch]
	return b, ok, nil
}

// CUDNNSupport is the cudnn_support table, newest cuDNN first.
func (d *DB) CUDNNSupport(ctx context.Context) ([]CUDNNSupport, error) {
	return scanAll(ctx, d, `SELECT cudnn, cuda_major, cuda_versions, cuda_min, cuda_max, min_driver_linux, min_driver_windows, cc_list, cc_min,
		released_on, source, url, ref FROM cudnn_support ORDER BY cudnn_key DESC, cuda_major DESC, cuda_versions DESC`, nil,
		func(r *sql.Rows, c *CUDNNSupport) error {
			return r.Scan(&c.CUDNN, &c.CUDAMajor, &c.CUDAVersions, &c.CUDAMin, &c.CUDAMax, &c.MinDriverLinux, &c.MinDriverWindows,
				&c.CCList, &c.CCMin, &c.ReleasedOn, &c.Source, &c.URL, &c.Ref)
		})
}

// CUDAArchs is the cuda_arch table, newest CUDA first.
func (d *DB) CUDAArchs(ctx context.Context) ([]CUDAArch, error) {
	return scanAll(ctx, d, "SELECT cuda, sm_min, sm_max, added, deprecated, dropped, source, url, ref FROM cuda_arch ORDER BY cuda_key DESC", nil,
		func(r *sql.Rows, a *CUDAArch) error {
			return r.Scan(&a.CUDA, &a.SMMin, &a.SMMax, &a.Added, &a.Deprecated, &a.Dropped, &a.Source, &a.URL, &a.Ref)
		})
}

// Releases lists the releases of every component, ordered by component and
// version.
func (d *DB) Releases(ctx context.Context) ([]Release, error) {
	return scanAll(ctx, d, "SELECT component, version, released_on, source, url, ref FROM release ORDER BY component, version_key", nil,
		func(r *sql.Rows, x *Release) error {
			return r.Scan(&x.Component, &x.Version, &x.ReleasedOn, &x.Source, &x.URL, &x.Ref)
		})
}

// Tables lists the fact tables, in the order `db info` shows them.
var Tables = []string{"source", "release", "build", "build_version", "requirement", "cuda_driver", "cudnn_support", "gpu", "cuda_arch", "driver_branch", "attribute", "conflict", "meta"}

func knownTable(name string) error {
	for _, t := range Tables {
		if t == name {
			return nil
		}
	}
	return fmt.Errorf("unknown table %q (tables: %s)", name, strings.Join(Tables, ", "))
}

// Count returns the number of rows of a table named in Tables.
func (d *DB) Count(ctx context.Context, table string) (int, error) {
	if err := knownTable(table); err != nil {
		return 0, err
	}
	var n int
	err := d.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// Dump returns every row of a table named in Tables, in row order, with
// its column names; values keep SQLite's types.
func (d *DB) Dump(ctx context.Context, table string) (cols []string, rows [][]any, err error) {
	if err := knownTable(table); err != nil {
		return nil, nil, err
	}
	rs, err := d.conn.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY rowid")
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	if cols, err = rs.Columns(); err != nil {
		return nil, nil, err
	}
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		rows = append(rows, vals)
	}
	return cols, rows, rs.Err()
}

// Ping checks that the database answers a query.
func (d *DB) Ping(ctx context.Context) error {
	var one int
	return d.conn.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}
