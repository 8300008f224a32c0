package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// ReleaseMD reads RELEASE.md's "Release Compatibility Matrix": per torch
// minor, the Python range, C++ standard, stable/experimental CUDA with
// cuDNN and NCCL, and stable ROCm; and its "PyTorch CUDA Support Matrix":
// the GPU architectures per CUDA for the releases it names.
//
// The row is the release team's statement for every release of the minor
// (the values come from the release branch: pytorch/pytorch#190386 took
// the NCCL versions from each release/X.Y's ci_commit_pins), so it is
// release evidence: where a row names cuDNN and NCCL per CUDA, they become
// requirements of every build of that minor and variant (wide keys, see
// db.BuildKey.IsWide), and outrank pins read from main-branch or nightly
// workflow snapshots (pytorch-build-matrix). Published wheel metadata
// (pytorch-lockfiles) outranks them; each disagreement is a conflict.
type ReleaseMD struct{}

var (
	releaseDoc = doc{
		live: "https://raw.githubusercontent.com/pytorch/pytorch/main/RELEASE.md",
		page: "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
		snap: "raw/pytorch_RELEASE.md@799d09f2.md",
	}
	// releaseCapture is a newer copy of the same sections (rows to 2.14).
	releaseCapture = doc{page: releaseDoc.page, capture: "RELEASE.md@2026-09-18.md"}
)

func (ReleaseMD) Name() string { return "pytorch-release-md" }
func (ReleaseMD) URL() string  { return releaseDoc.page }

func (s ReleaseMD) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	recs, err := releaseDoc.scrape(ctx, in, "the release compatibility matrix", parseReleaseMD)
	if err != nil || in.Fetcher != nil {
		return recs, err
	}
	// Snapshot mode: the newer capture's rows replace the snapshot's rows
	// of the same minor (the page is edited in place).
	newer, err := releaseCapture.scrape(ctx, in, "the release compatibility matrix", parseReleaseMD)
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]bool{}
	for _, r := range newer {
		seen[[2]string{r.Table, r.Key}] = true
	}
	for _, r := range recs {
		if !seen[[2]string{r.Table, r.Key}] {
			newer = append(newer, r)
		}
	}
	edits, err := scrapeSupportEdits(ctx, in)
	if err != nil {
		return nil, err
	}
	ptx, err := scrapeQuoted(ctx, in, releasePTXDocs)
	if err != nil {
		return nil, err
	}
	return append(append(newer, edits...), ptx...), nil
}

var reArchFor = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`For Release ([0-9., and]+?) PyTorch Supports following CUDA Architectures`)
})

// parseReleaseMD reads the compatibility table (required) and the CUDA
// support tables (optional: older copies have none).
func parseReleaseMD(src []byte, ref string) ([]scraper.Record, error) {
	recs, err := parseReleaseMatrix(src, ref)
	if err != nil {
		return nil, err
	}
	return append(recs, parseCUDASupport(src, ref)...), nil
}

// parseCUDASupport reads the "PyTorch CUDA Support Matrix" tables: the
// architectures per CUDA of the releases the heading names.
func parseCUDASupport(src []byte, ref string) []scraper.Record {
	m := reArchFor().FindSubmatch(src)
	if m == nil {
		return nil
	}
	var recs []scraper.Record
	releases := strings.Join(regexp.MustCompile(`\d+\.\d+`).FindAllString(string(m[1]), -1), ";")
	if releases == "" {
		return nil // a heading that names no release says nothing about one
	}
	for _, t := range readTables(src) {
		if len(t.Header) < 2 || !strings.EqualFold(t.Header[0], "CUDA") || !strings.HasPrefix(strings.ToLower(t.Header[1]), "architectures supported for") {
			continue
		}
		host := "x86_64"
		if strings.Contains(strings.ToLower(t.Header[1]), "aarch64") {
			host = "aarch64"
		}
		for _, r := range t.Rows {
			if len(r.Cells) < 2 {
				continue
			}
			recs = append(recs, scraper.Record{Table: "cuda_arch", Key: host + "|" + r.Cells[0],
				Ref:    fmt.Sprintf("%s:%d (PyTorch CUDA Support Matrix)", ref, r.Line),
				Fields: map[string]string{"releases": releases, "host": host, "cuda": r.Cells[0], "architectures": r.Cells[1], "row": r.Text}})
		}
	}
	return recs
}

func parseReleaseMatrix(src []byte, ref string) ([]scraper.Record, error) {
	for _, t := range readTables(src) {
		if len(t.Header) < 2 || !strings.EqualFold(strings.TrimSpace(t.Header[0]), "PyTorch version") {
			continue
		}
		var recs []scraper.Record
		for _, r := range t.Rows {
			fields := map[string]string{"row": r.Text}
			for i, h := range t.Header {
				if i < len(r.Cells) {
					fields[strings.ToLower(strings.TrimSpace(h))] = r.Cells[i]
				}
			}
			key := fields["pytorch version"]
			recs = append(recs, scraper.Record{Table: "compatibility", Key: key,
				Ref: fmt.Sprintf("%s:%d (Release Compatibility Matrix)", ref, r.Line), Fields: fields})
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("the compatibility table has no rows")
		}
		return recs, nil
	}
	return nil, fmt.Errorf("no table headed 'PyTorch version' found")
}

var (
	reCUDACell  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)CUDA\s+(\d+\.\d+)`) })
	reCUDNNCell = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)CUDNN\s+(\d+(?:\.\d+)+)`) })
	reNCCLCell  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)NCCL\s+(\d+(?:\.\d+)+)`) })
	reCellToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)CUDA\s+\d+\.\d+|CUDNN\s+\d+(?:\.\d+)+|NCCL\s+\d+(?:\.\d+)+`)
	})
	rePerCUDA = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^CUDA\s+\d+\.\d+\s*\(CUDNN\s+\d+(?:\.\d+)+\)(\s*\(NCCL\s+\d+(?:\.\d+)+\))?$`)
	})
	rePyMin = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`>=\s*(\d+\.\d+)`) })
	rePyMax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<=\s*\(?\s*(\d+\.\d+)`) })
)

// cudaLibs is what a row says about one CUDA: its cuDNN and NCCL, and
// whether the cell names them for this CUDA alone.
type cudaLibs struct {
	cudnn, nccl string
	exact       bool
}

// cudnnByCUDA reads a cell such as "CUDA 11.8, CUDNN 8.7.0.84",
// "CUDA 12.6 (CUDNN 9.10.2.21), CUDA 12.8 (CUDNN 9.10.2.21)" or
// "CUDA 13.0 (CUDNN 9.15.1.9) (NCCL 2.28.9)". A cuDNN or NCCL applies to
// the CUDA versions before it that have none yet; only an entry written
// "CUDA x (CUDNN y) [(NCCL z)]" is exact (the cell "CUDA 11.8, CUDA 12.4
// (CUDNN 9.1.0.70)" is ambiguous upstream: both get 9.1.0.70, not exact).
func cudnnByCUDA(cell string) map[string]cudaLibs {
	out := map[string]cudaLibs{}
	exact := map[string]bool{}
	for _, part := range strings.Split(cell, ",") {
		part = strings.TrimSpace(part)
		if m := reCUDACell().FindStringSubmatch(part); m != nil && rePerCUDA().MatchString(part) {
			exact[m[1]] = true
		}
	}
	var pending, last []string
	for _, tok := range reCellToken().FindAllString(cell, -1) {
		up := strings.ToUpper(tok)
		switch {
		case strings.HasPrefix(up, "CUDNN"):
			for _, c := range pending {
				l := out[c]
				l.cudnn = reCUDNNCell().FindStringSubmatch(tok)[1]
				out[c] = l
			}
			last, pending = pending, nil
		case strings.HasPrefix(up, "NCCL"):
			for _, c := range last {
				l := out[c]
				l.nccl = reNCCLCell().FindStringSubmatch(tok)[1]
				out[c] = l
			}
		default:
			c := reCUDACell().FindStringSubmatch(tok)[1]
			pending = append(pending, c)
			if _, ok := out[c]; !ok {
				out[c] = cudaLibs{}
			}
		}
	}
	for c, l := range out {
		l.exact = exact[c] && l.cudnn != ""
		out[c] = l
	}
	return out
}

func (s ReleaseMD) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	noPTX := map[string]scraper.Record{}
	for _, r := range recs {
		if r.Table == "release_ptx" {
			noPTX[r.Fields["minor"]+"|"+r.Fields["variant"]] = r
		}
	}
	for _, r := range recs {
		switch r.Table {
		case "compatibility":
			s.row(f, r)
		case "cuda_arch":
			archRow(f, r, noPTX)
		case "release_ptx":
		default:
			f.refuse(r, "unknown table "+r.Table)
		}
	}
	if len(f.out.Attributes) == 0 {
		return nil, fmt.Errorf("no usable rows among %d records", len(recs))
	}
	return f.result(), nil
}

func (s ReleaseMD) row(f *facts, r scraper.Record) {
	minor := strings.TrimSpace(r.Fields["pytorch version"])
	if !reMinor().MatchString(minor) {
		f.refuse(r, "version cell is not a torch minor version")
		return
	}
	p := f.prov(releaseDoc.page, r.Ref)
	set := func(key, val string) {
		if val = strings.TrimSpace(val); val != "" {
			f.attr(db.Attribute{Component: "torch", Version: minor, Key: key, Value: val, Provenance: p})
		}
	}
	set("release_md_row", r.Fields["row"])
	py := r.Fields["python"]
	var pyMin, pyMax string
	if m := rePyMin().FindStringSubmatch(py); m != nil {
		pyMin = m[1]
		set("python_min", pyMin)
	}
	if m := rePyMax().FindStringSubmatch(py); m != nil {
		pyMax = m[1]
		set("python_max", pyMax)
	}
	set("cxx_standard", r.Fields["c++"])
	set("rocm_stable", r.Fields["stable rocm"])
	for col, role := range map[string]string{"stable cuda": "stable", "experimental cuda": "experimental"} {
		for cuda, l := range cudnnByCUDA(r.Fields[col]) {
			v := variantOfCUDA(cuda)
			set("cuda."+v, role)
			set("cudnn."+v, l.cudnn)
			set("nccl."+v, l.nccl)
			if l.exact {
				libsOfMinor(f, minor, v, l, p)
			}
		}
	}
	// The Python range fills builds of the minor that no source gave one.
	if pyMin != "" && pyMax != "" {
		f.out.Builds = append(f.out.Builds, db.Build{Component: "torch", Version: minor + ".*", Variant: db.AnyBuild,
			Platform: db.AnyBuild, PythonMin: pyMin, PythonMax: pyMax, Provenance: p})
	}
}

// libsOfMinor turns one exact "CUDA x (CUDNN y) (NCCL z)" entry into
// requirements of every build of the minor with that variant: the cuDNN
// and NCCL the Linux x86-64 wheels pin, the cuDNN the Windows wheels
// bundle. The nvidia-* package pins themselves are not claimed: a pin
// list is the wheel's Requires-Dist, and the row names only two of them.
func libsOfMinor(f *facts, minor, variant string, l cudaLibs, p db.Provenance) {
	linux := db.BuildKey{Component: "torch", Version: minor + ".*", Variant: variant, Platform: "linux"}
	f.require(db.Requirement{Build: linux, Needs: "cudnn", Spec: l.cudnn, Kind: db.KindPin, Provenance: p})
	if l.nccl != "" {
		f.require(db.Requirement{Build: linux, Needs: "nccl", Spec: l.nccl, Kind: db.KindPin, Provenance: p})
	}
	win := db.BuildKey{Component: "torch", Version: minor + ".*", Variant: variant, Platform: "windows"}
	f.require(db.Requirement{Build: win, Needs: "cudnn", Spec: l.cudnn, Kind: db.KindBundled, Provenance: p})
	// The row lists the CUDA variants the release ships: each is a build
	// of every release of the minor, on Linux x86-64 and Windows.
	for _, plat := range []string{"linux", "windows"} {
		f.out.Builds = append(f.out.Builds, db.Build{Component: "torch", Version: minor + ".*", Variant: variant, Platform: plat,
			CUDA: cudaOfVariant(variant), IndexURL: downloadBase + variant, EachRelease: true, Provenance: p})
	}
}

var reArchCC = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+\.\d+)(\+PTX)?`) })

// archRow turns a CUDA Support Matrix row ("13.0.2 | Turing(7.5), ...,
// Blackwell(10.0, 12.0+PTX) | +PTX available on linux builds only") into
// the arch list of every build of the named releases with that variant.
func archRow(f *facts, r scraper.Record, noPTX map[string]scraper.Record) {
	cuda := r.Fields["cuda"]
	variant := variantOfCUDA(cuda)
	var ccs []string
	for _, m := range reArchCC().FindAllStringSubmatch(r.Fields["architectures"], -1) {
		ccs = append(ccs, m[1]+m[2])
	}
	if variant == "" || len(ccs) == 0 {
		f.refuse(r, "no CUDA version or no architectures in the row")
		return
	}
	linuxList, err := archList(strings.Join(ccs, ";"))
	if err != nil || linuxList == "" {
		f.refuse(r, fmt.Sprintf("unusable architectures: %v", err))
		return
	}
	plats := map[string]string{"linux-aarch64": linuxList}
	if r.Fields["host"] == "x86_64" {
		plats = map[string]string{"linux": linuxList}
		// "+PTX available on linux builds only": the Windows list is the
		// same without the PTX entry.
		win, _ := archList(strings.ReplaceAll(strings.Join(ccs, ";"), "+PTX", ""))
		plats["windows"] = win
	}
	url := releaseDoc.page
	if r.URL != "" {
		url = r.URL // a maintainers' RELEASE.md edit quoted in its pull request
	}
	p := f.prov(url, r.Ref)
	for _, minor := range strings.Split(r.Fields["releases"], ";") {
		if !reMinor().MatchString(minor) {
			continue
		}
		for plat, list := range plats {
			ref := r.Ref
			if np, ok := noPTX[minor+"|"+variant]; ok && plat == "linux" && stripPTX(list) != list {
				// The release wheels of this line ship without PTX.
				list, ref = stripPTX(list), r.Ref+"; without +PTX in release wheels: "+np.Fields["evidence"]+" ("+np.Ref+")"
			}
			// The aarch64 table is headed "architectures supported for
			// Linux aarch64 builds": the release team's statement that the
			// releases it names ship a Linux aarch64 build of that CUDA
			// variant, so each is a build of every release of the minor
			// (the x86-64 and Windows builds come from the compatibility
			// row; this table only gives them their lists).
			bp := p
			bp.Ref = ref
			f.out.Builds = append(f.out.Builds, db.Build{Component: "torch", Version: minor + ".*", Variant: variant,
				Platform: plat, CUDA: cudaOfVariant(variant), ArchList: list, IndexURL: downloadBase + variant,
				EachRelease: plat == "linux-aarch64", Provenance: bp})
		}
	}
}
