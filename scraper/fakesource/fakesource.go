// Package fakesource is a scraper.Source for tests of the refresh
// framework (and the kill test, which runs cudb with it added to the list).
// It reads a small pipe-separated page, live from URL or from
// <snapshots>/fake/<name>.txt, through one parser:
//
//	== table releases ==
//	key | version | released_on
//	2.1.0 | 2.1.0 | 2023-10-04
//
// A row with the wrong number of cells becomes a record (key "line N",
// field "raw") that Normalize refuses, as real sources refuse rows they
// cannot use; a missing table or header is an error. Normalize makes one
// release per good row (component = the source's name plus "-" and the
// table).
package fakesource

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Host is the made-up upstream host of every fake page.
const Host = "https://fake.cudb.invalid"

// Source is one fake upstream page.
type Source struct {
	ID string
	// Tables the page must hold (default: "releases").
	Tables []string
	// CanaryFacts are the source's canaries (scraper.Canaried).
	CanaryFacts []scraper.Canary
}

// New returns a fake source named id.
func New(id string) *Source { return &Source{ID: id} }

// Name implements scraper.Source.
func (s *Source) Name() string { return s.ID }

// URL implements scraper.Source.
func (s *Source) URL() string { return Host + "/" + s.ID + ".txt" }

// Canaries implements scraper.Canaried.
func (s *Source) Canaries() []scraper.Canary { return s.CanaryFacts }

// SnapshotFile is where a snapshot directory holds the page of name.
func SnapshotFile(dir, name string) string { return filepath.Join(dir, "fake", name+".txt") }

// Scrape implements scraper.Source.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	var page []byte
	var err error
	if in.Snapshots != "" {
		page, err = os.ReadFile(SnapshotFile(in.Snapshots, s.ID))
	} else {
		page, err = in.Fetcher.Get(ctx, s.URL())
	}
	if err != nil {
		return nil, err
	}
	recs, err := Parse(string(page), s.tables())
	if err != nil {
		return nil, fmt.Errorf("failed to parse %s: %w", s.URL(), err)
	}
	return recs, nil
}

func (s *Source) tables() []string {
	if len(s.Tables) == 0 {
		return []string{"releases"}
	}
	return s.Tables
}

// Parse reads the tables of a page.
func Parse(page string, tables []string) ([]scraper.Record, error) {
	var recs []scraper.Record
	lines := strings.Split(page, "\n")
	for _, table := range tables {
		start := -1
		for i, l := range lines {
			if strings.TrimSpace(l) == "== table "+table+" ==" {
				start = i
			}
		}
		if start < 0 {
			return nil, fmt.Errorf("table %q not found", table)
		}
		if start+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[start+1]), "key |") {
			return nil, fmt.Errorf("table %q: header not found", table)
		}
		header := cells(lines[start+1])
		for n, l := range lines[start+2:] {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "==") {
				break
			}
			row := cells(l)
			if len(row) != len(header) {
				line := fmt.Sprintf("line %d", start+3+n)
				recs = append(recs, scraper.Record{Table: table, Key: line, Ref: line, Fields: map[string]string{"raw": l}})
				continue
			}
			r := scraper.Record{Table: table, Key: row[0], Ref: fmt.Sprintf("line %d", start+3+n), Fields: map[string]string{}}
			for i, h := range header[1:] {
				r.Fields[h] = row[i+1]
			}
			recs = append(recs, r)
		}
	}
	return recs, nil
}

func cells(l string) []string {
	parts := strings.Split(l, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// Normalize implements scraper.Source.
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	for _, r := range recs {
		if raw, ok := r.Fields["raw"]; ok {
			f.Conflicts = append(f.Conflicts, db.Conflict{
				Subject: s.ID + " " + r.Table + " " + r.Key, Field: "refused", Other: raw, OtherSource: s.ID,
				Note: "wrong number of cells",
			})
			continue
		}
		f.Releases = append(f.Releases, db.Release{
			Component: s.ID + "-" + r.Table, Version: r.Key, ReleasedOn: r.Fields["released_on"],
			Provenance: db.Provenance{Source: s.ID, URL: s.URL(), Ref: r.Ref},
		})
	}
	return f, nil
}

// Page renders rows (key, version, released_on) as a page with one
// "releases" table.
func Page(rows ...[3]string) string {
	var b strings.Builder
	b.WriteString("fake upstream page\n\n== table releases ==\nkey | version | released_on\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s | %s | %s\n", r[0], r[1], r[2])
	}
	return b.String()
}
