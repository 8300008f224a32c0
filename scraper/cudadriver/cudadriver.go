// Package cudadriver is the source of CUDA toolkit → minimum driver facts:
// Table 3 ("CUDA Toolkit and Corresponding Driver Versions") and Table 2
// (minor-version compatibility floors) of the CUDA toolkit release notes,
// read from the live HTML page, or from snapshots of NVIDIA's text of it
// (ParseText) with the curated CSV filling what the tables do not show.
package cudadriver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "cudadriver"

// PageURL is the live release notes (latest edition; it carries the whole
// history in Table 3).
const PageURL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"

// CSVFile is the curated fact table in the snapshot directory.
const CSVFile = "cuda_driver.csv"

// Record tables.
const (
	TableToolkit     = "toolkit_driver" // live Table 3 rows
	TableMinorCompat = "minor_compat"   // live Table 2 rows
)

// Captions of the two tables, matched as text (numbers and ids move).
const (
	captionToolkit = "CUDA Toolkit and Corresponding Driver Versions"
	captionCompat  = "CUDA Toolkit and Minimum Required Driver Version for CUDA Minor Version Compatibility"
)

var csvColumns = []string{"cuda_version", "label", "table_row_text", "min_linux_driver", "min_windows_driver",
	"minor_compat_min_linux", "minor_compat_min_windows", "release_date", "source", "note"}

// Source implements scraper.Source.
type Source struct {
	// URL overrides PageURL (tests point it at httptest).
	PageURL string
}

// New returns the source reading the live page.
func New() *Source { return &Source{PageURL: PageURL} }

func (s *Source) Name() string { return Name }
func (s *Source) URL() string  { return PageURL }

func (s *Source) page() string {
	if s.PageURL != "" {
		return s.PageURL
	}
	return PageURL
}

// Scrape reads the live page, or from snapshots NVIDIA's release-notes
// text (nvidia/raw/, newest edition first) and then the curated CSV: the
// pages' rows come first and win (see Normalize); the CSV fills the
// toolkits and fields the pages do not show.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	csv := nvsrc.Page{CSV: CSVFile, Columns: csvColumns, Key: func(r map[string]string) string {
		if r["cuda_version"] != "" {
			return r["cuda_version"]
		}
		return r["label"]
	}, URLs: []string{s.page()}, What: "the CUDA driver tables", Parse: ParsePage}
	if in.Snapshots == "" {
		return csv.Scrape(ctx, in)
	}
	recs, err := scrapeText(filepath.Join(in.Snapshots, nvsrc.Dir, "raw"))
	if err != nil {
		return nil, err
	}
	rows, err := csv.Scrape(ctx, in)
	if err != nil {
		return nil, err
	}
	return append(recs, rows...), nil
}

// scrapeText reads every release-notes text snapshot of dir. Keys carry
// the edition ("13.2.2: CUDA 13.1 GA") so two editions' rows stay apart.
func scrapeText(dir string) ([]scraper.Record, error) {
	files, err := rawEditions(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var recs []scraper.Record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rs, err := ParseText(b, "")
		if err != nil {
			return nil, fmt.Errorf("failed to parse the CUDA driver tables from %s: %w", filepath.Base(f), err)
		}
		ed := editionOf(f)
		for i := range rs {
			rs[i].Key = ed + ": " + rs[i].Key
		}
		recs = append(recs, rs...)
	}
	return recs, nil
}

// toolkitRecord is Table 3's row i (of any rendering) as a record. seen
// holds the keys given so far: a label seen before is keyed with its row
// number (#N), so no row is lost.
func toolkitRecord(seen map[string]bool, i int, label, linux, windows, url, ref string) scraper.Record {
	key := label
	if seen[key] {
		key = fmt.Sprintf("%s#%d", label, i+1)
	}
	seen[key] = true
	return scraper.Record{Table: TableToolkit, Key: key, URL: url, Ref: ref,
		Fields: map[string]string{"row_text": label, "linux": linux, "windows": windows}}
}

// ParsePage reads Table 3 (required) and Table 2 (optional: old editions
// folded it into the text) of a release-notes page.
func ParsePage(page []byte, url string) ([]scraper.Record, error) {
	doc, err := nvsrc.Parse(page)
	if err != nil {
		return nil, err
	}
	t3 := nvsrc.FindTable(doc, captionToolkit)
	if t3 == nil {
		return nil, fmt.Errorf("no table captioned %q", captionToolkit)
	}
	g, err := nvsrc.ReadGrid(t3)
	if err != nil {
		return nil, err
	}
	cTK, cLin, cWin := g.Col("CUDA Toolkit"), g.Col("Linux"), g.Col("Windows")
	if cTK < 0 || cLin < 0 || cWin < 0 {
		return nil, fmt.Errorf("table %q: expected toolkit, Linux and Windows columns, header is %q", captionToolkit, g.Header)
	}
	var recs []scraper.Record
	seen := map[string]bool{}
	for i, row := range g.Rows {
		if label := nvsrc.At(row, cTK).Text; label != "" {
			recs = append(recs, toolkitRecord(seen, i, label, nvsrc.At(row, cLin).Text, nvsrc.At(row, cWin).Text, url, "Table: "+captionToolkit))
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("table %q has no rows", captionToolkit)
	}
	if t2 := nvsrc.FindTable(doc, captionCompat); t2 != nil {
		g, err := nvsrc.ReadGrid(t2)
		if err != nil {
			return nil, err
		}
		cTK := g.Col("CTK", "CUDA Toolkit")
		cMin, cMax := g.ColLast("Min"), g.ColLast("Max")
		cLin, cWin := g.Col("Linux"), g.Col("Windows")
		if cMin < 0 && cLin < 0 {
			// Old layout: "CUDA Toolkit | Linux x86_64 Minimum ... | Windows ...".
			cLin, cWin = 1, 2
		}
		for _, row := range g.Rows {
			ctk := nvsrc.At(row, cTK).Text
			if ctk == "" {
				continue
			}
			f := map[string]string{"ctk": ctk}
			if cMin >= 0 {
				f["linux"] = nvsrc.At(row, cMin).Text
				f["max"] = nvsrc.At(row, cMax).Text
			} else {
				f["linux"] = nvsrc.At(row, cLin).Text
				f["windows"] = nvsrc.At(row, cWin).Text
			}
			recs = append(recs, scraper.Record{Table: TableMinorCompat, Key: ctk, URL: url, Ref: "Table: " + captionCompat, Fields: f})
		}
	}
	return recs, nil
}

var (
	labelInner   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+\d+\.\d+\s*\((\d+\.\d+\.\d+)`) })
	labelFull    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+(\d+\.\d+\.\d+)\b`) })
	labelGA      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+(\d+)\.(\d+)(?:\s+GA)?$`) })
	labelUpdate  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+(\d+)\.(\d+)\s+Update\s+(\d+)$`) })
	buildNumbers = map[string]bool{"13.4": true} // "the third digit is a build number": GA is X.Y.1
)

// ParseLabel maps a Table 3 label to the full toolkit version: "CUDA 9.2
// (9.2.148 Update 1)" → 9.2.148, "CUDA 11.4.0 GA" → 11.4.0, "CUDA 12.1
// Update 1" → 12.1.1, "CUDA 13.1" → 13.1.0. "Update N" is patch N only
// from CUDA 11 on; older update labels name no patch.
func ParseLabel(text string) (string, bool) {
	text = strings.Join(strings.Fields(strings.ReplaceAll(text, "\u00a0", " ")), " ")
	if m := labelInner().FindStringSubmatch(text); m != nil {
		return m[1], true
	}
	if m := labelFull().FindStringSubmatch(text); m != nil {
		return m[1], true
	}
	bump := func(maj, min string, patch int) string {
		if buildNumbers[maj+"."+min] {
			patch++
		}
		return fmt.Sprintf("%s.%s.%d", maj, min, patch)
	}
	if m := labelGA().FindStringSubmatch(text); m != nil {
		return bump(m[1], m[2], 0), true
	}
	if m := labelUpdate().FindStringSubmatch(text); m != nil {
		if maj, _ := strconv.Atoi(m[1]); maj < 11 {
			return "", false
		}
		p, _ := strconv.Atoi(m[3])
		return bump(m[1], m[2], p), true
	}
	return "", false
}
