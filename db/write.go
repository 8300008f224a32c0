package db

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/version"
)

// Write builds a fresh database at path from facts: migrations first,
// then every fact, in a deterministic order so the same input gives a
// byte-identical file. The file is written beside path and renamed into
// place, so a reader (or a killed build) never sees a half-written one.
func Write(ctx context.Context, path string, f *Facts, sources []SourceInfo, meta map[string]string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".cudb-build-*.db")
	if err != nil {
		return err
	}
	tmpPath := tmp.Name()
	tmp.Close()
	os.Remove(tmpPath)
	defer os.Remove(tmpPath)
	defer os.Remove(tmpPath + "-journal")

	if err := writeFile(ctx, tmpPath, f, sources, meta); err != nil {
		return err
	}
	return os.Rename(tmpPath, path)
}

func writeFile(ctx context.Context, path string, f *Facts, sources []SourceInfo, meta map[string]string) error {
	conn, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=journal_mode(DELETE)")
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.ExecContext(ctx, "PRAGMA page_size = 4096"); err != nil {
		return err
	}
	if err := migrate(ctx, conn); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertAll(ctx, tx, f, sources, meta); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
		return err
	}
	return nil
}

type inserter struct {
	tx  *sql.Tx
	err error
}

func (in *inserter) exec(ctx context.Context, q string, args ...any) sql.Result {
	if in.err != nil {
		return nil
	}
	r, err := in.tx.ExecContext(ctx, q, args...)
	if err != nil {
		in.err = fmt.Errorf("%s: %w (values %v)", strings.Fields(q)[2], err, args)
	}
	return r
}

func insertAll(ctx context.Context, tx *sql.Tx, f *Facts, sources []SourceInfo, meta map[string]string) error {
	in := &inserter{tx: tx}
	sort.Slice(sources, func(i, j int) bool { return sources[i].Name < sources[j].Name })
	for _, s := range sources {
		in.exec(ctx, "INSERT INTO source(name,url,fetched_at,sha256,rows) VALUES(?,?,?,?,?)", s.Name, s.URL, s.FetchedAt, s.SHA256, s.Rows)
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		in.exec(ctx, "INSERT INTO meta(key,value) VALUES(?,?)", k, meta[k])
	}
	in.exec(ctx, "INSERT OR REPLACE INTO meta(key,value) VALUES('schema_version',?)", fmt.Sprint(SchemaVersion))

	rel := append([]Release(nil), f.Releases...)
	sort.Slice(rel, func(i, j int) bool {
		return rel[i].Component+"\x00"+version.SortKey(rel[i].Version) < rel[j].Component+"\x00"+version.SortKey(rel[j].Version)
	})
	for _, r := range rel {
		in.exec(ctx, "INSERT INTO release(component,version,version_key,released_on,source,url,ref) VALUES(?,?,?,?,?,?,?)",
			r.Component, r.Version, version.SortKey(r.Version), r.ReleasedOn, r.Source, r.URL, r.Ref)
	}

	builds := append([]Build(nil), f.Builds...)
	sort.Slice(builds, func(i, j int) bool { return buildOrder(builds[i]) < buildOrder(builds[j]) })
	ids := map[BuildKey]int64{}
	for i, b := range builds {
		id := int64(i + 1)
		ids[b.Key()] = id
		in.exec(ctx, `INSERT INTO build(id,component,version,version_key,variant,platform,package,pip_version,cuda,cuda_key,
			python_min,python_max,index_url,arch_list,is_default,channel,source,url,ref,arch_source,arch_url,arch_ref)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			id, b.Component, b.Version, version.SortKey(b.Version), b.Variant, b.Platform, b.Package, b.PipVersion,
			b.CUDA, version.DottedKey(b.CUDA), b.PythonMin, b.PythonMax, b.IndexURL, b.ArchList, b.IsDefault, b.Channel,
			b.Source, b.URL, b.Ref, b.ArchFrom.Source, b.ArchFrom.URL, b.ArchFrom.Ref)
	}

	seenVersion := map[[2]string]bool{}
	for _, b := range builds {
		k := [2]string{b.Component, b.Version}
		if !seenVersion[k] {
			seenVersion[k] = true
			in.exec(ctx, "INSERT INTO build_version(component,version,version_key) VALUES(?,?,?)", b.Component, b.Version, version.SortKey(b.Version))
		}
	}

	reqs := append([]Requirement(nil), f.Requirements...)
	sort.Slice(reqs, func(i, j int) bool {
		a, b := reqs[i], reqs[j]
		if ids[a.Build] != ids[b.Build] {
			return ids[a.Build] < ids[b.Build]
		}
		if a.Needs != b.Needs {
			return a.Needs < b.Needs
		}
		return a.Kind < b.Kind
	})
	for _, r := range reqs {
		id, ok := ids[r.Build]
		if !ok {
			return fmt.Errorf("requirement %s needs %s: no such build (source %s)", r.Build, r.Needs, r.Source)
		}
		in.exec(ctx, "INSERT INTO requirement(build_id,needs,spec,kind,marker,source,url,ref) VALUES(?,?,?,?,?,?,?,?)",
			id, r.Needs, r.Spec, r.Kind, r.Marker, r.Source, r.URL, r.Ref)
	}

	cd := append([]CUDADriver(nil), f.CUDADrivers...)
	sort.Slice(cd, func(i, j int) bool {
		return version.DottedKey(cd[i].CUDA)+cd[i].OS+cd[i].Kind < version.DottedKey(cd[j].CUDA)+cd[j].OS+cd[j].Kind
	})
	for _, c := range cd {
		in.exec(ctx, "INSERT INTO cuda_driver(cuda,cuda_key,label,os,kind,min_driver,driver_key,released_on,source,url,ref) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
			c.CUDA, version.DottedKey(c.CUDA), c.Label, c.OS, c.Kind, c.MinDriver, version.DottedKey(c.MinDriver), c.ReleasedOn, c.Source, c.URL, c.Ref)
	}

	cn := append([]CUDNNSupport(nil), f.CUDNN...)
	sort.Slice(cn, func(i, j int) bool {
		a, b := cn[i], cn[j]
		return version.DottedKey(a.CUDNN)+"\x00"+a.CUDAMajor+"\x00"+a.CUDAVersions < version.DottedKey(b.CUDNN)+"\x00"+b.CUDAMajor+"\x00"+b.CUDAVersions
	})
	for _, c := range cn {
		in.exec(ctx, `INSERT INTO cudnn_support(cudnn,cudnn_key,cuda_major,cuda_versions,cuda_min,cuda_max,min_driver_linux,min_driver_windows,cc_list,cc_min,released_on,source,url,ref)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			c.CUDNN, version.DottedKey(c.CUDNN), c.CUDAMajor, c.CUDAVersions, c.CUDAMin, c.CUDAMax, c.MinDriverLinux, c.MinDriverWindows, c.CCList, c.CCMin, c.ReleasedOn, c.Source, c.URL, c.Ref)
	}

	gpus := append([]GPU(nil), f.GPUs...)
	sort.Slice(gpus, func(i, j int) bool { return strings.ToLower(gpus[i].Name) < strings.ToLower(gpus[j].Name) })
	for _, g := range gpus {
		in.exec(ctx, "INSERT INTO gpu(name,aliases,compute_capability,architecture,segment,source,url,ref) VALUES(?,?,?,?,?,?,?,?)",
			g.Name, strings.Join(g.Aliases, ";"), g.ComputeCapability, g.Architecture, g.Segment, g.Source, g.URL, g.Ref)
	}

	ar := append([]CUDAArch(nil), f.CUDAArches...)
	sort.Slice(ar, func(i, j int) bool { return version.DottedKey(ar[i].CUDA) < version.DottedKey(ar[j].CUDA) })
	for _, a := range ar {
		in.exec(ctx, "INSERT INTO cuda_arch(cuda,cuda_key,sm_min,sm_max,added,deprecated,dropped,source,url,ref) VALUES(?,?,?,?,?,?,?,?,?,?)",
			a.CUDA, version.DottedKey(a.CUDA), a.SMMin, a.SMMax, a.Added, a.Deprecated, a.Dropped, a.Source, a.URL, a.Ref)
	}

	br := append([]DriverBranch(nil), f.DriverBranches...)
	sort.Slice(br, func(i, j int) bool { return version.DottedKey(br[i].Branch) < version.DottedKey(br[j].Branch) })
	for _, d := range br {
		in.exec(ctx, "INSERT INTO driver_branch(branch,branch_key,max_cuda,branch_type,end_of_life,source,url,ref) VALUES(?,?,?,?,?,?,?,?)",
			d.Branch, version.DottedKey(d.Branch), d.MaxCUDA, d.BranchType, d.EndOfLife, d.Source, d.URL, d.Ref)
	}

	at := append([]Attribute(nil), f.Attributes...)
	sort.Slice(at, func(i, j int) bool {
		return at[i].Component+"\x00"+at[i].Version+"\x00"+at[i].Key < at[j].Component+"\x00"+at[j].Version+"\x00"+at[j].Key
	})
	for _, a := range at {
		in.exec(ctx, "INSERT INTO attribute(component,version,key,value,source,url,ref) VALUES(?,?,?,?,?,?,?)",
			a.Component, a.Version, a.Key, a.Value, a.Source, a.URL, a.Ref)
	}

	for i, c := range f.Conflicts {
		in.exec(ctx, "INSERT INTO conflict(id,subject,field,kept,kept_source,other,other_source,note) VALUES(?,?,?,?,?,?,?,?)",
			i+1, c.Subject, c.Field, c.Kept, c.KeptSource, c.Other, c.OtherSource, c.Note)
	}
	return in.err
}

func buildOrder(b Build) string {
	return strings.Join([]string{b.Component, version.SortKey(b.Version), b.Channel, b.Platform, b.Variant}, "\x00")
}
