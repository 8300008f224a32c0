// Package nvtest holds test helpers shared by the NVIDIA sources.
package nvtest

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Counts tallies what Normalize made of records.
type Counts struct {
	Rows, Facts, Refused, Disagreements int
}

// CheckEveryRowLands fails unless every record ends up as at least one
// fact carrying its citation, or as a refused entry naming it. Records
// are normalized one at a time so a row cannot hide behind another.
func CheckEveryRowLands(t *testing.T, src scraper.Source, recs []scraper.Record) Counts {
	t.Helper()
	c := Counts{Rows: len(recs)}
	for _, r := range recs {
		f, err := src.Normalize([]scraper.Record{r})
		if err != nil {
			t.Errorf("%s/%s: %v", r.Table, r.Key, err)
			continue
		}
		facts := cited(f, r)
		refused := 0
		for _, cf := range f.Conflicts {
			switch {
			case cf.Field == "refused" && cf.Other == r.Table+"/"+r.Key:
				refused++
			case cf.Field != "refused":
				c.Disagreements++
			}
		}
		if facts == 0 && refused == 0 {
			t.Errorf("%s/%s: row produced no fact with its citation and no refused entry", r.Table, r.Key)
		}
		if facts > 0 {
			c.Facts++
		} else {
			c.Refused++
		}
	}
	if c.Facts+c.Refused != c.Rows {
		t.Errorf("rows %d != rows with facts %d + refused %d", c.Rows, c.Facts, c.Refused)
	}
	return c
}

// cited counts facts of every family whose provenance is r's.
func cited(f *db.Facts, r scraper.Record) int {
	n := 0
	v := reflect.ValueOf(f).Elem()
	for i := 0; i < v.NumField(); i++ {
		s := v.Field(i)
		if s.Kind() != reflect.Slice {
			continue
		}
		for j := 0; j < s.Len(); j++ {
			p := s.Index(j).FieldByName("Provenance")
			if !p.IsValid() {
				continue
			}
			pv := p.Interface().(db.Provenance)
			if pv.Source != "" && pv.Ref == r.Ref && pv.URL == r.URL {
				n++
			}
		}
	}
	return n
}

// Files is a scraper.Fetcher serving local files by URL.
type Files map[string]string

// Get returns the file registered for url.
func (f Files) Get(_ context.Context, url string) ([]byte, error) {
	p, ok := f[url]
	if !ok {
		return nil, fmt.Errorf("unexpected fetch of %s", url)
	}
	return os.ReadFile(p)
}
