// Package gpus is the source of GPU model → compute capability facts
// (developer.nvidia.com/cuda-gpus and its legacy page).
package gpus

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "gpus"

// Live pages: the current table and the legacy one (CC 7.2 and older).
const (
	PageURL   = "https://developer.nvidia.com/cuda-gpus"
	LegacyURL = "https://developer.nvidia.com/cuda-legacy-gpus"
)

// CSVFile is the curated fact table in the snapshot directory.
const CSVFile = "gpu_compute_capability.csv"

// TableGPU is the record table of live rows (one per GPU name).
const TableGPU = "cuda_gpus"

var csvColumns = []string{"gpu_model", "compute_capability", "architecture", "segment", "source", "note"}

// Source implements scraper.Source.
type Source struct{ Pages []string }

// New returns the source reading the live pages.
func New() *Source { return &Source{Pages: []string{PageURL, LegacyURL}} }

func (s *Source) Name() string { return Name }
func (s *Source) URL() string  { return PageURL }

// Scrape reads the curated CSV (snapshot mode) or the live pages.
// In snapshot mode the stated GPUs (captures/statements.md) follow.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	recs, err := nvsrc.Page{CSV: CSVFile, Columns: csvColumns, Key: func(r map[string]string) string { return r["gpu_model"] }, URLs: s.Pages, What: "the GPU table", Parse: ParsePage}.Scrape(ctx, in)
	if err != nil || in.Snapshots == "" {
		return recs, err
	}
	st, err := ParseStatements(statements, StatementsFile)
	if err != nil {
		return nil, err
	}
	return append(recs, st...), nil
}

// segments maps the page's column headers to cudb segments.
var segments = []struct{ header, segment string }{
	{"Data Center", "datacenter"}, {"Jetson", "jetson"}, {"Workstation", "workstation"}, {"Consumer", "workstation"},
	{"GeForce", "geforce"}, {"Quadro", "workstation"}, {"Tesla", "datacenter"},
}

// ParsePage reads the "Compute Capability | Data Center | Workstation/
// Consumer | Jetson" table, where one cell lists several GPUs (split on
// element boundaries, never on spaces).
func ParsePage(page []byte, url string) ([]scraper.Record, error) {
	doc, err := nvsrc.Parse(page)
	if err != nil {
		return nil, err
	}
	var recs []scraper.Record
	seen := map[string]bool{}
	var tables int
	var tableErr error
	doc.Find("table").Each(func(_ int, t *goquery.Selection) {
		g, err := nvsrc.ReadGrid(t)
		if err != nil {
			return
		}
		cc := g.Col("Compute Capability")
		if cc < 0 {
			return
		}
		tables++
		for i, h := range g.Header {
			if i == cc {
				continue
			}
			seg := ""
			for _, s := range segments {
				if strings.Contains(strings.ToLower(h), strings.ToLower(s.header)) {
					seg = s.segment
					break
				}
			}
			for _, row := range g.Rows {
				capab := nvsrc.At(row, cc).Text
				c := nvsrc.At(row, i)
				names := c.Items
				if len(names) == 0 && c.Text != "" {
					names = []string{c.Text}
				}
				for _, n := range names {
					if n == "" || seen[n] {
						continue
					}
					seen[n] = true
					s := seg
					if s == "workstation" && strings.HasPrefix(n, "GeForce") {
						s = "geforce"
					}
					recs = append(recs, scraper.Record{Table: TableGPU, Key: n, URL: url, Ref: "column " + h,
						Fields: map[string]string{"gpu_model": n, "compute_capability": capab, "segment": s}})
				}
			}
		}
	})
	if tableErr != nil {
		return nil, tableErr
	}
	if tables == 0 {
		return nil, errors.New("no table with a Compute Capability column")
	}
	if len(recs) == 0 {
		return nil, errors.New("the GPU table has no rows")
	}
	return recs, nil
}

var ccRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,2}\.\d$`) })

// architectures names the family of each CC major (NVIDIA's architecture
// matrix); 12.x and 10.x are both Blackwell, 8.9 is Ada within major 8.
func architecture(cc string) string {
	if cc == "8.9" {
		return "Ada Lovelace"
	}
	switch nvsrc.Major(cc) {
	case "2":
		return "Fermi"
	case "3":
		return "Kepler"
	case "5":
		return "Maxwell"
	case "6":
		return "Pascal"
	case "7":
		if cc == "7.5" {
			return "Turing"
		}
		return "Volta"
	case "8":
		return "Ampere"
	case "9":
		return "Hopper"
	case "10", "11", "12":
		return "Blackwell"
	}
	return ""
}

// Normalize turns rows into GPU facts with aliases.
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	byName := map[string]bool{}
	for _, r := range recs {
		if r.Table == TableStatedGPU || r.Table == TableStatedAlias {
			continue // folded in below, after every table row
		}
		if r.Table != nvsrc.TableCSV && r.Table != TableGPU {
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
		name := strings.Join(strings.Fields(r.Fields["gpu_model"]), " ")
		cc := strings.TrimSpace(r.Fields["compute_capability"])
		switch {
		case name == "":
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, "gpu "+r.Key, "no GPU name", r))
			continue
		case !ccRe().MatchString(cc):
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, "gpu "+name, fmt.Sprintf("unreadable compute capability %q", cc), r))
			continue
		case byName[strings.ToLower(name)]:
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, "gpu "+name, "a second row for the same GPU", r))
			continue
		}
		byName[strings.ToLower(name)] = true
		arch := r.Fields["architecture"]
		if arch == "" {
			arch = architecture(cc)
		}
		f.GPUs = append(f.GPUs, db.GPU{Name: name, ComputeCapability: cc, Architecture: arch, Segment: r.Fields["segment"], Provenance: nvsrc.Prov(Name, r)})
	}
	extra := stated(f, recs, byName)
	// An alias that would name two GPUs, or that is another GPU's name,
	// names neither: lookups must never guess.
	count := map[string]int{}
	all := make([][]string, len(f.GPUs))
	for i, g := range f.GPUs {
		all[i] = Aliases(g.Name)
		for _, a := range extra[g.Name] {
			if !slices.ContainsFunc(all[i], func(o string) bool { return strings.EqualFold(o, a) }) {
				all[i] = append(all[i], a)
			}
		}
		for _, a := range all[i] {
			count[strings.ToLower(a)]++
		}
	}
	for i := range f.GPUs {
		for _, a := range all[i] {
			if count[strings.ToLower(a)] == 1 && !byName[strings.ToLower(a)] {
				f.GPUs[i].Aliases = append(f.GPUs[i].Aliases, a)
			}
		}
	}
	return f, nil
}

var prefixes = []string{"NVIDIA ", "Tesla ", "GeForce "}

// Aliases lists other names people use for a GPU: without the brand
// prefix ("Tesla T4" → "T4"), with "NVIDIA" in front ("NVIDIA T4",
// "NVIDIA GeForce RTX 4090"), each name of a "C2050/C2070" pair, and a
// parenthesised product name ("NVIDIA GB10 (DGX Spark)" → "DGX Spark").
func Aliases(name string) []string {
	var out []string
	add := func(a string) {
		a = strings.TrimSpace(a)
		if a == "" || strings.EqualFold(a, name) {
			return
		}
		for _, o := range out {
			if strings.EqualFold(o, a) {
				return
			}
		}
		out = append(out, a)
	}
	names := []string{name}
	if base, paren, ok := strings.Cut(name, " ("); ok {
		names = []string{base}
		add(base)
		add(strings.TrimSuffix(paren, ")"))
	}
	if strings.Contains(names[0], "/") {
		parts := strings.Split(names[0], "/")
		brand := ""
		if i := strings.LastIndex(parts[0], " "); i >= 0 {
			brand = parts[0][:i+1]
		}
		names = []string{parts[0]}
		for _, p := range parts[1:] {
			names = append(names, brand+strings.TrimSpace(p))
		}
		for _, n := range names {
			add(n)
		}
	}
	for _, n := range names {
		base := n
		for _, p := range prefixes {
			base = strings.TrimPrefix(base, p)
		}
		add(base)
		add("NVIDIA " + base)
		if !strings.HasPrefix(n, "NVIDIA ") {
			add("NVIDIA " + n)
		}
	}
	return out
}
