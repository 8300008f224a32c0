package query

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
)

// BuildRow is a build with the requirements that hang off it.
type BuildRow struct {
	ID int64
	db.Build
	Reqs []db.Requirement
}

// Req returns the first requirement on needs, preferring kinds in the
// order given (what pip installs first, then what documents say).
func (b *BuildRow) Req(needs string, kinds ...string) (db.Requirement, bool) {
	for _, k := range kinds {
		for _, r := range b.Reqs {
			if r.Needs == needs && r.Kind == k {
				return r, true
			}
		}
	}
	return db.Requirement{}, false
}

// LoadBuilds reads every build of component with its requirements,
// newest version first.
func LoadBuilds(ctx context.Context, d *db.DB, component string) ([]*BuildRow, error) {
	return LoadBuildsWhere(ctx, d, component, nil)
}

// Versions lists the distinct versions of component, newest first (read
// once per database handle).
func Versions(ctx context.Context, d *db.DB, component string) ([]string, error) {
	v, err := d.Memo("versions/"+component, func() (any, error) {
		// build_version holds one row per version (the database build
		// fills it), so this reads tens of rows, not every build.
		rows, err := d.SQL.QueryContext(ctx, "SELECT version FROM build_version WHERE component = ? ORDER BY version_key DESC", component)
		if err != nil {
			return nil, fmt.Errorf("failed to read %s versions: %w", component, err)
		}
		defer rows.Close()
		out := []string{}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return v.([]string), nil
}

// LoadBuildsWhere reads the builds of component whose version keep
// accepts (all when keep is nil), with their requirements, in id order.
// Versions are matched first so that only the rows a question needs are
// read (reading rows, not finding them, is what costs), and each
// version's builds are kept per database handle: the database is
// read-only, and a server asks about the same releases again and again.
// Callers must not modify the rows.
func LoadBuildsWhere(ctx context.Context, d *db.DB, component string, keep func(version string) bool) ([]*BuildRow, error) {
	versions, err := Versions(ctx, d, component)
	if err != nil {
		return nil, err
	}
	var out []*BuildRow
	var missing []string
	for _, v := range versions {
		if keep != nil && !keep(v) {
			continue
		}
		if cached, ok := d.Cached(buildsKey(component, v)); ok {
			out = append(out, cached.([]*BuildRow)...)
		} else {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		loaded, err := readBuilds(ctx, d, component, missing)
		if err != nil {
			return nil, err
		}
		byVersion := map[string][]*BuildRow{}
		for _, b := range loaded {
			byVersion[b.Version] = append(byVersion[b.Version], b)
		}
		for _, v := range missing {
			d.Cache(buildsKey(component, v), byVersion[v])
		}
		out = append(out, loaded...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func buildsKey(component, version string) string { return "builds/" + component + "/" + version }

// readBuilds reads the builds of the given versions with their
// requirements.
func readBuilds(ctx context.Context, d *db.DB, component string, versions []string) ([]*BuildRow, error) {
	args := []any{component}
	marks := make([]string, len(versions))
	for i, v := range versions {
		marks[i] = "?"
		args = append(args, v)
	}
	filter := " AND version IN (" + strings.Join(marks, ",") + ")"
	rows, err := d.SQL.QueryContext(ctx, `SELECT id, component, version, variant, platform, package, pip_version, cuda,
		python_min, python_max, index_url, arch_list, is_default, channel, source, url, ref
		FROM build WHERE component = ?`+filter+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s builds: %w", component, err)
	}
	var out []*BuildRow
	byID := map[int64]*BuildRow{}
	for rows.Next() {
		b := &BuildRow{}
		if err := rows.Scan(&b.ID, &b.Component, &b.Version, &b.Variant, &b.Platform, &b.Package, &b.PipVersion, &b.CUDA,
			&b.PythonMin, &b.PythonMax, &b.IndexURL, &b.ArchList, &b.IsDefault, &b.Channel, &b.Source, &b.URL, &b.Ref); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, b)
		byID[b.ID] = b
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	rq, err := d.SQL.QueryContext(ctx, `SELECT r.build_id, r.needs, r.spec, r.kind, r.marker, r.source, r.url, r.ref
		FROM requirement r JOIN build b ON b.id = r.build_id WHERE b.component = ?`+strings.ReplaceAll(filter, "version", "b.version")+
		` ORDER BY r.build_id, r.needs, r.kind`, args...)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s requirements: %w", component, err)
	}
	defer rq.Close()
	for rq.Next() {
		var id int64
		var r db.Requirement
		if err := rq.Scan(&id, &r.Needs, &r.Spec, &r.Kind, &r.Marker, &r.Source, &r.URL, &r.Ref); err != nil {
			return nil, err
		}
		if b := byID[id]; b != nil {
			r.Build = b.Key()
			b.Reqs = append(b.Reqs, r)
		}
	}
	return out, rq.Err()
}

// Attribute returns the value of a component attribute ("" when absent)
// and its provenance.
func Attribute(ctx context.Context, d *db.DB, component, ver, key string) (string, db.Provenance, error) {
	var v string
	var p db.Provenance
	err := d.SQL.QueryRowContext(ctx, "SELECT value, source, url, ref FROM attribute WHERE component = ? AND version = ? AND key = ?",
		component, ver, key).Scan(&v, &p.Source, &p.URL, &p.Ref)
	if err == sql.ErrNoRows {
		return "", p, nil
	}
	return v, p, err
}
