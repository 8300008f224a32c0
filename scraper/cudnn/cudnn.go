// Package cudnn is the source of cuDNN support-matrix facts: which CUDA
// versions, drivers and compute capabilities each cuDNN release supports.
package cudnn

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "cudnn"

// PageURL is the live support matrix (latest cuDNN).
const PageURL = "https://docs.nvidia.com/deeplearning/cudnn/latest/support-matrix/index.html"

// CSVFile is the curated fact table in the snapshot directory.
const CSVFile = "cudnn_support.csv"

// TableMatrix is the record table of live support-matrix rows.
const TableMatrix = "support_matrix"

var csvColumns = []string{"cudnn_version", "package_label", "cuda_major_line", "cuda_versions", "min_linux_driver",
	"min_windows_driver", "driver_raw", "compute_capabilities", "release_date", "source", "note"}

// Source implements scraper.Source.
type Source struct{ PageURL string }

// New returns the source reading the live page.
func New() *Source { return &Source{PageURL: PageURL} }

func (s *Source) Name() string { return Name }
func (s *Source) URL() string  { return PageURL }

// Accumulates: the live support matrix describes the current cuDNN
// release only, so a live refresh keeps the rows of earlier releases
// (scraper.Accumulator).
func (s *Source) Accumulates() bool { return true }

func key(r map[string]string) string {
	return r["cudnn_version"] + " | " + r["package_label"] + " | " + r["cuda_major_line"] + " | " + r["cuda_versions"]
}

// Scrape reads the curated CSV (snapshot mode) or the live page.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return nvsrc.Page{CSV: CSVFile, Columns: csvColumns, Key: key, URLs: []string{nvsrc.PageOr(s.PageURL, PageURL)}, What: "the cuDNN support matrix", Parse: ParsePage}.Scrape(ctx, in)
}

var packageRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cuDNN\s+(\d+\.\d+\.\d+)\s+for\s+CUDA\s+(\d+)\.x`) })

// ParsePage reads the 9.x support matrix: one table whose header names the
// cuDNN package, CUDA toolkit, driver and compute-capability columns;
// multi-value cells are bullet lists.
func ParsePage(page []byte, url string) ([]scraper.Record, error) {
	doc, err := nvsrc.Parse(page)
	if err != nil {
		return nil, err
	}
	var g *nvsrc.Grid
	for _, c := range []string{"GPU, CUDA Toolkit, and CUDA Driver Requirements", "Supported NVIDIA Hardware and CUDA Version", "cuDNN"} {
		if t := nvsrc.FindTable(doc, c); t != nil {
			if g, err = nvsrc.ReadGrid(t); err != nil {
				return nil, err
			}
			break
		}
	}
	if g == nil {
		// 9.x pages title the table with a heading, not a caption.
		t := doc.Find("table").First()
		if t.Length() == 0 {
			return nil, errors.New("no support-matrix table")
		}
		if g, err = nvsrc.ReadGrid(t); err != nil {
			return nil, err
		}
	}
	cPkg, cCUDA := g.Col("cuDNN Package"), g.Col("CUDA Toolkit Version")
	cLin, cWin := g.Col("for Linux", "Linux"), g.Col("for Windows", "Windows")
	cCC := g.Col("Compute Capability")
	if cPkg < 0 || cCUDA < 0 || cLin < 0 {
		return nil, fmt.Errorf("support-matrix header %q lacks the package, CUDA toolkit or driver column (a converter may have dropped list-only columns)", g.Header)
	}
	var recs []scraper.Record
	seen := map[string]int{}
	for _, row := range g.Rows {
		label := nvsrc.At(row, cPkg).Text
		f := map[string]string{
			"package_label":        label,
			"cuda_versions":        strings.Join(items(nvsrc.At(row, cCUDA)), ";"),
			"min_linux_driver":     nvsrc.At(row, cLin).Text,
			"min_windows_driver":   nvsrc.At(row, cWin).Text,
			"compute_capabilities": strings.Join(items(nvsrc.At(row, cCC)), ";"),
		}
		if m := packageRe().FindStringSubmatch(label); m != nil {
			f["cudnn_version"], f["cuda_major_line"] = m[1], m[2]+".x"
		}
		k := key(f)
		seen[k]++
		if seen[k] > 1 {
			k = fmt.Sprintf("%s#%d", k, seen[k])
		}
		recs = append(recs, scraper.Record{Table: TableMatrix, Key: k, URL: url, Ref: "support matrix: " + label, Fields: f})
	}
	if len(recs) == 0 {
		return nil, errors.New("support-matrix table has no rows")
	}
	return recs, nil
}

func items(c nvsrc.Cell) []string {
	if len(c.Items) > 0 {
		return c.Items
	}
	if c.Text == "" {
		return nil
	}
	return []string{c.Text}
}

var (
	footnote  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\[\d+\]`) })
	rangeRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+\.\d+)\s*-\s*(\d+\.\d+)$`) })
	majorRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)(?:\.x|\.\d+)?$`) })
	branchRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[rR](\d+(?:\.\d+)*)$`) })
	glueNote  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+\.\d+)\d$`) }) // "9.03": a footnote digit glued by text extraction
	notSuppRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)not supported`) })
)

// Normalize turns support-matrix rows into CUDNNSupport facts.
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	seen := map[[3]string]bool{}
	for _, r := range recs {
		if r.Table != nvsrc.TableCSV && r.Table != TableMatrix {
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
		rows, reason := row(r)
		subject := "cudnn " + r.Key
		if reason == manifestOnly {
			knownRelease(f, r)
			continue
		}
		if note := r.Fields["note"]; nvsrc.IsDisagreement(note) {
			f.Conflicts = append(f.Conflicts, nvsrc.Disagreement(Name, subject, "min_driver_linux", r.Fields["driver_raw"]+r.Fields["min_linux_driver"], note, r))
		}
		if reason != "" {
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, reason, r))
			continue
		}
		for _, c := range rows {
			k := [3]string{c.CUDNN, c.CUDAMajor, c.CUDAVersions}
			if seen[k] {
				f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, subject, "repeats an earlier row for the same cuDNN, CUDA major and CUDA versions", r))
				continue
			}
			seen[k] = true
			f.CUDNN = append(f.CUDNN, c)
		}
	}
	return f, nil
}

// row interprets one record; a non-empty reason refuses it.
func row(r scraper.Record) ([]db.CUDNNSupport, string) {
	fl := r.Fields
	v := fl["cudnn_version"]
	if !nvsrc.IsDotted(v) {
		return nil, fmt.Sprintf("no usable cuDNN version (%q)", v)
	}
	if notSuppRe().MatchString(fl["cuda_versions"]) {
		return nil, "the matrix lists this CUDA version as not supported"
	}
	var majors []string
	for _, m := range strings.Split(fl["cuda_major_line"], ";") {
		mm := majorRe().FindStringSubmatch(strings.TrimSpace(m))
		if mm == nil {
			return nil, fmt.Sprintf("unreadable CUDA major %q", fl["cuda_major_line"])
		}
		majors = append(majors, mm[1])
	}
	c := db.CUDNNSupport{CUDNN: v, ReleasedOn: fl["release_date"], Provenance: nvsrc.Prov(Name, r)}
	var vers []string
	for _, it := range strings.Split(fl["cuda_versions"], ";") {
		it = strings.TrimSpace(footnote().ReplaceAllString(it, ""))
		it = strings.TrimSpace(strings.TrimPrefix(it, "CUDA "))
		switch {
		case it == "" || strings.Contains(it, "(cut)"):
			continue
		case rangeRe().MatchString(it):
			m := rangeRe().FindStringSubmatch(it)
			c.CUDAMin, c.CUDAMax = m[1], m[2]
		case nvsrc.IsDotted(it):
			vers = append(vers, it)
		case nvsrc.IsDotted(strings.TrimSuffix(it, ".x")):
			// "10.0.x": every patch of the minor; the list holds the minor.
			vers = append(vers, strings.TrimSuffix(it, ".x"))
		case updateRe().MatchString(it):
			// "10.1 Update 2", "11.2 update 1": the matrix names the
			// toolkit minor and its update; the list holds the minor.
			vers = append(vers, updateRe().FindStringSubmatch(it)[1])
		default:
			return nil, fmt.Sprintf("unreadable CUDA version %q", it)
		}
	}
	c.CUDAVersions = strings.Join(vers, ";")
	if len(vers) > 0 {
		sorted := append([]string(nil), vers...)
		sort.Slice(sorted, func(i, j int) bool {
			return version.DottedKey(strings.TrimSuffix(sorted[i], ".x")) < version.DottedKey(strings.TrimSuffix(sorted[j], ".x"))
		})
		c.CUDAMin, c.CUDAMax = sorted[0], sorted[len(sorted)-1]
	}
	lin, err := nvsrc.Driver(footnote().ReplaceAllString(fl["min_linux_driver"], ""))
	if err != nil && !errors.Is(err, nvsrc.ErrNA) {
		return nil, "unreadable Linux driver: " + err.Error()
	}
	win, err := nvsrc.Driver(footnote().ReplaceAllString(fl["min_windows_driver"], ""))
	if err != nil && !errors.Is(err, nvsrc.ErrNA) {
		return nil, "unreadable Windows driver: " + err.Error()
	}
	if lin == "" && fl["driver_raw"] != "" {
		// Pre-8.5 matrices name branch floors ("r450", "r460, r455, r450",
		// "R495", "r418.39"): the lowest one is the floor.
		for _, b := range strings.Split(fl["driver_raw"], ",") {
			m := branchRe().FindStringSubmatch(strings.TrimSpace(b))
			if m == nil {
				return nil, fmt.Sprintf("unreadable driver branch %q", fl["driver_raw"])
			}
			if lin == "" || version.DottedKey(m[1]) < version.DottedKey(lin) {
				lin = m[1]
			}
		}
	}
	c.MinDriverLinux, c.MinDriverWindows = lin, win
	var ccs []string
	for _, it := range strings.Split(fl["compute_capabilities"], ";") {
		it = strings.TrimSpace(footnote().ReplaceAllString(it, ""))
		if m := glueNote().FindStringSubmatch(it); m != nil {
			it = m[1]
		}
		switch {
		case it == "" || strings.Contains(it, "(cut)"):
		case ccFloorRe().MatchString(it):
			c.CCMin = ccFloorRe().FindStringSubmatch(it)[1]
		case strings.HasSuffix(it, ".x"):
			// "7.x": every compute capability of that major NVIDIA
			// defines (its CUDA GPUs table), in the matrix's order.
			fam, ok := ccFamilies[strings.TrimSuffix(it, ".x")]
			if !ok {
				return nil, fmt.Sprintf("unknown compute capability family %q", it)
			}
			ccs = append(ccs, fam...)
		case nvsrc.IsDotted(it):
			ccs = append(ccs, it)
		default:
			return nil, fmt.Sprintf("unreadable compute capability %q", it)
		}
	}
	c.CCList = strings.Join(dedupe(ccs), ";")
	if len(vers) == 0 && c.CUDAMin == "" && lin == "" && win == "" && c.CCList == "" && c.CCMin == "" {
		return nil, manifestOnly
	}
	var out []db.CUDNNSupport
	for _, m := range majors {
		cm := c
		cm.CUDAMajor = m
		out = append(out, cm)
	}
	return out, ""
}

// manifestOnly marks a row that names a cuDNN release and its CUDA major
// but no support facts (the rows taken from redist manifests): a known
// release whose support matrix was not read, not a support row.
const manifestOnly = "manifest only"

var (
	updateRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(\d+\.\d+)\s+update\s+\d+$`) })
	ccFloorRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^SM\s+(\d+\.\d+)\s+and\s+later$`) })
)

// ccFamilies lists the compute capabilities of each major, from NVIDIA's
// CUDA GPUs table (developer.nvidia.com/cuda-gpus and its legacy page).
var ccFamilies = map[string][]string{
	"3": {"3.0", "3.2", "3.5", "3.7"},
	"5": {"5.0", "5.2", "5.3"},
	"6": {"6.0", "6.1", "6.2"},
	"7": {"7.0", "7.2", "7.5"},
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// knownRelease records a manifest-only row: the cuDNN release (with its
// date) and the CUDA majors it ships for; its support facts are pending.
func knownRelease(f *db.Facts, r scraper.Record) {
	v, p := r.Fields["cudnn_version"], nvsrc.Prov(Name, r)
	for i, a := range f.Attributes {
		if a.Component == "cudnn" && a.Version == v && a.Key == "cuda_majors" {
			f.Attributes[i].Value += ";" + r.Fields["cuda_major_line"]
			return
		}
	}
	f.Releases = append(f.Releases, db.Release{Component: "cudnn", Version: v, ReleasedOn: r.Fields["release_date"], Provenance: p})
	f.Attributes = append(f.Attributes, db.Attribute{Component: "cudnn", Version: v, Key: "cuda_majors", Value: r.Fields["cuda_major_line"], Provenance: p},
		db.Attribute{Component: "cudnn", Version: v, Key: "support", Value: "pending: known release (redist manifest); its support matrix was not read", Provenance: p})
}
