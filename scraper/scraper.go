// Package scraper owns the path from upstream pages to cudb's database:
// the Source interface, the ordered list of sources (order = precedence),
// the source-shaped snapshot files under data/sources, and the build that
// turns them into data/cudb.db.
package scraper

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/cudb/cudb/db"
)

// Record is one source-shaped row, exactly as the upstream page gives it
// (after trimming), before any interpretation. Table names the part of the
// page (or file) it came from; Key identifies the row within Table and is
// what refresh diffs use to tell "changed" from "added/removed".
type Record struct {
	Table  string            `json:"table"`
	Key    string            `json:"key"`
	Ref    string            `json:"ref,omitempty"` // where in the upstream document: file@commit, heading, line
	URL    string            `json:"url,omitempty"` // page the row came from, when it differs from the source's URL
	Fields map[string]string `json:"fields"`
}

// Fetcher gets a URL for live scrapes. scraper/fetch implements it; tests
// point it at an httptest server.
type Fetcher interface {
	Get(ctx context.Context, url string) ([]byte, error)
}

// Input is what a scrape reads from: exactly one of Fetcher (live) or
// Snapshots (a directory laid out like shared/sources) is set.
type Input struct {
	Fetcher   Fetcher
	Snapshots string
}

// Source is one upstream fact family.
type Source interface {
	// Name is the stable identifier: data/sources/<Name>.json.
	Name() string
	// URL is the human-facing upstream page cited for the source.
	URL() string
	// Scrape reads upstream (live or snapshot) and returns its rows. A
	// scrape that finds no rows, or not the structure it expects, fails.
	Scrape(ctx context.Context, in Input) ([]Record, error)
	// Normalize turns rows into facts with provenance. Pure: no I/O.
	Normalize(recs []Record) (*db.Facts, error)
}

// Snapshot is the content of data/sources/<name>.json.
type Snapshot struct {
	Source  string   `json:"source"`
	URL     string   `json:"url"`
	Records []Record `json:"records"`
}

// SortRecords orders records by (Table, Key) so files are deterministic.
func SortRecords(recs []Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Table != recs[j].Table {
			return recs[i].Table < recs[j].Table
		}
		return recs[i].Key < recs[j].Key
	})
}

// CheckUnique fails when two records share (Table, Key).
func CheckUnique(recs []Record) error {
	seen := map[[2]string]bool{}
	for _, r := range recs {
		k := [2]string{r.Table, r.Key}
		if seen[k] {
			return fmt.Errorf("duplicate record %s/%s", r.Table, r.Key)
		}
		seen[k] = true
	}
	return nil
}

// Encode renders a snapshot file: sorted records, indented, trailing
// newline, no wall-clock values.
func (s *Snapshot) Encode() ([]byte, error) {
	SortRecords(s.Records)
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SHA256 is the content hash of the snapshot's records.
func (s *Snapshot) SHA256() string {
	b, _ := s.Encode()
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
