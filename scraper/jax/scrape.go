// Package jax is the source for JAX's CUDA builds: the "Built with /
// Compatible with" tables and driver floors of docs/installation.md (one
// snapshot per release tag that has one), and three CSV fact tables
// generated from the release tags (the cuda extras of jax's setup.py, the
// nvidia-* pins of the extras and plugins, and the CUDA/cuDNN versions
// the build config names).
package jax

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/mdtab"
	"github.com/cudb/cudb/scraper/internal/srcio"
)

// Source is the JAX source.
type Source struct{}

// Name implements scraper.Source.
func (Source) Name() string { return "jax" }

// URL implements scraper.Source.
func (Source) URL() string { return "https://docs.jax.dev/en/latest/installation.html" }

// Accumulates: the live page describes the current release only, so a
// live refresh keeps the rows of earlier releases (scraper.Accumulator).
func (Source) Accumulates() bool { return true }

const liveInstall = "https://raw.githubusercontent.com/jax-ml/jax/main/docs/installation.md"

// livePyPI names the release the live install page describes: the page
// on main is the current release's, and does not say which one that is.
const livePyPI = "https://pypi.org/pypi/jax/json"

// currentRelease reads info.version from PyPI's JSON for jax.
func currentRelease(ctx context.Context, in scraper.Input) (string, error) {
	b, err := in.Fetcher.Get(ctx, livePyPI)
	if err != nil {
		return "", err
	}
	var doc struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("failed to read the current jax release from %s: %w", livePyPI, err)
	}
	if _, err := version.Parse(doc.Info.Version); err != nil {
		return "", fmt.Errorf("failed to read the current jax release from %s: info.version %q: %w", livePyPI, doc.Info.Version, err)
	}
	return doc.Info.Version, nil
}

// Record tables.
const (
	tableWheel  = "install_wheel"  // one wheel's built-with / compatible-with versions
	tableDriver = "driver_floor"   // ">= 525.60.13 for CUDA 12"
	tableExtra  = "extra_require"  // jax_cuda_extras_requirements.csv
	tablePin    = "nvidia_pin"     // jax_cuda_nvidia_pins.csv
	tableBazel  = "build_versions" // jax_build_cuda_versions.csv
)

// doc is one snapshot of the install page, tied to the release it
// describes. main HEAD (cec06d116) is identical to jax-v0.11.0, so it is
// the newest and describes 0.11.0; each older tag describes its own
// release only (the page is not carried forward to releases in between).
type doc struct {
	file, release, commit string
}

var docs = []doc{
	{"installation.md@cec06d116.md", "0.11.0", "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5"},
	{"installation.md@jax-v0.8.0_403977d2e.md", "0.8.0", "jax-v0.8.0"},
	{"installation.md@jax-v0.7.1_5712de44e.md", "0.7.1", "jax-v0.7.1"},
	{"installation.md@jax-v0.4.31_7fd930278.md", "0.4.31", "jax-v0.4.31"},
	{"installation.md@jax-v0.4.30_f4158ace9.md", "0.4.30", "jax-v0.4.30"},
	{"installation.md@jax-v0.4.26_fed7efd73.md", "0.4.26", "jax-v0.4.26"},
	{"installation.md@jax-v0.4.17_4cb5eeee5.md", "0.4.17", "jax-v0.4.17"},
	// Before installation.md existed the README carried the same section.
	{"README.md@jax-v0.4.16_d477b9212.md", "0.4.16", "jax-v0.4.16"},
}

func (d doc) url() string {
	page := "docs/installation.md"
	if strings.HasPrefix(d.file, "README") {
		page = "README.md"
	}
	return "https://github.com/jax-ml/jax/blob/" + d.commit + "/" + page
}

func (d doc) ref() string { return strings.TrimSuffix(d.file, ".md") }

var csvFiles = []struct {
	table, file string
	cols        []string
	key         []string
}{
	{tableExtra, "jax_cuda_extras_requirements.csv", []string{"jax_version", "git_tag", "commit", "source_path", "extra", "requirement_resolved"}, []string{"jax_version", "extra", "requirement_resolved"}},
	{tablePin, "jax_cuda_nvidia_pins.csv", []string{"jax_version", "git_tag", "commit", "source_path", "extra", "cuda_variant", "package", "spec", "notes"}, []string{"jax_version", "extra", "package"}},
	{tableBazel, "jax_build_cuda_versions.csv", []string{"jax_version", "git_tag", "commit", "source_path", "bazel_config_or_scope", "variable", "value"}, []string{"jax_version", "bazel_config_or_scope", "variable"}},
}

// Scrape implements scraper.Source. Live mode reads the current install
// page only; the CSV fact tables exist in snapshot mode (their live
// equivalents are the per-tag files and PyPI JSON named in SOURCES.md).
func (s Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	live := in.Snapshots == ""
	var recs []scraper.Record
	current := ""
	if live {
		var err error
		if current, err = currentRelease(ctx, in); err != nil {
			return nil, err
		}
	}
	for i, d := range docs {
		if live && i > 0 {
			break
		}
		b, err := srcio.Read(ctx, in, liveInstall, "jax/"+d.file)
		if err != nil {
			return nil, err
		}
		ref, url := d.ref(), d.url()
		if live {
			ref, url = "installation.md@"+current, liveInstall
		}
		wheels, err := Wheels(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.file, err)
		}
		for _, w := range wheels {
			f := w.Fields
			f["release"] = d.release
			if live {
				f["release"], f["release_from"] = current, livePyPI
			}
			recs = append(recs, scraper.Record{Table: tableWheel, Key: ref + "/" + w.Wheel, Ref: fmt.Sprintf("%s line %d (%s)", ref, w.Line, w.Section), URL: url, Fields: f})
		}
		floors, err := DriverFloors(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.file, err)
		}
		for _, fl := range floors {
			rel := d.release
			if live {
				rel = current
			}
			recs = append(recs, scraper.Record{Table: tableDriver, Key: ref + "/cuda" + fl.Major, Ref: ref, URL: url,
				Fields: map[string]string{"release": rel, "cuda_major": fl.Major, "min_driver": fl.MinDriver, "text": fl.Text}})
		}
	}
	if live {
		return recs, nil
	}
	pj, err := parsePJRT(pjrtCapture)
	if err != nil {
		return nil, fmt.Errorf("the captured plugin_setup.py lines: %w", err)
	}
	recs = append(recs, pj...)
	caps, err := parseCaps(capsCapture)
	if err != nil {
		return nil, fmt.Errorf("the captured .bazelrc lines: %w", err)
	}
	recs = append(recs, caps...)
	py, err := parsePython(pythonCapture)
	if err != nil {
		return nil, fmt.Errorf("the captured jaxlib/setup.py lines: %w", err)
	}
	recs = append(recs, py...)
	hr, err := parseHost(hostCapture)
	if err != nil {
		return nil, fmt.Errorf("the captured host report: %w", err)
	}
	recs = append(recs, hr...)
	for _, c := range csvFiles {
		b, err := srcio.Read(ctx, in, "", "jax/"+c.file)
		if err != nil {
			return nil, err
		}
		rows, err := srcio.CSV(b, c.cols...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.file, err)
		}
		seen := map[string]int{}
		for _, r := range rows {
			var parts []string
			for _, k := range c.key {
				parts = append(parts, r.Fields[k])
			}
			key := strings.Join(parts, "/")
			seen[key]++
			if seen[key] > 1 {
				key += fmt.Sprintf("#%d", seen[key])
			}
			recs = append(recs, scraper.Record{Table: c.table, Key: key, Ref: fmt.Sprintf("%s line %d", c.file, r.Line), URL: csvURL(r.Fields), Fields: r.Fields})
		}
	}
	return recs, nil
}

func csvURL(f map[string]string) string {
	if f["commit"] == "" || f["source_path"] == "" {
		return ""
	}
	return "https://github.com/jax-ml/jax/blob/" + f["commit"] + "/" + f["source_path"]
}

// Wheel is one CUDA wheel the install page describes.
type Wheel struct {
	Wheel   string // cuda12, cuda13, cuda11
	Section string
	Line    int
	Fields  map[string]string // built_cuda, compat_cuda, built_cudnn, compat_cudnn, built_nccl, compat_nccl
}

var (
	introRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)CUDA (\d+) wheel`) })
	cellRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(CUDA|CUDNN|NCCL)\s+(.+)$`) })
	bulletRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*\* CUDA (\d+)\.(\d+) and Cu[Dd][Nn][Nn] (\d+(?:\.\d+)*)\.?\s*$`)
	})
)

// Wheels reads the "Built with | Compatible with" tables (0.4.26 on; a
// table is tied to a wheel by the "The CUDA NN wheel is:" line before it,
// or to CUDA 12 when the page lists one wheel) and, for older pages, the
// "* CUDA 12.2 and CuDNN 8.9.4." bullets.
func Wheels(src []byte) ([]Wheel, error) {
	tables, err := mdtab.PipeTables(src)
	if err != nil {
		return nil, err
	}
	var out []Wheel
	for _, t := range tables {
		if len(t.Header) != 2 || !strings.EqualFold(strings.TrimSpace(t.Header[0]), "Built with") || !strings.EqualFold(strings.TrimSpace(t.Header[1]), "Compatible with") {
			continue
		}
		wheel := "cuda12"
		if m := introRE().FindStringSubmatch(t.Intro); m != nil {
			wheel = "cuda" + m[1]
		}
		if len(t.Rows) == 0 {
			return nil, fmt.Errorf("line %d: the Built with/Compatible with table has no rows", t.Line)
		}
		w := Wheel{Wheel: wheel, Section: t.Section(), Line: t.Line, Fields: map[string]string{}}
		for _, r := range t.Rows {
			if len(r.Cells) != 2 {
				return nil, fmt.Errorf("line %d: %d cells in a Built with/Compatible with row", r.Line, len(r.Cells))
			}
			for i, prefix := range []string{"built_", "compat_"} {
				m := cellRE().FindStringSubmatch(strings.TrimSpace(r.Cells[i]))
				if m == nil {
					return nil, fmt.Errorf("line %d: cell %q names no CUDA, CUDNN or NCCL version", r.Line, r.Cells[i])
				}
				w.Fields[prefix+strings.ToLower(m[1])] = strings.TrimSpace(m[2])
			}
		}
		for _, o := range out {
			if o.Wheel == w.Wheel {
				return nil, fmt.Errorf("line %d: a second table for the %s wheel", t.Line, wheel)
			}
		}
		out = append(out, w)
	}
	if len(out) > 0 {
		return out, nil
	}
	text := string(src)
	for _, m := range bulletRE().FindAllStringSubmatchIndex(text, -1) {
		major := text[m[2]:m[3]]
		out = append(out, Wheel{Wheel: "cuda" + major, Section: "wheel list",
			Line:   strings.Count(text[:m[0]], "\n") + 1,
			Fields: map[string]string{"built_cuda": major + "." + text[m[4]:m[5]], "built_cudnn": text[m[6]:m[7]]}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no Built with/Compatible with table and no CUDA wheel list")
	}
	return out, nil
}

// Floor is a driver minimum per CUDA major.
type Floor struct{ Major, MinDriver, Text string }

var floorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`>= ?(\d+(?:\.\d+)*) for CUDA (\d+)`) })

// DriverFloors reads the page's driver sentence.
func DriverFloors(src []byte) ([]Floor, error) {
	text := strings.Join(strings.Fields(string(src)), " ")
	var out []Floor
	for _, m := range floorRE().FindAllStringSubmatch(text, -1) {
		out = append(out, Floor{Major: m[2], MinDriver: m[1], Text: m[0]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no driver floor sentence (\">= NNN for CUDA NN\")")
	}
	return out, nil
}
