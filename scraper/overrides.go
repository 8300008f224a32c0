package scraper

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"go.yaml.in/yaml/v3"
)

// Override is a curated correction: data, with a citation, never a special
// case in code. Table is a db.Facts JSON field ("builds", "requirements",
// "cudnn", ...); Match selects rows by JSON field (dotted for nested:
// "build.version"); Set replaces fields of every matched row.
type Override struct {
	Table    string            `yaml:"table"`
	Match    map[string]string `yaml:"match"`
	Set      map[string]string `yaml:"set"`
	Citation string            `yaml:"citation"`
	Why      string            `yaml:"why"`
}

// Overrides is data/overrides.yaml.
type Overrides struct {
	Overrides []Override `yaml:"overrides"`
}

// LoadOverrides reads path; a missing file means no overrides.
func LoadOverrides(path string) (*Overrides, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Overrides{}, nil
	}
	if err != nil {
		return nil, err
	}
	var o Overrides
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil && err.Error() != "EOF" {
		return nil, fmt.Errorf("failed to parse %s: %w", path, err)
	}
	for i, ov := range o.Overrides {
		if ov.Table == "" || len(ov.Match) == 0 || len(ov.Set) == 0 || ov.Citation == "" {
			return nil, fmt.Errorf("%s: override %d needs table, match, set and citation", path, i+1)
		}
	}
	return &o, nil
}

// Apply rewrites matched rows of f in place and records each change as a
// conflict whose note carries the citation. An override that matches no
// row is an error: it has gone stale and must be reviewed.
func (o *Overrides) Apply(f *db.Facts) error {
	if len(o.Overrides) == 0 {
		return nil
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	var tables map[string][]map[string]any
	if err := json.Unmarshal(raw, &tables); err != nil {
		return err
	}
	var conflicts []db.Conflict
	for i, ov := range o.Overrides {
		rows, ok := tables[ov.Table]
		if !ok {
			return fmt.Errorf("override %d: table %q has no rows (tables: %s)", i+1, ov.Table, strings.Join(keys(tables), ", "))
		}
		hits := 0
		for _, row := range rows {
			if !matches(row, ov.Match) {
				continue
			}
			hits++
			for k, v := range ov.Set {
				old := fmt.Sprint(lookup(row, k))
				if lookup(row, k) == nil {
					old = ""
				}
				row[k] = v
				conflicts = append(conflicts, db.Conflict{
					Subject: ov.Table + " " + describe(ov.Match), Field: k,
					Kept: v, KeptSource: "overrides.yaml (" + ov.Citation + ")",
					Other: old, OtherSource: fmt.Sprint(lookup(row, "source")),
					Note: ov.Why,
				})
			}
		}
		if hits == 0 {
			return fmt.Errorf("override %d (%s %s) matches no row: review data/overrides.yaml", i+1, ov.Table, describe(ov.Match))
		}
	}
	raw, err = json.Marshal(tables)
	if err != nil {
		return err
	}
	kept := f.Conflicts
	*f = db.Facts{}
	if err := json.Unmarshal(raw, f); err != nil {
		return err
	}
	f.Conflicts = append(kept, conflicts...)
	return nil
}

func lookup(row map[string]any, path string) any {
	var cur any = row
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func matches(row map[string]any, match map[string]string) bool {
	for k, want := range match {
		got := lookup(row, k)
		if got == nil || fmt.Sprint(got) != want {
			return false
		}
	}
	return true
}

func describe(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range keys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
