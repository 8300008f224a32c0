// Package onnxruntime is the source for ONNX Runtime's CUDA builds: the
// requirements table of the CUDA Execution Provider page (gh-pages branch
// of microsoft/onnxruntime) and a hand-written CSV of later rows taken
// from PR diffs, maintainer statements, release-candidate issues and
// third-party copies (each row keeps its evidence type).
package onnxruntime

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/mdtab"
	"github.com/cudb/cudb/scraper/internal/srcio"
)

// Source is the ONNX Runtime source.
type Source struct{}

// Name implements scraper.Source.
func (Source) Name() string { return "onnxruntime" }

// URL implements scraper.Source.
func (Source) URL() string {
	return "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"
}

const (
	component = "onnxruntime-gpu"
	liveDoc   = "https://raw.githubusercontent.com/microsoft/onnxruntime/gh-pages/docs/execution-providers/CUDA-ExecutionProvider.md"
	snapDoc   = "CUDA-ExecutionProvider.md@d0ea319e9.md" // the only snapshot: newest by construction
	snapURL   = "https://github.com/microsoft/onnxruntime/blob/d0ea319e9b71f66abc5abdc8c65ce5456ab06780/docs/execution-providers/CUDA-ExecutionProvider.md"
	csvFile   = "ort_cuda_requirements.csv"

	tableDoc = "requirements_table"
	tableCSV = "requirements_csv"
)

// Scrape implements scraper.Source.
func (s Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	live := in.Snapshots == ""
	b, err := srcio.Read(ctx, in, liveDoc, "onnxruntime/"+snapDoc)
	if err != nil {
		return nil, err
	}
	ref, url := strings.TrimSuffix(snapDoc, ".md"), snapURL
	if live {
		ref, url = "CUDA-ExecutionProvider.md", liveDoc
	}
	rows, err := RequirementRows(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	var recs []scraper.Record
	seen := map[string]int{}
	for _, r := range rows {
		key := r.Section + "/" + strings.ReplaceAll(r.Versions, "\n", ",")
		seen[key]++
		if seen[key] > 1 {
			key += fmt.Sprintf("#%d", seen[key])
		}
		recs = append(recs, scraper.Record{Table: tableDoc, Key: key, URL: url, Ref: fmt.Sprintf("%s line %d (%s)", ref, r.Line, r.Section),
			Fields: map[string]string{"versions": r.Versions, "cuda": r.CUDA, "cudnn": r.CUDNN, "notes": r.Notes}})
	}
	inst, err := scrapeInstall(ctx, in)
	if err != nil {
		return nil, err
	}
	recs = append(recs, inst...)
	stated, err := scrapeStated(ctx, in)
	if err != nil {
		return nil, err
	}
	recs = append(recs, stated...)
	if live {
		return recs, nil
	}
	page, err := capturedPage()
	if err != nil {
		return nil, err
	}
	recs = append(recs, page...)
	c, err := srcio.Read(ctx, in, "", "onnxruntime/"+csvFile)
	if err != nil {
		return nil, err
	}
	crows, err := srcio.CSV(c, "ort_version", "cuda", "cudnn_linux", "cudnn_windows", "notes", "evidence_type", "source", "commit_or_url")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", csvFile, err)
	}
	for _, r := range crows {
		key := r.Fields["ort_version"] + "/" + r.Fields["cuda"] + "/" + r.Fields["evidence_type"]
		seen[key]++
		if seen[key] > 1 {
			key += fmt.Sprintf("#%d", seen[key])
		}
		u := r.Fields["commit_or_url"]
		if !strings.HasPrefix(u, "https://") || strings.Contains(u, " ") {
			u = ""
		}
		recs = append(recs, scraper.Record{Table: tableCSV, Key: key, Ref: fmt.Sprintf("%s line %d", csvFile, r.Line), URL: u, Fields: r.Fields})
	}
	return recs, nil
}

// Row is one requirements-table row as the page gives it.
type Row struct {
	Section                      string
	Line                         int
	Versions, CUDA, CUDNN, Notes string
}

// RequirementRows reads the tables headed "ONNX Runtime | CUDA | cuDNN |
// Notes" under the "Requirements" section (including the later "CUDA
// 12.x" / "CUDA 11.x" subsections).
func RequirementRows(src []byte) ([]Row, error) {
	tables, err := mdtab.PipeTables(src)
	if err != nil {
		return nil, err
	}
	var out []Row
	found := false
	for _, t := range tables {
		inReq := false
		for _, p := range t.Path {
			inReq = inReq || strings.EqualFold(strings.TrimSpace(p), "Requirements")
		}
		if !inReq {
			continue
		}
		col := map[string]int{}
		for i, h := range t.Header {
			col[strings.ToLower(strings.TrimSpace(h))] = i
		}
		vi, ok1 := col["onnx runtime"]
		ci, ok2 := col["cuda"]
		di, ok3 := col["cudnn"]
		ni, ok4 := col["notes"]
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		found = true
		for _, r := range t.Rows {
			cell := func(i int, ok bool) string {
				if !ok || i >= len(r.Cells) {
					return ""
				}
				return strings.TrimSpace(r.Cells[i])
			}
			out = append(out, Row{Section: t.Path[len(t.Path)-1], Line: r.Line, Versions: cell(vi, true), CUDA: cell(ci, true), CUDNN: cell(di, true), Notes: cell(ni, ok4)})
		}
	}
	if !found {
		return nil, fmt.Errorf("no ONNX Runtime/CUDA/cuDNN table under a Requirements heading")
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the requirements table has no rows")
	}
	return out, nil
}

var (
	verTokRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+|x))?$`) })
	cudaTokRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+))?\b`) })
	cudnnTokRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(?:\.\d+)*)(?:\.[x*])?`) })
	pinRE      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(nvidia-[a-z0-9-]+)\s*(~=\s*[\d.]+|\(\s*[<>=!~][^)]*\))`)
	})
	extraRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`extra "?(cuda|cudnn)"?:?\s*=?`) })
)

// ExpandVersions turns a version cell ("1.14\n1.13.1", "1.5-1.6", "1.17 -
// 1.15", "1.20.x", "1.24.0 / 1.24.3") into three-part versions.
func ExpandVersions(cell string) ([]string, error) {
	var out []string
	for _, part := range strings.FieldsFunc(cell, func(r rune) bool { return r == '\n' || r == '/' || r == ',' }) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if a, b, ok := strings.Cut(part, "-"); ok {
			lo, err1 := one(strings.TrimSpace(a))
			hi, err2 := one(strings.TrimSpace(b))
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("range %q does not parse", part)
			}
			l, h := version.MustParse(lo).Release(), version.MustParse(hi).Release()
			if l[0] != h[0] {
				return nil, fmt.Errorf("range %q spans majors", part)
			}
			if l[1] > h[1] {
				l, h = h, l
			}
			if h[1]-l[1] > 20 {
				return nil, fmt.Errorf("range %q is too wide", part)
			}
			for m := l[1]; m <= h[1]; m++ {
				out = append(out, fmt.Sprintf("%d.%d.0", l[0], m))
			}
			continue
		}
		v, err := one(part)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no version in %q", cell)
	}
	return out, nil
}

func one(s string) (string, error) {
	m := verTokRE().FindStringSubmatch(s)
	if m == nil {
		return "", fmt.Errorf("%q is not an ONNX Runtime version", s)
	}
	p := m[3]
	if p == "" || p == "x" {
		p = "0"
	}
	v, err := version.Parse(m[1] + "." + m[2] + "." + p)
	if err != nil {
		return "", err
	}
	return v.Public(), nil
}

// cudaPieces reads a CUDA cell ("11.8", "12.x", "12.*", "12.x (CUDA 12
// build); 11.8 (default build)") into CUDA versions, one per major.
func cudaPieces(cell string) []string {
	var out []string
	for _, piece := range regexp.MustCompile(`;| and `).Split(cell, -1) {
		m := cudaTokRE().FindStringSubmatch(strings.TrimSpace(piece))
		if m == nil {
			continue
		}
		c := m[1]
		if m[2] != "" && m[2] != "x" && m[2] != "*" {
			c += "." + m[2]
			if m[3] != "" {
				c += "." + m[3]
			}
		}
		out = append(out, c)
	}
	return out
}

// cudnnOf reads "8.2.4 (Linux)\n8.5.0.96 (Windows)", "9.x", "8.9
// (compatible with 8.*)" into the Linux and Windows cuDNN versions.
func cudnnOf(cell string) (linux, windows string) {
	for _, line := range strings.Split(cell, "\n") {
		line = strings.TrimSpace(line)
		m := cudnnTokRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch {
		case strings.Contains(line, "(Windows)"):
			windows = m[1]
		case linux == "":
			linux = m[1]
		}
	}
	if windows == "" {
		windows = linux
	}
	return linux, windows
}

// Normalize implements scraper.Source.
func (s Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	n := &normalizer{f: &db.Facts{}, src: s.Name(), builds: map[db.BuildKey]int{}, notes: map[[2]string][]string{}, noteProv: map[[2]string]db.Provenance{}, reqs: map[string]int{}, releases: map[string]bool{}}
	var doc, page, csv, install, stated []scraper.Record
	for _, r := range recs {
		switch r.Table {
		case tableDoc:
			doc = append(doc, r)
		case tablePage:
			page = append(page, r)
		case tableInstall:
			install = append(install, r)
		case tableCSV:
			csv = append(csv, r)
		case tableStated:
			stated = append(stated, r)
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	if len(doc) == 0 {
		return nil, fmt.Errorf("no requirements-table rows")
	}
	// The official page first, then the CSV in file order (records arrive
	// sorted by key; the CSV line keeps the file's order of evidence).
	sort.SliceStable(csv, func(i, j int) bool { return lineOf(csv[i].Ref) < lineOf(csv[j].Ref) })
	// The live page, then the captured later page (snapshot mode), then
	// the hand-written CSV: the first to say which build PyPI serves wins.
	sort.SliceStable(page, func(i, j int) bool { return lineOf(page[i].Ref) < lineOf(page[j].Ref) })
	// Its rows name only CUDA and cuDNN majors, so they come after the CSV,
	// whose PR diffs give the 1.17 CUDA 12 build's full versions.
	for _, r := range append(doc, page...) {
		n.collectPyPI(r, r.Fields["versions"], r.Fields["cuda"], r.Fields["notes"])
	}
	for _, r := range doc {
		n.row(r, r.Fields["versions"], r.Fields["cuda"], r.Fields["cudnn"], "", r.Fields["notes"], "", db.KindTested)
	}
	for _, r := range csv {
		n.csvRow(r)
	}
	for _, r := range page {
		n.row(r, r.Fields["versions"], r.Fields["cuda"], r.Fields["cudnn"], "", r.Fields["notes"], "", db.KindTested)
	}
	n.applyInstall(install)
	n.applyStatements(stated)
	keys := make([][2]string, 0, len(n.notes))
	for k := range n.notes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: k[0], Key: "notes@" + k[1],
			Value: strings.Join(n.notes[k], " | "), Provenance: n.noteProv[k]})
	}
	return n.f, nil
}

func lineOf(ref string) int {
	i := strings.LastIndex(ref, "line ")
	if i < 0 {
		return 0
	}
	var n int
	fmt.Sscanf(ref[i+5:], "%d", &n)
	return n
}

type normalizer struct {
	f        *db.Facts
	src      string
	builds   map[db.BuildKey]int
	notes    map[[2]string][]string
	noteProv map[[2]string]db.Provenance
	reqs     map[string]int
	releases map[string]bool
	pypi     []pypiRow
}

func (n *normalizer) refuse(r scraper.Record, note string) {
	var parts []string
	for _, k := range []string{"versions", "ort_version", "cuda", "cudnn", "cudnn_linux", "cudnn_windows", "evidence_type"} {
		if v := r.Fields[k]; v != "" {
			parts = append(parts, k+"="+strings.ReplaceAll(v, "\n", ","))
		}
	}
	n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "onnxruntime " + r.Table + " " + r.Key, Field: "refused",
		Other: strings.Join(parts, " "), OtherSource: n.src + " (" + r.Ref + ")", Note: note})
}

func (n *normalizer) csvRow(r scraper.Record) {
	f := r.Fields
	cell := f["ort_version"]
	ver, qual, _ := strings.Cut(cell, "(")
	if i := strings.Index(ver, " dev"); i >= 0 {
		n.refuse(r, "a development snapshot of main, not a release")
		return
	}
	qual = strings.TrimSuffix(strings.TrimSpace(qual), ")")
	ver = strings.TrimSuffix(strings.TrimSpace(ver), "+")
	lq := strings.ToLower(qual)
	switch {
	case strings.Contains(lq, "proposed"):
		n.refuse(r, "a proposed row that was corrected before it was published")
		return
	case strings.Contains(lq, "zip"):
		n.refuse(r, "describes the C/C++ zip packages, not the onnxruntime-gpu wheel")
		return
	case strings.Contains(lq, "extras"):
		n.extras(r, ver)
		return
	}
	platform := ""
	if strings.Contains(lq, "aarch64") {
		platform = "linux-aarch64"
	}
	notes := f["notes"]
	if qual != "" {
		notes = qual + ": " + notes
	}
	notes += " [" + f["evidence_type"] + "]"
	kind := db.KindTested
	n.row(r, ver, f["cuda"], f["cudnn_linux"], f["cudnn_windows"], notes, platform, kind)
	n.collectPyPI(r, ver, f["cuda"], f["notes"])
}

func (n *normalizer) build(ver, variant, platform, cuda string, p db.Provenance) db.BuildKey {
	k := db.BuildKey{Component: component, Version: ver, Variant: variant, Platform: platform}
	if _, ok := n.builds[k]; !ok {
		n.builds[k] = len(n.f.Builds)
		n.f.Builds = append(n.f.Builds, db.Build{Component: component, Version: ver, Variant: variant, Platform: platform, CUDA: cuda, Provenance: p})
		if !n.releases[ver] {
			n.releases[ver] = true
			n.f.Releases = append(n.f.Releases, db.Release{Component: component, Version: ver, Provenance: p})
		}
	}
	return k
}

func (n *normalizer) req(q db.Requirement) {
	id := q.Build.String() + "|" + q.Needs + "|" + q.Kind
	if i, ok := n.reqs[id]; ok {
		old := n.f.Requirements[i]
		if old.Spec != q.Spec && !strings.HasPrefix(old.Spec, q.Spec+".") {
			n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "requirement " + q.Build.String() + " needs " + q.Needs + " (" + q.Kind + ")",
				Field: "spec", Kept: old.Spec, KeptSource: n.src + " (" + old.Ref + ")", Other: q.Spec, OtherSource: n.src + " (" + q.Ref + ")",
				Note: "a later row of the evidence list states this differently; the earlier (official page first) is kept"})
		}
		return
	}
	n.reqs[id] = len(n.f.Requirements)
	n.f.Requirements = append(n.f.Requirements, q)
}

func (n *normalizer) row(r scraper.Record, versions, cudaCell, cudnnCell, cudnnWin, notes, platform, kind string) {
	vers, err := ExpandVersions(versions)
	if err != nil {
		n.refuse(r, err.Error())
		return
	}
	cudas := cudaPieces(cudaCell)
	if len(cudas) == 0 {
		n.refuse(r, fmt.Sprintf("CUDA cell %q names no CUDA version", cudaCell))
		return
	}
	linux, win := cudnnOf(cudnnCell)
	if cudnnWin != "" {
		if w, _ := cudnnOf(cudnnWin); w != "" {
			win = w
		}
	}
	// A cell naming two CUDA lines gives each its build; the cuDNN cell
	// then belongs to the first (the CSV writes the CUDA 12 build first).
	p := db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref}
	for _, v := range vers {
		for i, c := range cudas {
			d, err := version.ParseDotted(c)
			if err != nil || d.Major() < 7 || d.Major() > 30 {
				n.refuse(r, fmt.Sprintf("CUDA %q is not a CUDA version", c))
				continue
			}
			variant := fmt.Sprintf("cuda%d", d.Major())
			// Platform is part of a build: where the table gives Windows its
			// own cuDNN ("8.2.4 (Linux) / 8.5.0.96 (Windows)"), the row is two
			// builds, each with its cuDNN.
			plats := [][2]string{{platform, linux}}
			if platform == "" && i == 0 && linux != "" && win != "" && win != linux {
				plats = [][2]string{{"linux", linux}, {"windows", win}}
			}
			for _, pc := range plats {
				plat, cudnn := pc[0], pc[1]
				k := n.build(v, variant, plat, c, p)
				n.req(db.Requirement{Build: k, Needs: "cuda", Kind: kind, Spec: c, Provenance: p})
				if i == 0 && cudnn != "" {
					n.req(db.Requirement{Build: k, Needs: "cudnn", Kind: kind, Spec: cudnn, Provenance: p})
				}
			}
			if i == 0 && win != linux && win != "" {
				n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: v, Key: "cudnn_windows@" + variant, Value: win, Provenance: p})
			}
			if notes != "" {
				nk := [2]string{v, variant}
				if len(n.notes[nk]) == 0 {
					n.noteProv[nk] = p
				}
				n.notes[nk] = append(n.notes[nk], strings.ReplaceAll(notes, "\n", "; "))
			}
		}
	}
}

// extras reads the onnxruntime-gpu[cuda] / [cudnn] pins named in a row's
// notes into pins of the release's CUDA 12 build.
func (n *normalizer) extras(r scraper.Record, ver string) {
	v, err := one(strings.TrimSpace(ver))
	if err != nil {
		n.refuse(r, err.Error())
		return
	}
	text := r.Fields["notes"]
	pins := pinRE().FindAllStringSubmatchIndex(text, -1)
	if len(pins) == 0 {
		n.refuse(r, "no nvidia-* pin in the notes")
		return
	}
	p := db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref}
	k := n.build(v, "cuda12", "", "12", p)
	extras := extraRE().FindAllStringSubmatchIndex(text, -1)
	for _, m := range pins {
		pkg := text[m[2]:m[3]]
		spec := strings.ReplaceAll(strings.Trim(text[m[4]:m[5]], "() "), " ", "")
		if _, err := version.ParseSpecifiers(spec); err != nil {
			n.refuse(r, fmt.Sprintf("pin %s %q: %v", pkg, spec, err))
			continue
		}
		extra := ""
		for _, e := range extras {
			if e[0] < m[0] {
				extra = text[e[2]:e[3]]
			}
		}
		marker := ""
		if extra != "" {
			marker = `extra == "` + extra + `"`
		}
		n.req(db.Requirement{Build: k, Needs: pkg, Kind: db.KindPin, Spec: spec, Marker: marker, Provenance: p})
	}
}
