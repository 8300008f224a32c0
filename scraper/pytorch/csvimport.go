package pytorch

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// readCSV turns a derived fact table into records: one per row, keyed by
// the keyCols values (a counter is appended when a key repeats, so
// several rows of evidence for one fact all survive). refCols name the
// columns that cite where the row's facts came from.
func readCSV(b []byte, table, file string, keyCols, refCols []string) ([]scraper.Record, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", file, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s has no data rows", file)
	}
	header := rows[0]
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, k := range append(append([]string{}, keyCols...), refCols...) {
		if _, ok := col[k]; !ok {
			return nil, fmt.Errorf("%s: missing column %q (columns: %s)", file, k, strings.Join(header, ","))
		}
	}
	var recs []scraper.Record
	seen := map[string]int{}
	for i, row := range rows[1:] {
		if len(row) != len(header) {
			return nil, fmt.Errorf("%s: row %d has %d fields, header has %d", file, i+2, len(row), len(header))
		}
		fields := map[string]string{}
		for j, h := range header {
			fields[strings.TrimSpace(h)] = strings.TrimSpace(row[j])
		}
		var kp, rp []string
		for _, k := range keyCols {
			kp = append(kp, fields[k])
		}
		for _, k := range refCols {
			if fields[k] != "" {
				rp = append(rp, fields[k])
			}
		}
		key := strings.Join(kp, "|")
		seen[key]++
		if seen[key] > 1 {
			key += fmt.Sprintf("|%d", seen[key])
		}
		ref := fmt.Sprintf("%s row %d", file, i+2)
		if len(rp) > 0 {
			ref += "; " + strings.Join(rp, " ")
		}
		recs = append(recs, scraper.Record{Table: table, Key: key, Ref: ref, Fields: fields})
	}
	return recs, nil
}

// expandVersions maps a version selector of the derived tables ("2.1.0",
// "2.2", "2.5.x", "2.12/2.13", "2.7.0.dev (main)", "main snapshot (~2.10
// dev)") to the released versions in releases. Dev snapshots map to the
// releases of their minor: they are the nearest evidence for them, and the
// conflicts they raise against released metadata are worth listing.
func expandVersions(sel string, releases []string) []string {
	s := sel
	if i := strings.Index(s, "~"); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.Index(s, "("); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ")"))
	s = strings.TrimSuffix(s, " dev")
	var out []string
	for _, tok := range strings.Split(s, "/") {
		tok = strings.TrimSpace(tok)
		tok = strings.TrimSuffix(tok, ".dev")
		tok = strings.TrimSuffix(tok, ".x")
		exact := reRelease().MatchString(tok) && !strings.Contains(sel, "dev")
		if !exact {
			tok = version.MinorText(tok)
		}
		for _, v := range releases {
			if (exact && v == tok) || (!exact && version.MinorText(v) == tok) {
				out = append(out, v)
			}
		}
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pythonRange returns the lowest and highest CPython of a ";" list,
// skipping free-threaded ("3.13t") entries.
func pythonRange(list string) (string, string) {
	var lo, hi string
	for _, p := range splitList(list) {
		if strings.HasSuffix(p, "t") || !reDotted().MatchString(p) {
			continue
		}
		if lo == "" || cmpDotted(p, lo) < 0 {
			lo = p
		}
		if hi == "" || cmpDotted(p, hi) > 0 {
			hi = p
		}
	}
	return lo, hi
}
