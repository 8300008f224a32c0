package scraper

import (
	"context"
	"errors"
	"fmt"
)

// Scrape runs one source and applies the checks every source must pass
// before its rows may replace the previous ones: rows were found, and no
// two rows share an identity.
func Scrape(ctx context.Context, src Source, in Input) (*Snapshot, error) {
	recs, err := src.Scrape(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Name(), err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("source %s: found no rows (an empty scrape is an error, never an empty file)", src.Name())
	}
	if err := CheckUnique(recs); err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Name(), err)
	}
	if _, err := src.Normalize(recs); err != nil {
		return nil, fmt.Errorf("source %s: rows do not normalize: %w", src.Name(), err)
	}
	s := &Snapshot{Source: src.Name(), URL: src.URL(), Records: recs}
	SortRecords(s.Records)
	return s, nil
}

// SourceResult is the outcome of one source in a refresh.
type SourceResult struct {
	Source string `json:"source"`
	Rows   int    `json:"rows"`
	Err    error  `json:"-"`
	Error  string `json:"error,omitempty"`
}

// Refresh scrapes every source independently, writes the snapshot of
// each that passed its checks (a failed source keeps its previous file),
// and rebuilds the database. It returns per-source results and an error
// when any source failed.
func Refresh(ctx context.Context, in Input, dataDir string, sources []Source) ([]SourceResult, error) {
	var results []SourceResult
	var failed []string
	for _, src := range sources {
		r := SourceResult{Source: src.Name()}
		snap, err := Scrape(ctx, src, in)
		if err == nil {
			var b []byte
			if b, err = snap.Encode(); err == nil {
				err = WriteFileAtomic(SnapshotPath(dataDir, src.Name()), b)
			}
			r.Rows = len(snap.Records)
		}
		if err != nil {
			r.Err, r.Error = err, err.Error()
			failed = append(failed, src.Name())
		}
		results = append(results, r)
	}
	if _, err := Build(ctx, dataDir, sources); err != nil {
		return results, fmt.Errorf("failed to build the database: %w", err)
	}
	if len(failed) > 0 {
		return results, errors.New("sources failed (their previous data was kept): " + fmt.Sprint(failed))
	}
	return results, nil
}
