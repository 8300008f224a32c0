// Package driverbranch is the source of driver branch facts: branch type,
// end of life, and the newest CUDA a branch runs without a forward
// compatibility package.
package driverbranch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "driverbranch"

// PageURL is the data-center "Supported Drivers and CUDA Toolkit Versions" page.
const PageURL = "https://docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html"

// CSVFile is the curated fact table in the snapshot directory.
const CSVFile = "driver_branches.csv"

// TableBranches is the record table of live rows (one per branch column).
const TableBranches = "cuda_and_drivers"

var csvColumns = []string{"branch", "branch_type", "end_of_life", "max_cuda_datacenter_doc", "max_cuda_from_toolkit_table",
	"nvidia_smi_cuda_observed", "source", "note"}

// Source implements scraper.Source.
type Source struct{ PageURL string }

// New returns the source reading the live page.
func New() *Source { return &Source{PageURL: PageURL} }

func (s *Source) Name() string { return Name }
func (s *Source) URL() string  { return PageURL }

// Scrape reads the curated CSV (snapshot mode) or the live page.
// In snapshot mode the captures (captures/CAPTURES.md) follow the CSV's
// rows; a live scrape reads NVIDIA's page alone.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	recs, err := nvsrc.Page{CSV: CSVFile, Columns: csvColumns, Key: func(r map[string]string) string { return r["branch"] }, URLs: []string{nvsrc.PageOr(s.PageURL, PageURL)}, What: "the CUDA and Drivers table", Parse: ParsePage}.Scrape(ctx, in)
	if err != nil || in.Snapshots == "" {
		return recs, err
	}
	caps, err := scrapeCaptures()
	if err != nil {
		return nil, err
	}
	return append(recs, caps...), nil
}

var branchRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^R(\d{3})$`) })

// ParsePage reads the transposed "CUDA and Drivers" table: branches are
// columns (R535 | R580 | ...), attributes are rows.
func ParsePage(page []byte, url string) ([]scraper.Record, error) {
	doc, err := nvsrc.Parse(page)
	if err != nil {
		return nil, err
	}
	t := nvsrc.FindTable(doc, "CUDA and Drivers")
	if t == nil {
		return nil, errors.New(`no table captioned "CUDA and Drivers"`)
	}
	g, err := nvsrc.ReadGrid(t)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{"designation": "branch_type", "end of life": "end_of_life", "maximum cuda": "max_cuda_datacenter_doc"}
	// A header of branches over no attribute rows would give hollow
	// branches that replace good ones: the table lost its body.
	known := 0
	for _, row := range g.Rows {
		name := strings.ToLower(nvsrc.At(row, 0).Text)
		for k := range attrs {
			if strings.Contains(name, k) {
				known++
				break
			}
		}
	}
	if known == 0 {
		return nil, errors.New("the CUDA and Drivers table has no designation, end-of-life or maximum-CUDA row")
	}
	var recs []scraper.Record
	for col, h := range g.Header {
		b := strings.TrimSpace(strings.Fields(h + " x")[0])
		if !branchRe().MatchString(b) {
			continue
		}
		f := map[string]string{"branch": b}
		for _, row := range g.Rows {
			name := strings.ToLower(nvsrc.At(row, 0).Text)
			for k, field := range attrs {
				if strings.Contains(name, k) {
					f[field] = nvsrc.At(row, col).Text
				}
			}
		}
		recs = append(recs, scraper.Record{Table: TableBranches, Key: b, URL: url, Ref: "table: CUDA and Drivers", Fields: f})
	}
	if len(recs) == 0 {
		return nil, errors.New("the CUDA and Drivers table names no branch column")
	}
	return recs, nil
}

var (
	cudaRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+$`) })
	majorRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`CUDA\s+(\d+)(?:\.\d+\+?)?\b`) })
)

// Normalize turns rows into DriverBranch facts.
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Table == TableToolkitBranch || r.Table == TableBranchRelease || r.Table == TableBranchText {
			continue // folded in below, after every table row
		}
		if r.Table != nvsrc.TableCSV && r.Table != TableBranches {
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
		fl := r.Fields
		m := branchRe().FindStringSubmatch(strings.ToUpper(strings.TrimSpace(fl["branch"])))
		subject := "driver_branch " + fl["branch"]
		if nvsrc.IsDisagreement(fl["note"]) {
			f.Conflicts = append(f.Conflicts, nvsrc.Disagreement(Name, subject, "end_of_life", fl["end_of_life"], fl["note"], r))
		}
		if m == nil {
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, "not a driver branch (want R followed by three digits)", r))
			continue
		}
		if seen[m[1]] {
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, "a second row for the same branch", r))
			continue
		}
		seen[m[1]] = true
		b := db.DriverBranch{Branch: m[1], BranchType: fl["branch_type"], Provenance: nvsrc.Prov(Name, r)}
		// Two captures may disagree on the end of life ("August 2028 /
		// June 2028"): keep the first, record the other.
		eol, other, two := strings.Cut(fl["end_of_life"], " / ")
		b.EndOfLife = strings.TrimSpace(eol)
		if two {
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: subject, Field: "end_of_life", Kept: b.EndOfLife, KeptSource: Name,
				Other: strings.TrimSpace(other), OtherSource: Name, Note: "two captures of the data-center page disagree"})
		}
		// The newest toolkit whose minimum driver falls in the branch is
		// the precise bound; nvidia-smi's banner (SECONDARY) is the
		// fallback; the live page only names a major.
		tk, smi := fl["max_cuda_from_toolkit_table"], fl["nvidia_smi_cuda_observed"]
		switch {
		case cudaRe().MatchString(tk):
			b.MaxCUDA = tk
			if cudaRe().MatchString(smi) && smi != tk {
				f.Conflicts = append(f.Conflicts, db.Conflict{Subject: subject, Field: "max_cuda", Kept: tk, KeptSource: Name + " (toolkit table)",
					Other: smi, OtherSource: Name + " (nvidia-smi banners)", Note: "nvidia-smi reports a different CUDA version for this branch"})
			}
		case cudaRe().MatchString(smi):
			b.MaxCUDA = smi
		default:
			if mm := majorRe().FindStringSubmatch(fl["max_cuda_datacenter_doc"]); mm != nil && r.Table == TableBranches {
				b.MaxCUDA = mm[1]
			}
		}
		f.DriverBranches = append(f.DriverBranches, b)
	}
	captured(f, recs)
	return f, nil
}
