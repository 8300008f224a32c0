// Package store holds the data's own use cases: open the database every
// command reads (the one embedded in the binary, or a --db file), describe,
// check and dump it, build it from a data directory's snapshots, and
// refresh those snapshots from their sources. It is the one use-case
// package that writes data, so the one that reaches scraper; the CLI
// calls it and nothing below it (internal/layout tests both).
package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/usecase"
)

// SchemaVersion is the database schema this binary reads.
const SchemaVersion = db.SchemaVersion

// Tables lists the database's tables in dump order.
var Tables = db.Tables

// The database's own descriptions.
type (
	// SourceInfo is one source row of the database: name, rows, fetch
	// time, hash and URL.
	SourceInfo = db.SourceInfo
	// CheckResult is the database's integrity and foreign-key checks and
	// its recorded conflicts.
	CheckResult = db.CheckResult
)

// EmbeddedOrigin is the Origin of the database built into the binary.
const EmbeddedOrigin = "embedded database"

// Open opens the database at path, or the embedded one when path is "".
// Opening never writes a fact: a file's column image is kept beside it,
// keyed by the file's hash, and a refresh commit pending beside it is left
// for RecoverBeside (the commands that write) to settle.
func Open(ctx context.Context, path string) (*usecase.DB, error) {
	if path != "" {
		return db.OpenFileCached(ctx, path)
	}
	return db.OpenImage(ctx, data.DB, data.Columns, EmbeddedOrigin)
}

// Info is `cudb db info --json`.
type Info struct {
	Origin        string            `json:"origin"`
	SchemaVersion int               `json:"schema_version"`
	Meta          map[string]string `json:"meta"`
	Sources       []SourceInfo      `json:"sources"`
	Tables        map[string]int    `json:"tables"`
	// DataAsOf is the newest date any fact carries (meta data_as_of).
	DataAsOf string `json:"data_as_of,omitempty"`
	// Newest is the newest release of every line the data holds: each
	// framework and companion, CUDA, cuDNN and the driver branch.
	Newest []usecase.Newest `json:"newest"`
}

// Describe reads what `cudb db info` shows: the meta table, the sources,
// the newest release of each line and every table's row count.
func Describe(ctx context.Context, d *usecase.DB) (*Info, error) {
	info := &Info{Origin: d.Origin, SchemaVersion: SchemaVersion, Tables: map[string]int{}}
	var err error
	if info.Meta, err = d.Meta(ctx); err != nil {
		return nil, err
	}
	if info.Sources, err = d.Sources(ctx); err != nil {
		return nil, err
	}
	if info.Sources == nil {
		info.Sources = []SourceInfo{}
	}
	info.DataAsOf = info.Meta["data_as_of"]
	if info.Newest, err = usecase.NewestReleases(ctx, d); err != nil {
		return nil, err
	}
	for _, t := range Tables {
		n, err := d.Count(ctx, t)
		if err != nil {
			return nil, err
		}
		info.Tables[t] = n
	}
	return info, nil
}

// Journal is what was found about a refresh commit pending in the folder
// of a --db file.
type Journal struct {
	Dir string
	// Recovered says what recovery did ("completed", "rolled back", …);
	// "" when nothing was pending.
	Recovered string
	// Pending is set while a live refresh is committing right now.
	Pending error
}

// RecoverBeside settles a refresh commit pending in the folder of the
// database file path, taking the refresh lock (datadir.RecoverPending).
// While a live refresh holds the lock the commit is in progress, which is
// reported in Journal.Pending, not as an error. An empty path (the
// embedded database) has nothing beside it.
func RecoverBeside(path string) (Journal, error) {
	if path == "" {
		return Journal{}, nil
	}
	j := Journal{Dir: filepath.Dir(path)}
	var err error
	j.Recovered, err = datadir.RecoverPending(j.Dir)
	if errors.Is(err, datadir.ErrLocked) {
		j.Pending, err = err, nil
	}
	if err != nil {
		return j, fmt.Errorf("failed to recover the interrupted refresh in %s: %w", j.Dir, err)
	}
	return j, nil
}

// CheckReport is `cudb db check --json`: the database's checks, and what
// was found about a refresh journal beside a --db file.
type CheckReport struct {
	*CheckResult
	Journal string `json:"journal,omitempty"`
}

// Check runs the database's checks and words what j found.
func Check(ctx context.Context, d *usecase.DB, j Journal) (*CheckReport, error) {
	res, err := d.Check(ctx)
	if err != nil {
		return nil, err
	}
	rep := &CheckReport{CheckResult: res}
	switch {
	case j.Pending != nil:
		rep.Journal = "pending: " + j.Pending.Error()
	case j.Recovered != "":
		rep.Journal = fmt.Sprintf("an interrupted refresh was pending in %s; recovery %s it", j.Dir, j.Recovered)
	}
	return rep, nil
}
