// Package cudaarch is the source of what each CUDA toolkit minor can
// compile for: lowest and highest SM, SMs added, deprecated and dropped.
package cudaarch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "cudaarch"

// PageURL is NVIDIA's architecture matrix (first/last toolkit per CC).
const PageURL = "https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html"

// CSVFile is the curated fact table in the snapshot directory.
const CSVFile = "cuda_arch_support.csv"

// TableMatrix is the record table of live rows (one per CC).
const TableMatrix = "arch_matrix"

var csvColumns = []string{"cuda_version", "min_sm", "max_sm", "newly_supported", "deprecated", "dropped", "source", "note"}

// Source implements scraper.Source.
type Source struct{ PageURL string }

// New returns the source reading the live page.
func New() *Source { return &Source{PageURL: PageURL} }

func (s *Source) Name() string { return Name }
func (s *Source) URL() string  { return PageURL }

// Scrape reads the curated CSV (snapshot mode) or the live page.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return nvsrc.Page{CSV: CSVFile, Columns: csvColumns, Key: func(r map[string]string) string { return r["cuda_version"] }, URLs: []string{nvsrc.PageOr(s.PageURL, PageURL)}, What: "the architecture matrix", Parse: ParsePage}.Scrape(ctx, in)
}

// ParsePage reads "Architecture | CUDA Capability | First CUDA Toolkit
// Support | Last CUDA Toolkit Support | Last Driver Support". Cells hold
// several aligned values ("8.0 8.6" | "CUDA 11.0"); they are paired by
// position and, when the counts differ, the last value repeats.
func ParsePage(page []byte, url string) ([]scraper.Record, error) {
	doc, err := nvsrc.Parse(page)
	if err != nil {
		return nil, err
	}
	var recs []scraper.Record
	found := false
	var perr error
	doc.Find("table").EachWithBreak(func(_ int, t *goquery.Selection) bool {
		g, err := nvsrc.ReadGrid(t)
		if err != nil {
			return true
		}
		cArch, cCC, cFirst, cLast := g.Col("Architecture"), g.Col("Capability"), g.Col("First CUDA"), g.Col("Last CUDA")
		if cCC < 0 || cFirst < 0 {
			return true
		}
		found = true
		for _, row := range g.Rows {
			ccs := strings.Fields(nvsrc.At(row, cCC).Text)
			firsts := toolkits(nvsrc.At(row, cFirst).Text)
			lasts := toolkits(nvsrc.At(row, cLast).Text)
			for i, cc := range ccs {
				f := map[string]string{"architecture": nvsrc.At(row, cArch).Text, "cc": cc, "first": pick(firsts, i), "last": pick(lasts, i)}
				recs = append(recs, scraper.Record{Table: TableMatrix, Key: cc, URL: url, Ref: "architecture matrix: " + f["architecture"], Fields: f})
			}
		}
		return false
	})
	if perr != nil {
		return nil, perr
	}
	if !found {
		return nil, errors.New("no table with CUDA Capability and First CUDA Toolkit Support columns")
	}
	if len(recs) == 0 {
		return nil, errors.New("the architecture matrix has no rows")
	}
	return recs, nil
}

var toolkitRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`CUDA\s+(\d+\.(?:\d+|x))|Ongoing`) })

func toolkits(s string) []string {
	var out []string
	for _, m := range toolkitRe().FindAllStringSubmatch(s, -1) {
		if m[1] == "" {
			out = append(out, "ongoing")
		} else {
			out = append(out, m[1])
		}
	}
	return out
}

func pick(v []string, i int) string {
	if len(v) == 0 {
		return ""
	}
	if i < len(v) {
		return v[i]
	}
	return v[len(v)-1]
}

var smListRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sm_\d+[a-z]?$`) })

// Normalize turns rows into CUDAArch facts.
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	added := map[string][]string{}
	addedRec := map[string]scraper.Record{}
	seen := map[string]bool{}
	for _, r := range recs {
		switch r.Table {
		case nvsrc.TableCSV:
			v := r.Fields["cuda_version"]
			subject := "cuda_arch " + v
			if nvsrc.IsDisagreement(r.Fields["note"]) {
				f.Conflicts = append(f.Conflicts, nvsrc.Disagreement(Name, subject, "added", r.Fields["newly_supported"], r.Fields["note"], r))
			}
			if !regexp.MustCompile(`^\d+\.\d+$`).MatchString(v) {
				f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, "not a toolkit minor version", r))
				continue
			}
			if seen[v] {
				f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, "a second row for the same toolkit", r))
				continue
			}
			min, max := r.Fields["min_sm"], r.Fields["max_sm"]
			if (min != "" && !smListRe().MatchString(min)) || (max != "" && !smListRe().MatchString(max)) {
				f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, fmt.Sprintf("unreadable SM bounds %q..%q", min, max), r))
				continue
			}
			seen[v] = true
			f.CUDAArches = append(f.CUDAArches, db.CUDAArch{CUDA: v, SMMin: min, SMMax: max, Added: r.Fields["newly_supported"],
				Deprecated: r.Fields["deprecated"], Dropped: r.Fields["dropped"], Provenance: nvsrc.Prov(Name, r)})
		case TableMatrix:
			cc, first := r.Fields["cc"], r.Fields["first"]
			if !regexp.MustCompile(`^\d+\.\d$`).MatchString(cc) || !regexp.MustCompile(`^\d+\.\d+$`).MatchString(first) {
				f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, "cuda_arch cc "+cc, fmt.Sprintf("unreadable capability or first toolkit (%q, %q)", cc, first), r))
				continue
			}
			added[first] = append(added[first], "sm_"+strings.Replace(cc, ".", "", 1))
			if _, ok := addedRec[first]; !ok {
				addedRec[first] = r
			}
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	// The live matrix only says where each SM starts: one row per toolkit
	// that added SMs, no bounds.
	var firsts []string
	for k := range added {
		firsts = append(firsts, k)
	}
	sort.Slice(firsts, func(i, j int) bool { return version.DottedKey(firsts[i]) < version.DottedKey(firsts[j]) })
	for _, v := range firsts {
		if seen[v] {
			continue
		}
		f.CUDAArches = append(f.CUDAArches, db.CUDAArch{CUDA: v, Added: strings.Join(added[v], ";"), Provenance: nvsrc.Prov(Name, addedRec[v])})
	}
	return f, nil
}
