// Package nvsrc holds what the NVIDIA sources (cudadriver, cudnn, gpus,
// cudaarch, driverbranch) share: reading the curated fact CSVs of
// shared/sources/nvidia, cleaning driver cells, and turning the Sphinx and
// DITA tables of docs.nvidia.com into grids of cells.
package nvsrc

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Dir is the folder of the NVIDIA family inside a snapshot directory.
const Dir = "nvidia"

// TableCSV is the record table of rows imported from a fact CSV.
const TableCSV = "csv"

// CSVPath is where file lives inside a snapshot directory.
func CSVPath(snapshots, file string) string {
	return filepath.Join(snapshots, Dir, file)
}

// ReadCSV reads a fact CSV into records, one per data row, in file order.
// key names a row; rows that share a key get "#2", "#3"... so keys stay
// unique and stable as long as the file's order is. Every column must be
// present in the header (want) so a renamed column fails loudly.
func ReadCSV(path string, want []string, key func(row map[string]string) string) ([]scraper.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", filepath.Base(path), err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s has no data rows", filepath.Base(path))
	}
	header := rows[0]
	idx := map[string]int{}
	for i, h := range header {
		idx[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, w := range want {
		if _, ok := idx[w]; !ok {
			return nil, fmt.Errorf("%s: missing column %q (header %v)", filepath.Base(path), w, header)
		}
	}
	seen := map[string]int{}
	var recs []scraper.Record
	for n, row := range rows[1:] {
		fields := map[string]string{}
		for name, i := range idx {
			if i < len(row) {
				fields[name] = strings.TrimSpace(row[i])
			}
		}
		k := key(fields)
		if k == "" {
			k = fmt.Sprintf("row %d", n+2)
		}
		seen[k]++
		if seen[k] > 1 {
			k = fmt.Sprintf("%s#%d", k, seen[k])
		}
		recs = append(recs, scraper.Record{
			Table:  TableCSV,
			Key:    k,
			Ref:    fields["source"],
			URL:    FirstURL(fields["source"]),
			Fields: fields,
		})
	}
	return recs, nil
}

var urlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s,;()'"]+`) })

// FirstURL returns the first http(s) address in s, or "".
func FirstURL(s string) string {
	return strings.TrimRight(urlRe().FindString(s), ".")
}

// Prov is the provenance of a fact read from rec.
func Prov(source string, rec scraper.Record) db.Provenance {
	return db.Provenance{Source: source, URL: rec.URL, Ref: rec.Ref}
}

// Refused records a row that could not be used, so `cudb db check` lists
// it instead of the row vanishing.
func Refused(source, subject, reason string, rec scraper.Record) db.Conflict {
	return db.Conflict{
		Subject:     subject,
		Field:       "refused",
		Kept:        "",
		KeptSource:  source,
		Other:       rec.Table + "/" + rec.Key,
		OtherSource: citeRec(source, rec),
		Note:        reason,
	}
}

// Disagreement records a disagreement the source itself notes (the
// curated CSVs keep them in their note column).
func Disagreement(source, subject, field, kept, note string, rec scraper.Record) db.Conflict {
	return db.Conflict{
		Subject:     subject,
		Field:       field,
		Kept:        kept,
		KeptSource:  citeRec(source, rec),
		Other:       "see note",
		OtherSource: "noted by " + source,
		Note:        note,
	}
}

func citeRec(source string, rec scraper.Record) string {
	s := source + ": " + rec.Table + "/" + rec.Key
	if rec.URL != "" {
		s += " (" + rec.URL + ")"
	}
	return s
}

// disagreementMarkers are the phrases the curators used in note columns
// when two sources disagree.
var disagreementMarkers = []string{"DISAGREEMENT", "see SOURCES.md", "the CUDA table gives"}

// IsDisagreement reports whether a note records a disagreement between
// sources.
func IsDisagreement(note string) bool {
	for _, m := range disagreementMarkers {
		if strings.Contains(note, m) {
			return true
		}
	}
	return false
}

// ErrNA is returned by Driver for an explicit "N/A" cell.
var ErrNA = errors.New("N/A")

var footnoteRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*(\[\d+\]|\*+)$`) })

// Driver cleans a driver cell: ">=595.71.05", ">= 450.51.06", "≥ 580",
// "450.36.06**" and NBSPs all give the bare version. "N/A" gives ErrNA;
// an empty cell gives "" and no error.
func Driver(cell string) (string, error) {
	s := strings.ReplaceAll(cell, "\u00a0", " ")
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if strings.EqualFold(s, "N/A") || strings.EqualFold(s, "NA") {
		return "", ErrNA
	}
	s = footnoteRe().ReplaceAllString(s, "")
	s = strings.TrimPrefix(s, ">=")
	s = strings.TrimPrefix(s, "≥")
	s = strings.TrimSpace(s)
	if !IsDotted(s) {
		return "", fmt.Errorf("driver cell %q is not a version", cell)
	}
	return s, nil
}

// IsDotted reports whether s is 1-4 dot-separated decimal numbers.
func IsDotted(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 6 {
			return false
		}
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
		if p[0] == '+' || p[0] == '-' {
			return false
		}
	}
	return true
}

// Minor returns "12.4" for "12.4.1" (or s when it has no third part).
func Minor(v string) string {
	parts := strings.Split(v, ".")
	if len(parts) > 2 {
		return parts[0] + "." + parts[1]
	}
	return v
}

// Major returns "12" for "12.4.1".
func Major(v string) string {
	m, _, _ := strings.Cut(v, ".")
	return m
}

// Page is how an NVIDIA source reads upstream: its curated CSV in
// snapshot mode, else its live pages (several are read in order, rows
// kept the first time their key is seen).
type Page struct {
	CSV     string                             // file name under shared/sources/nvidia
	Columns []string                           // columns the CSV must have
	Key     func(row map[string]string) string // record key of a CSV row
	URLs    []string                           // live pages
	What    string                             // for errors: "the cuDNN support matrix"
	Parse   func(page []byte, url string) ([]scraper.Record, error)
}

// Scrape reads p from in.
func (p Page) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Snapshots != "" {
		return ReadCSV(CSVPath(in.Snapshots, p.CSV), p.Columns, p.Key)
	}
	if in.Fetcher == nil {
		return nil, errors.New("no fetcher and no snapshot directory")
	}
	var recs []scraper.Record
	seen := map[string]bool{}
	for _, u := range p.URLs {
		b, err := in.Fetcher.Get(ctx, u)
		if err != nil {
			return nil, err
		}
		rs, err := p.Parse(b, u)
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s from %s: %w", p.What, u, err)
		}
		for _, r := range rs {
			if !seen[r.Table+"\x00"+r.Key] {
				seen[r.Table+"\x00"+r.Key] = true
				recs = append(recs, r)
			}
		}
	}
	return recs, nil
}

// PageOr is u, or def when u is empty (a zero Source reads the live page).
func PageOr(u, def string) string {
	if u == "" {
		return def
	}
	return u
}
