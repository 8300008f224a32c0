package scraper

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
)

// SnapshotPath is where a source's rows live inside a data directory.
func SnapshotPath(dataDir, name string) string {
	return filepath.Join(dataDir, datadir.SourcesDir, name+".json")
}

// ReadSnapshot loads data/sources/<name>.json.
func ReadSnapshot(dataDir, name string) (*Snapshot, error) {
	b, err := os.ReadFile(SnapshotPath(dataDir, name))
	if err != nil {
		return nil, err
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", SnapshotPath(dataDir, name), err)
	}
	if s.Source != name {
		return nil, fmt.Errorf("%s names source %q, expected %q", SnapshotPath(dataDir, name), s.Source, name)
	}
	return &s, nil
}

// Facts normalizes every source's snapshot under dataDir and merges them
// in precedence order.
func Facts(dataDir string, sources []Source) (*db.Facts, []db.SourceInfo, error) {
	snaps, err := readSnapshots(dataDir, sources)
	if err != nil {
		return nil, nil, err
	}
	return factsFrom(filepath.Join(dataDir, "overrides.yaml"), sources, snaps)
}

func readSnapshots(dataDir string, sources []Source) (map[string]*Snapshot, error) {
	snaps := map[string]*Snapshot{}
	for _, src := range sources {
		snap, err := ReadSnapshot(dataDir, src.Name())
		if err != nil {
			return nil, err
		}
		snaps[src.Name()] = snap
	}
	return snaps, nil
}

// factsFrom normalizes the snapshots of the sources that have one, in
// precedence order, and applies the overrides file.
func factsFrom(overridesPath string, sources []Source, snaps map[string]*Snapshot) (*db.Facts, []db.SourceInfo, error) {
	var parts []*db.Facts
	var infos []db.SourceInfo
	for _, src := range sources {
		snap := snaps[src.Name()]
		if snap == nil {
			continue
		}
		f, err := src.Normalize(snap.Records)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to normalize source %s: %w", src.Name(), err)
		}
		parts = append(parts, f)
		infos = append(infos, db.SourceInfo{Name: src.Name(), URL: src.URL(), SHA256: snap.SHA256(), Rows: len(snap.Records)})
	}
	merged := db.Merge(parts...)
	ov, err := LoadOverrides(overridesPath)
	if err != nil {
		return nil, nil, err
	}
	if err := ov.Apply(merged); err != nil {
		return nil, nil, err
	}
	return merged, infos, nil
}

// Manifest describes a built database: what went in, and the hash of what
// came out. It holds no wall-clock values, so rebuilding unchanged input
// gives an identical file.
type Manifest struct {
	SchemaVersion int             `json:"schema_version"`
	DBSHA256      string          `json:"db_sha256"`
	Sources       []db.SourceInfo `json:"sources"`
}

// Build normalizes every snapshot under dataDir and replaces
// dataDir/cudb.db and dataDir/manifest.json. It takes the refresh lock and
// recovers a pending journal first, builds into the staging directory,
// checks the database (PostBuildChecks), and moves the changed files into
// place under a journal, as Refresh does: a failed build writes nothing.
func Build(ctx context.Context, dataDir string, sources []Source) (*Manifest, error) {
	lock, err := datadir.AcquireLock(dataDir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := datadir.Recover(dataDir); err != nil {
		return nil, fmt.Errorf("failed to recover an interrupted refresh: %w", err)
	}
	snaps, err := readSnapshots(dataDir, sources)
	if err != nil {
		return nil, err
	}
	stage := datadir.StageDir(dataDir)
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return nil, err
	}
	defer datadir.DropStage(dataDir, stage)
	m, err := buildTo(ctx, stage, filepath.Join(dataDir, "overrides.yaml"), sources, snaps)
	if err != nil {
		return nil, fmt.Errorf("failed to build the database (nothing was written): %w", err)
	}
	if err := runPostBuildChecks(ctx, filepath.Join(stage, datadir.DBFile), nil); err != nil {
		return nil, fmt.Errorf("the new database failed its checks (nothing was written): %w", err)
	}
	var pending []string
	for _, rel := range BuiltFiles {
		same, err := sameContent(filepath.Join(stage, rel), filepath.Join(dataDir, rel))
		if err != nil {
			return nil, err
		}
		if !same {
			pending = append(pending, rel)
		}
	}
	if len(pending) > 0 {
		if err := datadir.Commit(dataDir, stage, pending, func(string) {}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// BuiltFiles are the files a build writes into a data directory: the
// database, its column image (what the binary's queries read) and the
// manifest.
var BuiltFiles = []string{datadir.DBFile, datadir.ColumnsFile, datadir.ManifestFile}

// buildTo writes outDir's BuiltFiles from snaps (the sources without a
// snapshot are left out).
func buildTo(ctx context.Context, outDir, overridesPath string, sources []Source, snaps map[string]*Snapshot) (*Manifest, error) {
	facts, infos, err := factsFrom(overridesPath, sources, snaps)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, s := range infos {
		fmt.Fprintf(h, "%s %s\n", s.Name, s.SHA256)
	}
	meta := map[string]string{"built_from": hex.EncodeToString(h.Sum(nil))}
	if asOf := newestDate(facts); asOf != "" {
		meta["data_as_of"] = asOf
	}
	dbPath := filepath.Join(outDir, datadir.DBFile)
	if err := db.Write(ctx, dbPath, facts, infos, meta); err != nil {
		return nil, err
	}
	cols, err := db.EncodeColumns(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	if err := datadir.WriteFileAtomic(filepath.Join(outDir, datadir.ColumnsFile), cols); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(dbPath)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	m := &Manifest{SchemaVersion: db.SchemaVersion, DBSHA256: hex.EncodeToString(sum[:]), Sources: infos}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, datadir.WriteFileAtomic(filepath.Join(outDir, datadir.ManifestFile), append(out, '\n'))
}

// newestDate is the latest release date the facts state (YYYY-MM or
// YYYY-MM-DD): the data's "as of" date. It comes from the facts, not
// the clock, so rebuilding unchanged input gives the same database.
func newestDate(f *db.Facts) string {
	newest := ""
	consider := func(d string) {
		if len(d) >= 7 && d[4] == '-' && d > newest {
			newest = d
		}
	}
	for _, r := range f.Releases {
		consider(r.ReleasedOn)
	}
	for _, c := range f.CUDADrivers {
		consider(c.ReleasedOn)
	}
	for _, c := range f.CUDNN {
		consider(c.ReleasedOn)
	}
	return newest
}
