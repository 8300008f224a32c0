package scraper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
)

// Progress stages reported through RefreshOptions.Progress.
const (
	StageFetching = "fetching"
	StageChecking = "checking"
	StageDone     = "done"
	StageFailed   = "failed"
)

// Event is one progress report.
type Event struct {
	Source string
	Stage  string
	Result *SourceResult // set for StageDone and StageFailed
}

// RefreshOptions say what a refresh reads, checks and writes.
type RefreshOptions struct {
	Input   Input
	DataDir string
	// All is every source, in precedence order (scraper/all.Sources in
	// the binary; tests pass their own): each is built into the database,
	// from its new snapshot or its previous file. Required.
	All []Source
	// Sources are scraped; nil means All.
	Sources []Source
	Checks  CheckOptions
	// DryRun checks and diffs but writes nothing under DataDir.
	DryRun bool
	// Progress, when set, hears about each source's stages.
	Progress func(Event)
	// Golden are checks run on the new database besides PostBuildChecks
	// (golden queries: "torch 2.1 resolves to cu121"); any error aborts
	// the refresh before anything is replaced.
	Golden []func(ctx context.Context, d *db.DB) error
	// Hook, when set, is called at each step of a refresh that writes
	// ("scraped <source>", "built", "journal", "moved <file>",
	// "committed"); the kill test stops the process there.
	Hook func(step string)
}

// SourceResult is the outcome of one source in a refresh.
type SourceResult struct {
	Source   string      `json:"source"`
	Rows     int         `json:"rows"`
	PrevRows int         `json:"previous_rows"`
	Warnings []string    `json:"warnings"`
	Changed  bool        `json:"changed"`
	Diff     *SourceDiff `json:"diff,omitempty"`
	Err      error       `json:"-"`
	Error    string      `json:"error,omitempty"`
}

// Report is the outcome of a refresh (the JSON of `cudb refresh --json`).
type Report struct {
	DryRun  bool           `json:"dry_run"`
	Sources []SourceResult `json:"sources"`
	Failed  []string       `json:"failed"`
	// Written lists the files (relative to the data directory) replaced,
	// or that would be with --dry-run; empty when nothing changed.
	Written []string `json:"written"`
	// Error is set when the refresh as a whole failed (lock, build, database
	// checks): nothing was written then.
	Error string `json:"error,omitempty"`
}

// Diffs returns the diffs of the sources that produced a snapshot.
func (r *Report) Diffs() []*SourceDiff {
	var out []*SourceDiff
	for _, s := range r.Sources {
		if s.Diff != nil {
			out = append(out, s.Diff)
		}
	}
	return out
}

// FailedReasons maps each failed source to its error.
func (r *Report) FailedReasons() map[string]string {
	m := map[string]string{}
	for _, s := range r.Sources {
		if s.Err != nil {
			m[s.Source] = s.Error
		}
	}
	if r.Error != "" {
		m["(database)"] = r.Error
	}
	return m
}

// Refresh scrapes each source independently and checks it; the snapshot
// of each source that passed replaces its previous file, a failed source
// keeps its previous file. The database is rebuilt from the result and
// checked (PostBuildChecks) before anything is replaced. Every file is
// staged first and moved into place under a journal (see commit), so a
// refresh that fails or is killed at any point leaves the previous data
// or, after Recover, the new data: never a mix. The data directory must
// exist. The returned error names the failed sources.
func Refresh(ctx context.Context, o RefreshOptions) (*Report, error) {
	if len(o.All) == 0 {
		return &Report{DryRun: o.DryRun, Sources: []SourceResult{}, Failed: []string{}, Written: []string{}, Error: "no sources given"},
			errors.New("refresh: no sources given (RefreshOptions.All is empty)")
	}
	if o.Sources == nil {
		o.Sources = o.All
	}
	progress := o.Progress
	if progress == nil {
		progress = func(Event) {}
	}
	hook := o.Hook
	if hook == nil {
		hook = func(string) {}
	}
	rep := &Report{DryRun: o.DryRun, Sources: []SourceResult{}, Failed: []string{}, Written: []string{}}
	fail := func(err error) (*Report, error) {
		rep.Error = err.Error()
		return rep, err
	}

	var stage string
	if o.DryRun {
		tmp, err := os.MkdirTemp("", "cudb-refresh-*")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(tmp)
		stage = tmp
	} else {
		if st, err := os.Stat(o.DataDir); err != nil || !st.IsDir() {
			return fail(fmt.Errorf("data directory %s does not exist or is not a directory", o.DataDir))
		}
		lock, err := datadir.AcquireLock(o.DataDir)
		if err != nil {
			return fail(err)
		}
		defer lock.Release()
		if err := datadir.Recover(o.DataDir); err != nil {
			return fail(fmt.Errorf("failed to recover an interrupted refresh: %w", err))
		}
		stage = datadir.StageDir(o.DataDir)
		if err := os.MkdirAll(stage, 0o755); err != nil {
			return fail(err)
		}
		// The staged files outlive a commit that could neither finish nor
		// roll back: its journal names them, and the next reader recovers.
		defer datadir.DropStage(o.DataDir, stage)
	}

	snaps := map[string]*Snapshot{}
	var pending []string
	for _, src := range o.Sources {
		r, snap, file := refreshOne(ctx, src, o, progress)
		hook("scraped " + src.Name())
		if r.Err == nil && file != nil {
			rel := filepath.Join(datadir.SourcesDir, src.Name()+".json")
			if err := datadir.WriteFileAtomic(filepath.Join(stage, rel), file); err != nil {
				r.Err = fmt.Errorf("failed to stage %s: %w", rel, err)
			} else {
				pending = append(pending, rel)
			}
		}
		if r.Err != nil {
			r.Error = r.Err.Error()
			rep.Failed = append(rep.Failed, src.Name())
			progress(Event{Source: src.Name(), Stage: StageFailed, Result: &r})
		} else {
			snaps[src.Name()] = snap
			progress(Event{Source: src.Name(), Stage: StageDone, Result: &r})
		}
		rep.Sources = append(rep.Sources, r)
	}

	// The build sees each source's new snapshot when it passed, else its
	// previous file; sources never scraped successfully are left out.
	for _, src := range o.All {
		if snaps[src.Name()] != nil {
			continue
		}
		prev, err := ReadSnapshot(o.DataDir, src.Name())
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fail(err)
		}
		snaps[src.Name()] = prev
	}
	if len(snaps) == 0 {
		// Nothing to build from: write nothing, not an empty database.
		rep.Error = "no source has data (every scrape failed and there is no previous snapshot): nothing was written"
		if len(rep.Failed) > 0 {
			return rep, fmt.Errorf("sources failed (their previous data was kept): %s", strings.Join(rep.Failed, ", "))
		}
		return rep, errors.New(rep.Error)
	}
	if _, err := buildTo(ctx, stage, filepath.Join(o.DataDir, "overrides.yaml"), o.All, snaps); err != nil {
		return fail(fmt.Errorf("failed to build the database (nothing was written): %w", err))
	}
	hook("built")
	if err := runPostBuildChecks(ctx, filepath.Join(stage, datadir.DBFile), o.Golden); err != nil {
		return fail(fmt.Errorf("the new database failed its checks (nothing was written): %w", err))
	}
	for _, rel := range BuiltFiles {
		same, err := sameContent(filepath.Join(stage, rel), filepath.Join(o.DataDir, rel))
		if err != nil {
			return fail(err)
		}
		if !same {
			pending = append(pending, rel)
		}
	}
	if !o.DryRun && len(pending) > 0 {
		if err := datadir.Commit(o.DataDir, stage, pending, hook); err != nil {
			return fail(err)
		}
	}
	// Only now: what was written (or, with DryRun, would be).
	rep.Written = append(rep.Written, pending...)
	if len(rep.Failed) > 0 {
		return rep, fmt.Errorf("sources failed (their previous data was kept): %s", strings.Join(rep.Failed, ", "))
	}
	return rep, nil
}

// refreshOne scrapes and checks one source. file is the encoded snapshot
// when it differs from the previous file, nil when unchanged.
func refreshOne(ctx context.Context, src Source, o RefreshOptions, progress func(Event)) (r SourceResult, snap *Snapshot, file []byte) {
	name := src.Name()
	r = SourceResult{Source: name, Warnings: []string{}}
	wrap := func(err error) error { return fmt.Errorf("source %s: %w", name, err) }

	progress(Event{Source: name, Stage: StageFetching})
	prev, err := ReadSnapshot(o.DataDir, name)
	if errors.Is(err, os.ErrNotExist) {
		prev, err = nil, nil
	}
	if err != nil {
		// A damaged previous file must not block fresh data; it only
		// loses the shrink check and the diff's baseline.
		prev = nil
	}
	if prev != nil {
		r.PrevRows = len(prev.Records)
	}
	recs, err := src.Scrape(ctx, o.Input)
	if err != nil {
		r.Err = wrap(err)
		return r, nil, nil
	}
	if o.Input.Fetcher != nil && prev != nil && len(recs) > 0 {
		// A live page speaks for the tables it has; tables it never
		// produces (curated fact tables read from snapshots) keep their
		// previous rows rather than vanish.
		recs = keepUnspoken(prev.Records, recs)
	}
	if a, ok := src.(Accumulator); ok && a.Accumulates() && o.Input.Fetcher != nil && prev != nil && len(recs) > 0 {
		// The shrink check cannot guard a page that shows less history
		// than the file holds; instead, what the page itself gave must
		// yield facts: a page whose every row is refused has changed shape.
		fresh, err := src.Normalize(recs)
		if err != nil {
			r.Err = wrap(fmt.Errorf("rows do not normalize: %w", err))
			return r, nil, nil
		}
		if countFacts(fresh) == 0 {
			r.Err = wrap(fmt.Errorf("the live page gave %d rows and none is usable (every row refused): its format probably changed", len(recs)))
			return r, nil, nil
		}
		recs = accumulate(prev.Records, recs)
	}
	r.Rows = len(recs)
	progress(Event{Source: name, Stage: StageChecking})
	_, warnings, err := CheckSnapshot(src, recs, prev, o.Checks)
	r.Warnings = append(r.Warnings, warnings...)
	if err != nil {
		r.Err = wrap(err)
		return r, nil, nil
	}
	snap = &Snapshot{Source: name, URL: src.URL(), Records: recs}
	b, err := snap.Encode()
	if err != nil {
		r.Err = wrap(err)
		return r, nil, nil
	}
	r.Diff = Diff(prev, snap)
	old, err := os.ReadFile(SnapshotPath(o.DataDir, name))
	if err == nil && bytes.Equal(old, b) {
		return r, snap, nil
	}
	r.Changed = true
	return r, snap, b
}

// countFacts counts the facts in f, refusals and conflicts aside.
func countFacts(f *db.Facts) int {
	if f == nil {
		return 0
	}
	return len(f.Releases) + len(f.Builds) + len(f.Requirements) + len(f.CUDADrivers) + len(f.CUDNN) +
		len(f.GPUs) + len(f.CUDAArches) + len(f.DriverBranches) + len(f.Attributes)
}

func runPostBuildChecks(ctx context.Context, path string, extra []func(context.Context, *db.DB) error) error {
	d, err := db.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	defer d.Close()
	for _, check := range append(append([]func(context.Context, *db.DB) error{}, PostBuildChecks...), extra...) {
		if err := check(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

func sameContent(a, b string) (bool, error) {
	x, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(b)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}
