package onnxruntime

import (
	"context"
	"embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/mdtab"
)

// Which build plain pip gets, and where the others come from, is said in
// two places of the docs: the install page gives one pip command per CUDA
// major (plain PyPI, or an Azure DevOps feed), and the later requirements
// tables note per release whether a build is "Available in PyPI". The
// shared snapshot directory holds neither page at a version that says so;
// the captures below are trimmed, verbatim copies (captures/CAPTURES.md).
//
//go:embed captures/*.md
var captures embed.FS

const (
	liveInstall = "https://raw.githubusercontent.com/microsoft/onnxruntime/gh-pages/docs/install/index.md"
	capInstall  = "install-index.md@009fd8d.md"
	capInstURL  = "https://github.com/microsoft/onnxruntime/blob/009fd8d00f80eb792af72458c05f84ab2dff72ac/docs/install/index.md"
	capPage     = "CUDA-ExecutionProvider.html@onnxruntime.ai.md"
	capPageURL  = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"

	tableInstall = "install"
	tablePage    = "requirements_page"
)

var (
	gpuHeadingRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^install onnx ?runtime gpu \(cuda (\d+)\.x\)$`)
	})
	sinceRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:since|starting with|from)\s+(?:version\s+|ort\s+)?(\d+\.\d+(?:\.\d+)?)|(\d+\.\d+(?:\.\d+)?)\s+or\s+later`)
	})
	pypiNoteRE = sync.OnceValue(func() *regexp.Regexp {
		// The published page writes "Avaiable" in some rows.
		return regexp.MustCompile(`(?i)\b(not\s+)?avai?l?able\s+in\s+pypi\b`)
	})
)

// InstallSection is one "Install ONNX Runtime GPU (CUDA N.x)" section of
// the install page: the pip command it gives and the text around it.
type InstallSection struct {
	CUDAMajor string
	Line      int
	Command   string // the `pip install onnxruntime-gpu …` line
	Index     string // the index URL the command names; "" = PyPI
	Option    string // the pip option that names it (extra-index-url, index-url)
	Text      string // the section's paragraphs
}

// InstallSections reads the install page's per-CUDA-major Python GPU
// sections.
func InstallSections(src []byte) ([]InstallSection, error) {
	var out []InstallSection
	var cur *InstallSection
	for _, b := range mdtab.Blocks(src) {
		switch b.Kind {
		case mdtab.KindHeading:
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			if m := gpuHeadingRE().FindStringSubmatch(strings.TrimSpace(b.Text)); m != nil {
				cur = &InstallSection{CUDAMajor: m[1], Line: b.Line}
			}
		case mdtab.KindParagraph:
			if cur != nil {
				cur.Text = strings.TrimSpace(cur.Text + " " + strings.ReplaceAll(mdtab.Inline(b.Text, false), "\n", " "))
			}
		case mdtab.KindFence:
			if cur == nil || cur.Command != "" {
				continue
			}
			for _, l := range b.Lines {
				if f := strings.Fields(l.Text); len(f) >= 3 && f[0] == "pip" && f[1] == "install" && strings.HasPrefix(f[2], component) {
					cur.Command = strings.Join(f, " ")
					cur.Index, cur.Option = indexOf(f)
					break
				}
			}
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	for _, s := range out {
		if s.Command == "" {
			return nil, fmt.Errorf("the CUDA %s.x section (line %d) gives no pip install command", s.CUDAMajor, s.Line)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no \"Install ONNX Runtime GPU (CUDA N.x)\" section")
	}
	return out, nil
}

// indexOf is the index a pip command names and the option naming it.
func indexOf(args []string) (url, option string) {
	for i, a := range args {
		name, val, eq := strings.Cut(a, "=")
		switch name {
		case "--extra-index-url", "--index-url", "-i":
			if !eq && i+1 < len(args) {
				val = args[i+1]
			}
			opt := strings.TrimLeft(name, "-")
			if opt == "i" {
				opt = "index-url"
			}
			return val, opt
		}
	}
	return "", ""
}

// scrapeInstall reads the install page (live, or the capture in snapshot
// mode) into records.
func scrapeInstall(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	b, ref, url := []byte(nil), capInstall, capInstURL
	var err error
	if in.Snapshots == "" {
		if in.Fetcher == nil {
			return nil, fmt.Errorf("no fetcher and no snapshot directory given")
		}
		if b, err = in.Fetcher.Get(ctx, liveInstall); err != nil {
			return nil, fmt.Errorf("failed to fetch %s: %w", liveInstall, err)
		}
		ref, url = "install/index.md", liveInstall
	} else if b, err = captures.ReadFile("captures/" + capInstall); err != nil {
		return nil, fmt.Errorf("failed to read capture %s: %w", capInstall, err)
	}
	secs, err := InstallSections(b)
	if err != nil {
		return nil, fmt.Errorf("failed to parse the install page from %s: %w", ref, err)
	}
	var recs []scraper.Record
	for _, s := range secs {
		recs = append(recs, scraper.Record{Table: tableInstall, Key: "cuda" + s.CUDAMajor, URL: url,
			Ref:    fmt.Sprintf("%s line %d (Install ONNX Runtime GPU (CUDA %s.x))", strings.TrimSuffix(ref, ".md"), s.Line, s.CUDAMajor),
			Fields: map[string]string{"cuda_major": s.CUDAMajor, "command": s.Command, "index_url": s.Index, "index_option": s.Option, "text": s.Text}})
	}
	return recs, nil
}

// capturedPage is the later requirements page's CUDA 12.x / 11.x tables,
// read in snapshot mode (a live refresh reads them from the live page).
func capturedPage() ([]scraper.Record, error) {
	b, err := captures.ReadFile("captures/" + capPage)
	if err != nil {
		return nil, fmt.Errorf("failed to read capture %s: %w", capPage, err)
	}
	rows, err := RequirementRows(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", capPage, err)
	}
	var recs []scraper.Record
	for _, r := range rows {
		recs = append(recs, scraper.Record{Table: tablePage, Key: r.Section + "/" + r.Versions, URL: capPageURL,
			Ref:    fmt.Sprintf("%s line %d (%s)", strings.TrimSuffix(capPage, ".md"), r.Line, r.Section),
			Fields: map[string]string{"versions": r.Versions, "cuda": r.CUDA, "cudnn": r.CUDNN, "notes": r.Notes}})
	}
	return recs, nil
}

// pypiNote reads a row's "Available in PyPI" / "Not available in PyPI".
func pypiNote(notes string) (said, available bool) {
	m := pypiNoteRE().FindStringSubmatch(notes)
	if m == nil {
		return false, false
	}
	return true, m[1] == ""
}

// pypiRow is what one table row says about a release line on PyPI.
type pypiRow struct {
	versions  []string // as the row names them; "1.18.x" covers every 1.18 release
	major     string
	available bool
	prov      db.Provenance
}

// collectPyPI remembers a row's PyPI note (called from row()).
func (n *normalizer) collectPyPI(r scraper.Record, versions, cudaCell, notes string) {
	said, avail := pypiNote(notes)
	if !said {
		return
	}
	cudas := cudaPieces(cudaCell)
	if len(cudas) != 1 {
		return
	}
	d, err := version.ParseDotted(cudas[0])
	if err != nil {
		return
	}
	var vers []string
	for _, part := range strings.FieldsFunc(versions, func(r rune) bool { return r == '\n' || r == '/' || r == ',' }) {
		vers = append(vers, strings.TrimSpace(part))
	}
	n.pypi = append(n.pypi, pypiRow{versions: vers, major: fmt.Sprint(d.Major()), available: avail,
		prov: db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref}})
}

// covers reports whether a row's version cell names release v ("1.18.x"
// names every 1.18 release; "1.18.1" only itself).
func covers(cell, v string) bool {
	if strings.HasSuffix(cell, ".x") {
		return strings.HasPrefix(v, strings.TrimSuffix(cell, "x"))
	}
	w, err := one(cell)
	return err == nil && w == v
}

// applyInstall marks, per release, the build PyPI serves and the feed of
// the others:
//   - a row noting "Available in PyPI" makes its build the default;
//   - otherwise, when the release's CUDA majors are exactly the install
//     page's sections (and the page's "since"/"or later" bounds admit the
//     release), the section installing from PyPI names the default;
//   - a non-default build whose CUDA major has a feed section, in a release
//     whose default is another major, is installed from that feed.
//
// Releases the evidence does not settle keep no default: resolve then says
// which build PyPI serves is not in the data.
func (n *normalizer) applyInstall(install []scraper.Record) {
	type section struct {
		index, option, since string
		prov                 db.Provenance
	}
	secs := map[string]section{}
	for _, r := range install {
		s := section{index: r.Fields["index_url"], option: r.Fields["index_option"], prov: db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref}}
		if m := sinceRE().FindStringSubmatch(r.Fields["text"]); m != nil {
			s.since = m[1] + m[2]
		}
		secs[r.Fields["cuda_major"]] = s
	}
	byVersion := map[string][]int{}
	for i, b := range n.f.Builds {
		byVersion[b.Version] = append(byVersion[b.Version], i)
	}
	majorOf := func(b db.Build) string { return strings.TrimPrefix(b.Variant, "cuda") }
	versions := make([]string, 0, len(byVersion))
	for v := range byVersion {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	for _, v := range versions {
		idx := byVersion[v]
		def, defProv := "", db.Provenance{}
		for _, row := range n.pypi {
			for _, cell := range row.versions {
				if covers(cell, v) && row.available && def == "" {
					def, defProv = row.major, row.prov
				}
			}
		}
		majors := map[string]bool{}
		for _, i := range idx {
			majors[majorOf(n.f.Builds[i])] = true
		}
		if def == "" && len(majors) == len(secs) {
			covered := true
			for m := range majors {
				_, ok := secs[m]
				covered = covered && ok
			}
			for m := range majors {
				if s := secs[m]; covered && s.index == "" && admits(s.since, v) {
					def, defProv = m, s.prov
				}
			}
		}
		if def == "" || !majors[def] {
			continue
		}
		for _, i := range idx {
			b := &n.f.Builds[i]
			m := majorOf(*b)
			if m == def {
				b.IsDefault = true
				n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: v, Key: "pypi_default@" + b.Variant + platformSuffix(b.Platform), Value: "yes", Provenance: defProv})
				continue
			}
			if s, ok := secs[m]; ok && s.index != "" && admits(s.since, v) {
				b.IndexURL = s.index
				n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: v, Key: "index_url@" + b.Variant + platformSuffix(b.Platform), Value: s.index + " (pip --" + s.option + ")", Provenance: s.prov})
			}
		}
	}
}

func platformSuffix(p string) string {
	if p == "" {
		return ""
	}
	return "/" + p
}

// admits reports whether release v is at or after since ("" admits all).
func admits(since, v string) bool {
	if since == "" {
		return true
	}
	a, err1 := version.Parse(since)
	b, err2 := version.Parse(v)
	return err1 == nil && err2 == nil && b.Compare(a) >= 0
}
