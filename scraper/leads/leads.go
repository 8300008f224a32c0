// Package leads records releases that public evidence shows but no fact
// source describes yet: "known release, facts pending". Each lead names a
// release (torch 2.15.0 seen on PyPI, cuDNN 9.28.0 in NVIDIA's redist
// manifests, the R620 driver branch) and where it was seen, with how
// strong that evidence is. A lead becomes a release row and a
// "reported_by" attribute, never a fact about the release (no builds,
// pins, floors or dates beyond the month it names): resolve and verify
// answer "unknown" for such a release, and the fact sources replace it as
// soon as they describe it (this source has the lowest precedence).
//
// Live, the newest release of each Python line comes from PyPI's JSON API
// (info.version of https://pypi.org/pypi/<name>/json). From snapshots,
// the leads file leads-<yyyy>-<mm>.csv beside the family folders.
package leads

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Source is the leads source.
type Source struct{}

// Name is the source's stable name.
const Name = "leads"

// PyPIURL is the JSON API document of a project.
const PyPIURL = "https://pypi.org/pypi/%s/json"

// Packages are the Python lines whose newest release PyPI names, by
// canonical component.
var Packages = map[string]string{
	"torch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio", "tensorflow": "tensorflow",
	"jax": "jax", "jaxlib": "jaxlib", "onnxruntime-gpu": "onnxruntime-gpu",
}

// Accumulates: a live scrape names only each line's newest release; the
// older leads stay until a fact source describes them.
func (Source) Accumulates() bool { return true }

func (Source) Name() string { return Name }
func (Source) URL() string  { return "https://pypi.org/" }

func (s Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Fetcher != nil {
		return scrapePyPI(ctx, in.Fetcher)
	}
	files, err := filepath.Glob(filepath.Join(in.Snapshots, "leads-*.csv"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no leads-<yyyy>-<mm>.csv in %s", in.Snapshots)
	}
	sort.Strings(files)
	var out []scraper.Record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		recs, err := ParseCSV(b, filepath.Base(f))
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", filepath.Base(f), err)
		}
		out = append(out, recs...)
	}
	return out, nil
}

func scrapePyPI(ctx context.Context, f scraper.Fetcher) ([]scraper.Record, error) {
	names := make([]string, 0, len(Packages))
	for n := range Packages {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []scraper.Record
	for _, n := range names {
		url := fmt.Sprintf(PyPIURL, n)
		b, err := f.Get(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("failed to fetch %s: %w", url, err)
		}
		v, err := ParsePyPI(b)
		if err != nil {
			return nil, fmt.Errorf("failed to read the newest release from %s: %w", url, err)
		}
		out = append(out, scraper.Record{Table: "release", Key: Packages[n] + "==" + v, URL: url, Ref: "info.version",
			Fields: map[string]string{"component": Packages[n], "version": v, "evidence": "PyPI JSON API (newest release)", "strength": "registry"}})
	}
	return out, nil
}

// ParsePyPI returns info.version of a PyPI JSON API project document.
func ParsePyPI(b []byte) (string, error) {
	var doc struct {
		Info *struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("not a PyPI JSON document: %w", err)
	}
	if doc.Info == nil || doc.Info.Version == "" {
		return "", errors.New("no info.version (the JSON API format changed?)")
	}
	if !reVersion().MatchString(doc.Info.Version) {
		return "", fmt.Errorf("info.version %q is not a version", doc.Info.Version)
	}
	return doc.Info.Version, nil
}

var (
	reVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+(\.\d+){1,3}$`) })
	reFirst   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(\d+\.\d+(?:\.\d+){0,2})\b(?:\s*\((\d{4}-\d{2}(?:-\d{2})?)\))?`)
	})
	// reRelease is a final release's version (2.14.0, 1.31.0), not a
	// line (2.14) or a pre-release (2.22.0rc0).
	reRelease = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+$`) })
	reBranch  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^R(\d{3})$`) })
)

// lines maps a lead's line to the component its releases belong to.
var lines = map[string]string{"cudnn": "cudnn", "cuda": "cuda", "jax": "jax"}

// frameworkLines maps a framework's lead line to its component. A row of
// such a line whose subject is a release (X.Y.Z) names that release, even
// when its fact is one the fact sources must confirm (the CUDA of a PyPI
// build): the release is known, its facts are not.
var frameworkLines = map[string]string{"torch": "torch", "tensorflow": "tensorflow", "jax": "jax", "onnxruntime": "onnxruntime-gpu"}

// ParseCSV reads the leads file: line,subject,fact,value,source,strength.
// Each row naming a release (a PyPI line's newest release, a cuDNN
// manifest, a CUDA release, a driver branch, jax releases) is a record;
// rows stating facts about a release (pins, CUDA of a build, a GPU's
// compute capability) are not leads for a release and are skipped: those
// facts are for the fact sources to confirm.
func ParseCSV(b []byte, file string) ([]scraper.Record, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("no header: %w", err)
	}
	want := []string{"line", "subject", "fact", "value", "source", "strength"}
	if strings.Join(head, ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("header %q, want %q", strings.Join(head, ","), strings.Join(want, ","))
	}
	var out []scraper.Record
	seen := map[string]bool{}
	for n := 2; ; n++ {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(row) < len(want) {
			return nil, fmt.Errorf("line %d: %d fields, want %d", n, len(row), len(want))
		}
		if len(row) > len(want) {
			// an unquoted comma inside the value: the last two fields
			// are the source and strength, the rest is the value.
			row = append(append(row[:3:3], strings.Join(row[3:len(row)-2], ",")), row[len(row)-2:]...)
		}
		f := map[string]string{}
		for i, h := range want {
			f[h] = strings.TrimSpace(row[i])
		}
		ref := fmt.Sprintf("%s:%d", file, n)
		add := func(component, version, released, kind string) {
			key := component + "==" + version
			if seen[key] {
				return
			}
			seen[key] = true
			out = append(out, scraper.Record{Table: kind, Key: key, Ref: ref, Fields: map[string]string{
				"component": component, "version": version, "released": released,
				"evidence": f["source"], "strength": f["strength"], "lead": f["line"] + "," + f["subject"] + "," + f["fact"] + "," + f["value"]}})
		}
		switch {
		case f["line"] == "pypi" && strings.HasPrefix(f["fact"], "newest"):
			m := reFirst().FindStringSubmatch(f["value"])
			if m == nil {
				continue
			}
			for _, c := range strings.Split(f["subject"], "/") {
				if comp, ok := Packages[c]; ok {
					add(comp, m[1], m[2], "release")
				}
			}
		case f["line"] == "driver" && reBranch().MatchString(f["subject"]):
			m := reFirst().FindStringSubmatch(f["value"])
			released := ""
			if m != nil {
				released = m[2]
			}
			add("driver", reBranch().FindStringSubmatch(f["subject"])[1], released, "driver_branch")
		case lines[f["line"]] != "" && (f["fact"] == "manifest" || f["fact"] == "exist" || f["fact"] == "components"):
			m := reFirst().FindStringSubmatch(f["value"])
			released := ""
			if m != nil && f["fact"] == "manifest" {
				released = m[2]
			}
			for _, v := range strings.Split(f["subject"], "/") {
				if reVersion().MatchString(v) {
					add(lines[f["line"]], v, released, "release")
				}
			}
		case frameworkLines[f["line"]] != "" && reRelease().MatchString(f["subject"]):
			add(frameworkLines[f["line"]], f["subject"], "", "release")
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no lead names a release")
	}
	return out, nil
}

// Normalize turns leads into releases ("known release, facts pending")
// with the evidence as an attribute.
func (s Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	for _, r := range recs {
		c, v := r.Fields["component"], r.Fields["version"]
		p := db.Provenance{Source: Name, URL: r.URL, Ref: r.Ref}
		if !reVersion().MatchString(v) && r.Table != "driver_branch" {
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "lead " + r.Key, Field: "refused", Other: v, OtherSource: Name + " (" + r.Ref + ")", Note: "not a version"})
			continue
		}
		evidence := r.Fields["strength"] + ": " + r.Fields["evidence"]
		switch r.Table {
		case "release":
			released := r.Fields["released"]
			f.Releases = append(f.Releases, db.Release{Component: c, Version: v, ReleasedOn: released, Provenance: p})
			f.Attributes = append(f.Attributes, db.Attribute{Component: c, Version: v, Key: "reported_by", Value: evidence, Provenance: p})
		case "driver_branch":
			f.DriverBranches = append(f.DriverBranches, db.DriverBranch{Branch: v, Provenance: p})
			f.Attributes = append(f.Attributes, db.Attribute{Component: "driver", Version: "R" + v, Key: "reported_by", Value: evidence, Provenance: p})
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	return f, nil
}

// Fields implements scraper.Fielded: versions and release dates (a month
// "2026-10" or a day).
func (Source) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{
		"release":       {"version": scraper.VersionText, "released": scraper.DateText},
		"driver_branch": {"version": scraper.Pattern("a driver branch (615)", `\d{3}`), "released": scraper.DateText},
	}
}

// Canaries implements scraper.Canaried: leads of the snapshot's list.
func (Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.ReleaseCanary("torch", "2.15.0"),
		scraper.ReleaseCanary("cudnn", "9.28.0"),
	}
}
