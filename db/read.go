package db

import (
	"context"
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

// cache keeps what typed reads build, for the life of a handle: a cudb
// database is read-only, so nothing kept goes stale. Errors are not
// remembered.
type cache struct {
	mu          sync.Mutex
	versions    map[string][]string     // component -> versions, newest first
	builds      map[string][]*BuildRow  // component + "\x00" + version -> builds
	cudaDrivers []CUDADriver            // nil until read
	gpus        []GPU                   // nil until read
	gpuNames    []GPU                   // names and aliases only; nil until read
	branches    map[string]DriverBranch // nil until read
	cudaFloors  map[string][]CUDADriver // CUDA version ("12.1", or "12.1.*" with its releases) -> its rows
	attrRows    map[string][]int        // component -> its rows of the attribute table
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

// table is the named table of the handle's column image (every table
// in Tables is there: Open checks it).
func (d *DB) table(name string) *colTable { return d.cols.tables[name] }

// rowsOf turns rows of t into values with scan, in the order given.
func rowsOf[T any](t *colTable, rows []int, scan func(t *colTable, r int, v *T)) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		scan(t, r, &out[i])
	}
	return out
}

// provenance reads a row's source, url and ref columns.
func provenance(t *colTable, r int) Provenance {
	return Provenance{Source: t.str(t.col("source"), r), URL: t.str(t.col("url"), r), Ref: t.str(t.col("ref"), r)}
}

func scanCUDADriver(t *colTable, r int, c *CUDADriver) {
	*c = CUDADriver{CUDA: t.str(t.col("cuda"), r), Label: t.str(t.col("label"), r), OS: t.str(t.col("os"), r), Kind: t.str(t.col("kind"), r),
		MinDriver: t.str(t.col("min_driver"), r), ReleasedOn: t.str(t.col("released_on"), r), Provenance: provenance(t, r)}
}

func scanGPU(t *colTable, r int, g *GPU) {
	*g = GPU{Name: t.str(t.col("name"), r), Aliases: splitList(t.str(t.col("aliases"), r)), ComputeCapability: t.str(t.col("compute_capability"), r),
		Architecture: t.str(t.col("architecture"), r), Segment: t.str(t.col("segment"), r), Provenance: provenance(t, r)}
}

// splitList reads a ';'-separated list column (nil when empty).
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ";")
}

// Versions lists the distinct versions of component, newest first.
func (d *DB) Versions(ctx context.Context, component string) ([]string, error) {
	// build_version holds one row per version (the database build fills
	// it), so this reads tens of rows, not every build.
	return onceFor(d, &d.cache.versions, component, func() []string {
		return selectRows(d, "build_version", is("component", component), []sortBy{desc("version_key")},
			func(t *colTable, r int, s *string) { *s = t.str(t.col("version"), r) })
	}), nil
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
// requirements, in id order.
func (d *DB) readBuilds(ctx context.Context, component string, versions []string) ([]*BuildRow, error) {
	want := make(map[string]bool, len(versions))
	for _, v := range versions {
		want[v] = true
	}
	bt := d.table("build")
	comp, ver := bt.col("component"), bt.col("version")
	out := selectRows(d, "build", func(t *colTable, r int) bool {
		return t.is(comp, r, component) && want[t.str(ver, r)]
	}, []sortBy{asc("id")}, func(t *colTable, r int, b **BuildRow) {
		*b = &BuildRow{ID: t.int(t.col("id"), r), Build: Build{
			Component: t.str(comp, r), Version: t.str(ver, r), Variant: t.str(t.col("variant"), r), Platform: t.str(t.col("platform"), r),
			Package: t.str(t.col("package"), r), PipVersion: t.str(t.col("pip_version"), r), CUDA: t.str(t.col("cuda"), r),
			PythonMin: t.str(t.col("python_min"), r), PythonMax: t.str(t.col("python_max"), r), IndexURL: t.str(t.col("index_url"), r),
			ArchList: t.str(t.col("arch_list"), r), IsDefault: t.int(t.col("is_default"), r) != 0, Channel: t.str(t.col("channel"), r),
			ArchFrom:   Provenance{Source: t.str(t.col("arch_source"), r), URL: t.str(t.col("arch_url"), r), Ref: t.str(t.col("arch_ref"), r)},
			Provenance: provenance(t, r)}}
	})
	rq := d.table("requirement")
	for _, b := range out {
		lo, hi := requirementRows(rq, b.ID)
		for r := lo; r < hi; r++ {
			b.Reqs = append(b.Reqs, Requirement{Build: b.Key(), Needs: rq.str(rq.col("needs"), r), Spec: rq.str(rq.col("spec"), r),
				Kind: rq.str(rq.col("kind"), r), Marker: rq.str(rq.col("marker"), r), Provenance: provenance(rq, r)})
		}
	}
	return out, nil
}

// requirementRows is the range [lo, hi) of requirement rows that belong
// to build id, ordered by needs and kind: the column image keeps that
// table in key order (keyOrder), so the range is found by binary search.
func requirementRows(rq *colTable, id int64) (lo, hi int) {
	bid := rq.col("build_id")
	lo = sort.Search(rq.rows, func(r int) bool { return rq.int(bid, r) >= id })
	hi = lo
	for hi < rq.rows && rq.int(bid, hi) == id {
		hi++
	}
	return lo, hi
}

// Attribute returns the value of a component attribute ("" when absent)
// and the provenance of the row that holds it.
func (d *DB) Attribute(ctx context.Context, component, version, key string) (string, Provenance, error) {
	t := d.table("attribute")
	ver, k := t.col("version"), t.col("key")
	for _, r := range d.attributeRows(component) {
		if t.is(ver, r, version) && t.is(k, r, key) {
			return t.str(t.col("value"), r), provenance(t, r), nil
		}
	}
	return "", Provenance{}, nil
}

// attributeRows lists component's rows of the attribute table, found
// once per handle.
func (d *DB) attributeRows(component string) []int {
	return onceFor(d, &d.cache.attrRows, component, func() []int {
		t := d.table("attribute")
		comp := t.col("component")
		return t.where(func(r int) bool { return t.is(comp, r, component) })
	})
}

// Attributes lists every attribute of component, ordered by version and key.
func (d *DB) Attributes(ctx context.Context, component string) ([]Attribute, error) {
	return selectRows(d, "attribute", is("component", component), []sortBy{asc("version"), asc("key")}, func(t *colTable, r int, a *Attribute) {
		*a = Attribute{Component: t.str(t.col("component"), r), Version: t.str(t.col("version"), r), Key: t.str(t.col("key"), r),
			Value: t.str(t.col("value"), r), Provenance: provenance(t, r)}
	}), nil
}

// cudaDriverRows lists the rows of the cuda_driver table keep accepts in
// CUDA version order (then OS and kind).
func (d *DB) cudaDriverRows(keep func(t *colTable, r int) bool) []CUDADriver {
	return selectRows(d, "cuda_driver", keep, []sortBy{asc("cuda_key"), asc("os"), asc("kind")}, scanCUDADriver)
}

// CUDADrivers is the cuda_driver table in CUDA version order (then OS and
// kind), each row with its provenance.
func (d *DB) CUDADrivers(ctx context.Context) ([]CUDADriver, error) {
	return once(d, &d.cache.cudaDrivers, func(v []CUDADriver) bool { return v != nil }, func() ([]CUDADriver, error) {
		return d.cudaDriverRows(nil), nil
	})
}

// CUDADriversOf is the part of the cuda_driver table about one CUDA
// version: the rows whose CUDA is cuda exactly or, with releases, a
// release of it ("12.1" gives 12.1.0 and 12.1.1 too), in CUDA version
// order. A question about one stack builds these few rows, once per
// handle, instead of the whole table.
func (d *DB) CUDADriversOf(ctx context.Context, cuda string, releases bool) ([]CUDADriver, error) {
	key := cuda
	if releases {
		key += ".*"
	}
	return onceFor(d, &d.cache.cudaFloors, key, func() []CUDADriver {
		return d.cudaDriverRows(func(t *colTable, r int) bool {
			c := t.str(t.col("cuda"), r)
			return c == cuda || (releases && strings.HasPrefix(c, cuda+"."))
		})
	}), nil
}

// NewestToolkitFor is the newest CUDA toolkit release whose floor on os
// the driver meets ("" when none does), compared by the stored driver
// keys.
func (d *DB) NewestToolkitFor(ctx context.Context, os, driver string) (string, error) {
	t := d.table("cuda_driver")
	kind, o, floor, dkey, ckey := t.col("kind"), t.col("os"), t.col("min_driver"), t.col("driver_key"), t.col("cuda_key")
	have := version.DottedKey(driver)
	best := -1
	for r := 0; r < t.rows; r++ {
		if !t.is(kind, r, "toolkit") || !t.is(o, r, os) || t.is(floor, r, "") || t.str(dkey, r) > have {
			continue
		}
		// The newest CUDA wins; among equal keys the first row, as
		// the table's order gives it.
		if best < 0 || t.compare(ckey, r, best) > 0 {
			best = r
		}
	}
	if best < 0 {
		return "", nil
	}
	return t.str(t.col("cuda"), best), nil
}

// GPUNames is the gpu table's names and aliases only, ordered by name:
// enough to find a GPU by any of its names without building every row's
// facts (GPU then reads the one that matched).
func (d *DB) GPUNames(ctx context.Context) ([]GPU, error) {
	return once(d, &d.cache.gpuNames, func(v []GPU) bool { return v != nil }, func() ([]GPU, error) {
		return selectRows(d, "gpu", nil, []sortBy{asc("name")}, func(t *colTable, r int, g *GPU) {
			*g = GPU{Name: t.str(t.col("name"), r), Aliases: splitList(t.str(t.col("aliases"), r))}
		}), nil
	})
}

// GPU reads one GPU by its table name; ok is false when there is none.
func (d *DB) GPU(ctx context.Context, name string) (g GPU, ok bool, err error) {
	t := d.table("gpu")
	n := t.col("name")
	for r := 0; r < t.rows; r++ {
		if t.is(n, r, name) {
			scanGPU(t, r, &g)
			return g, true, nil
		}
	}
	return GPU{}, false, nil
}

// GPUs is the gpu table ordered by name.
func (d *DB) GPUs(ctx context.Context) ([]GPU, error) {
	return once(d, &d.cache.gpus, func(v []GPU) bool { return v != nil }, func() ([]GPU, error) {
		return selectRows(d, "gpu", nil, []sortBy{asc("name")}, scanGPU), nil
	})
}

// DriverBranches is the driver_branch table, newest branch first.
func (d *DB) DriverBranches(ctx context.Context) ([]DriverBranch, error) {
	return selectRows(d, "driver_branch", nil, []sortBy{desc("branch_key")}, func(t *colTable, r int, b *DriverBranch) {
		*b = DriverBranch{Branch: t.str(t.col("branch"), r), MaxCUDA: t.str(t.col("max_cuda"), r), BranchType: t.str(t.col("branch_type"), r),
			EndOfLife: t.str(t.col("end_of_life"), r), Provenance: provenance(t, r)}
	}), nil
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
	return selectRows(d, "cudnn_support", nil, []sortBy{desc("cudnn_key"), desc("cuda_major"), desc("cuda_versions")}, func(t *colTable, r int, c *CUDNNSupport) {
		*c = CUDNNSupport{CUDNN: t.str(t.col("cudnn"), r), CUDAMajor: t.str(t.col("cuda_major"), r), CUDAVersions: t.str(t.col("cuda_versions"), r),
			CUDAMin: t.str(t.col("cuda_min"), r), CUDAMax: t.str(t.col("cuda_max"), r), MinDriverLinux: t.str(t.col("min_driver_linux"), r),
			MinDriverWindows: t.str(t.col("min_driver_windows"), r), CCList: t.str(t.col("cc_list"), r), CCMin: t.str(t.col("cc_min"), r),
			ReleasedOn: t.str(t.col("released_on"), r), Provenance: provenance(t, r)}
	}), nil
}

// CUDAArchs is the cuda_arch table, newest CUDA first.
func (d *DB) CUDAArchs(ctx context.Context) ([]CUDAArch, error) {
	return selectRows(d, "cuda_arch", nil, []sortBy{desc("cuda_key")}, func(t *colTable, r int, a *CUDAArch) {
		*a = CUDAArch{CUDA: t.str(t.col("cuda"), r), SMMin: t.str(t.col("sm_min"), r), SMMax: t.str(t.col("sm_max"), r), Added: t.str(t.col("added"), r),
			Deprecated: t.str(t.col("deprecated"), r), Dropped: t.str(t.col("dropped"), r), Provenance: provenance(t, r)}
	}), nil
}

// Releases lists the releases of every component, ordered by component and
// version.
func (d *DB) Releases(ctx context.Context) ([]Release, error) {
	return selectRows(d, "release", nil, []sortBy{asc("component"), asc("version_key")}, func(t *colTable, r int, x *Release) {
		*x = Release{Component: t.str(t.col("component"), r), Version: t.str(t.col("version"), r), ReleasedOn: t.str(t.col("released_on"), r),
			Provenance: provenance(t, r)}
	}), nil
}

// ReleasesOf returns one component's releases, oldest first: what
// Releases holds for it, without building every other component's rows
// (resolve asks on every answer whether a release's facts are pending).
func (d *DB) ReleasesOf(ctx context.Context, component string) ([]Release, error) {
	return selectRows(d, "release", is("component", component), []sortBy{asc("version_key")}, func(t *colTable, r int, x *Release) {
		*x = Release{Component: component, Version: t.str(t.col("version"), r), ReleasedOn: t.str(t.col("released_on"), r),
			Provenance: provenance(t, r)}
	}), nil
}

// Meta returns the meta table as a map.
func (d *DB) Meta(ctx context.Context) (map[string]string, error) {
	t := d.table("meta")
	m := make(map[string]string, t.rows)
	for r := 0; r < t.rows; r++ {
		m[t.str(t.col("key"), r)] = t.str(t.col("value"), r)
	}
	return m, nil
}

// Sources lists the sources the database was built from.
func (d *DB) Sources(ctx context.Context) ([]SourceInfo, error) {
	return selectRows(d, "source", nil, []sortBy{asc("name")}, func(t *colTable, r int, s *SourceInfo) {
		*s = SourceInfo{Name: t.str(t.col("name"), r), URL: t.str(t.col("url"), r), FetchedAt: t.str(t.col("fetched_at"), r),
			SHA256: t.str(t.col("sha256"), r), Rows: int(t.int(t.col("rows"), r))}
	}), nil
}

// Conflicts lists the recorded disagreements between sources, in the
// order they were recorded.
func (d *DB) Conflicts(ctx context.Context) ([]Conflict, error) {
	return selectRows(d, "conflict", nil, []sortBy{asc("id")}, func(t *colTable, r int, c *Conflict) {
		*c = Conflict{Subject: t.str(t.col("subject"), r), Field: t.str(t.col("field"), r), Kept: t.str(t.col("kept"), r),
			KeptSource: t.str(t.col("kept_source"), r), Other: t.str(t.col("other"), r), OtherSource: t.str(t.col("other_source"), r),
			Note: t.str(t.col("note"), r)}
	}), nil
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
	return d.table(table).rows, nil
}

// Dump returns every row of a table named in Tables, in rowid order
// (build_version and requirement: primary key order), with its column
// names; values keep SQLite's types (int64, float64, string
// or nil).
func (d *DB) Dump(ctx context.Context, table string) (cols []string, rows [][]any, err error) {
	if err := knownTable(table); err != nil {
		return nil, nil, err
	}
	t := d.table(table)
	for r := 0; r < t.rows; r++ {
		row := make([]any, len(t.cols))
		for c := range t.cols {
			row[c] = t.value(c, r)
		}
		rows = append(rows, row)
	}
	return append([]string(nil), t.cols...), rows, nil
}

// Ping checks that the database answers: that its column image holds
// every table.
func (d *DB) Ping(ctx context.Context) error {
	return d.cols.check()
}
