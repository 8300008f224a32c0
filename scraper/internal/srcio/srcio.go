// Package srcio reads the upstream files of a source, live or from a
// snapshot directory, and the hand-written CSV fact tables that sit
// beside the snapshots.
package srcio

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/scraper"
)

// Read returns the live URL's body (live mode) or the snapshot file rel
// under in.Snapshots.
func Read(ctx context.Context, in scraper.Input, url, rel string) ([]byte, error) {
	if in.Snapshots != "" {
		b, err := os.ReadFile(filepath.Join(in.Snapshots, rel))
		if err != nil {
			return nil, fmt.Errorf("failed to read snapshot %s: %w", rel, err)
		}
		return b, nil
	}
	if in.Fetcher == nil {
		return nil, errors.New("no fetcher and no snapshot directory given")
	}
	b, err := in.Fetcher.Get(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch %s: %w", url, err)
	}
	return b, nil
}

// Exists reports whether the snapshot file rel is present.
func Exists(in scraper.Input, rel string) bool {
	if in.Snapshots == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(in.Snapshots, rel))
	return err == nil
}

// CSVRow is one data row of a CSV file by column name, with its 1-based
// line number.
type CSVRow struct {
	Line   int
	Fields map[string]string
}

// CSV reads a CSV file with a header line; every column in want must be
// present. Cells are trimmed.
func CSV(b []byte, want ...string) ([]CSVRow, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("failed to read the CSV header: %w", err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	for _, w := range want {
		found := false
		for _, h := range header {
			found = found || h == w
		}
		if !found {
			return nil, fmt.Errorf("CSV header lacks column %q (has %s)", w, strings.Join(header, ","))
		}
	}
	var out []CSVRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("failed to read CSV: %w", err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return nil, fmt.Errorf("CSV line %d: %d cells, header has %d", line, len(rec), len(header))
		}
		m := make(map[string]string, len(header))
		for i, h := range header {
			m[h] = strings.TrimSpace(rec[i])
		}
		out = append(out, CSVRow{Line: line, Fields: m})
	}
	return out, nil
}
