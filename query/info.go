package query

import (
	"context"
	"fmt"

	"github.com/cudb/cudb/db"
)

// DataInfo describes the data behind every answer: what `GET /v1/meta`
// returns and what every page of the generated site shows.
type DataInfo struct {
	SchemaVersion int    `json:"schema_version"`
	BuiltFrom     string `json:"built_from"`
	// DataAsOf is the newest release date in the facts: how current the
	// data is (it carries no wall-clock build time, so builds reproduce).
	DataAsOf string            `json:"data_as_of,omitempty"`
	Meta     map[string]string `json:"meta"`
	Sources  []db.SourceInfo   `json:"sources"`
	Tables   []string          `json:"tables"`
}

// Info reads the database's meta table and sources.
func Info(ctx context.Context, d *db.DB) (*DataInfo, error) {
	meta, err := d.Meta(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the meta table: %w", err)
	}
	srcs, err := d.Sources(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the source table: %w", err)
	}
	if srcs == nil {
		srcs = []db.SourceInfo{}
	}
	return &DataInfo{SchemaVersion: db.SchemaVersion, BuiltFrom: meta["built_from"], DataAsOf: meta["data_as_of"], Meta: meta, Sources: srcs, Tables: MatrixNames()}, nil
}
