package driverbranch

import (
	"bufio"
	"bytes"
	"embed"
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

// Captured statements about branches the data-center table read so far
// does not describe (R615): trimmed copies of published text, read in
// snapshot mode after the curated CSV (captures/CAPTURES.md).
//
//go:embed captures/*.md captures/*.txt
var captures embed.FS

// Record tables of the captures.
const (
	TableToolkitBranch = "toolkit_branch" // CUDA X.Y → driver branch
	TableBranchRelease = "branch_release" // branch type and first release date
	TableBranchText    = "branch_text"    // a text rendering of the data-center table
)

var captureDocs = []struct {
	file, url string
	parse     func(b []byte, file, url string) ([]scraper.Record, error)
}{
	{"toolkit-branches@pytorch-ci-infra-685e55c.md", "https://github.com/pytorch/ci-infra/blob/685e55c2a125d4a97e6c6cfa239eb5c6a67d000c/osdc/docs/nvidia-driver-ahead-of-aws.md", ParseToolkitBranches},
	{"releases@endoflife-date-pr-10992.md", "https://github.com/endoflife-date/endoflife.date/pull/10992", ParseBranchReleases},
	{"supported-drivers@620.txt", "https://docs.nvidia.com/datacenter/tesla/drivers/620/supported-drivers-and-cuda-toolkit-versions.html", ParseTableText},
}

func scrapeCaptures() ([]scraper.Record, error) {
	var out []scraper.Record
	for _, d := range captureDocs {
		b, err := captures.ReadFile("captures/" + d.file)
		if err != nil {
			return nil, err
		}
		recs, err := d.parse(b, d.file, d.url)
		if err != nil {
			return nil, fmt.Errorf("capture %s: %w", d.file, err)
		}
		out = append(out, recs...)
	}
	return out, nil
}

var (
	cellBranchRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\**R(\d{3})\**$`) })
	cellCUDARe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\**(\d+\.\d+)\**$`) })
	labelRe      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`releaseLabel:\s*"R(\d{3})-(?:Linux|Windows)\s*\((NFB|PB|LTSB?)\)"`)
	})
	dateRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`releaseDate:\s*(\d{4}-\d{2}-\d{2})`) })
)

// ParseToolkitBranches reads a markdown table whose header names "CUDA"
// and "Driver branch": one record per toolkit minor.
func ParseToolkitBranches(b []byte, file, url string) ([]scraper.Record, error) {
	var out []scraper.Record
	cCUDA, cBranch := -1, -1
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cCUDA < 0 {
			for i, c := range cells {
				switch strings.ToLower(c) {
				case "cuda":
					cCUDA = i
				case "driver branch":
					cBranch = i
				}
			}
			if cCUDA < 0 || cBranch < 0 {
				cCUDA, cBranch = -1, -1
			}
			continue
		}
		if cCUDA >= len(cells) || cBranch >= len(cells) || strings.Trim(cells[cCUDA], "-: ") == "" {
			continue
		}
		cu, br := cellCUDARe().FindStringSubmatch(cells[cCUDA]), cellBranchRe().FindStringSubmatch(cells[cBranch])
		if cu == nil || br == nil {
			return nil, fmt.Errorf("line %d: unreadable row %q", n, line)
		}
		out = append(out, scraper.Record{Table: TableToolkitBranch, Key: cu[1], URL: url, Ref: fmt.Sprintf("%s:%d", file, n),
			Fields: map[string]string{"cuda": cu[1], "branch": "R" + br[1]}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no table with CUDA and Driver branch columns")
	}
	return out, nil
}

// ParseBranchReleases reads endoflife.date release-cycle lines: a
// releaseLabel "R615-Windows (NFB)" and the releaseDate that follows it.
func ParseBranchReleases(b []byte, file, url string) ([]scraper.Record, error) {
	var out []scraper.Record
	var cur *scraper.Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := labelRe().FindStringSubmatch(line); m != nil {
			out = append(out, scraper.Record{Table: TableBranchRelease, Key: "R" + m[1], URL: url, Ref: fmt.Sprintf("%s:%d", file, n),
				Fields: map[string]string{"branch": "R" + m[1], "type": m[2]}})
			cur = &out[len(out)-1]
			continue
		}
		if m := dateRe().FindStringSubmatch(line); m != nil && cur != nil {
			cur.Fields["released"] = m[1]
			cur = nil
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no releaseLabel naming a driver branch")
	}
	return out, nil
}

// ParseTableText reads a text rendering of the transposed "CUDA and
// Drivers" table, one cell per line: the caption, the branch names (R580,
// R595, ...), then each attribute row's title followed by one value per
// branch. Lines starting with "#" are comments.
func ParseTableText(b []byte, file, url string) ([]scraper.Record, error) {
	var cells []string
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells, lines = append(cells, line), append(lines, n)
	}
	start := -1
	for i, c := range cells {
		if strings.Contains(c, "CUDA and Drivers") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, errors.New(`no "CUDA and Drivers" caption`)
	}
	var branches []string
	i := start
	for ; i < len(cells) && branchRe().MatchString(cells[i]); i++ {
		branches = append(branches, cells[i])
	}
	if len(branches) == 0 {
		return nil, errors.New("the CUDA and Drivers table names no branch")
	}
	attrs := map[string]string{"designation": "branch_type", "end of life": "end_of_life", "maximum cuda": "max_cuda_datacenter_doc"}
	recs := make([]scraper.Record, len(branches))
	for j, br := range branches {
		recs[j] = scraper.Record{Table: TableBranchText, Key: br, URL: url, Ref: fmt.Sprintf("%s:%d", file, lines[start+j]),
			Fields: map[string]string{"branch": br}}
	}
	found := 0
	for i < len(cells) {
		field := ""
		for k, f := range attrs {
			if strings.Contains(strings.ToLower(cells[i]), k) {
				field = f
			}
		}
		if field == "" {
			break // the note under the table
		}
		if i+len(branches) >= len(cells) {
			return nil, fmt.Errorf("row %q has fewer cells than branches", cells[i])
		}
		for j := range branches {
			recs[j].Fields[field] = cells[i+1+j]
		}
		found++
		i += 1 + len(branches)
	}
	if found == 0 {
		return nil, errors.New("the CUDA and Drivers table has no designation, end-of-life or maximum-CUDA row")
	}
	return recs, nil
}

func conflictNote(r scraper.Record) string {
	if r.Table == TableBranchText {
		return "another edition of NVIDIA's data-center table says otherwise"
	}
	return "a third-party quote of NVIDIA's notes disagrees with the data-center table"
}

var branchTypes = map[string]string{"NFB": "New Feature Branch", "PB": "Production Branch", "LTS": "Long Term Support Branch", "LTSB": "Long Term Support Branch"}

// captured folds the captures' records into the branches the table rows
// gave: an empty field is filled, a different value is a conflict (the
// table, NVIDIA's own, is kept), and a branch no table row names is
// added.
func captured(f *db.Facts, recs []scraper.Record) {
	byBranch := map[string]int{}
	for i, b := range f.DriverBranches {
		byBranch[b.Branch] = i
	}
	branch := func(r scraper.Record) *db.DriverBranch {
		num := strings.TrimPrefix(r.Fields["branch"], "R")
		i, ok := byBranch[num]
		if !ok {
			f.DriverBranches = append(f.DriverBranches, db.DriverBranch{Branch: num, Provenance: nvsrc.Prov(Name, r)})
			i = len(f.DriverBranches) - 1
			byBranch[num] = i
		}
		return &f.DriverBranches[i]
	}
	fill := func(b *db.DriverBranch, field string, dst *string, val string, r scraper.Record) {
		switch {
		case val == "" || *dst == val:
		case *dst == "":
			*dst = val
		default:
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "driver_branch " + b.Branch, Field: field, Kept: *dst, KeptSource: Name,
				Other: val, OtherSource: Name + " (" + r.Ref + ")", Note: conflictNote(r)})
		}
	}
	// The newest toolkit a branch is mapped to is its maximum CUDA; each
	// mapping is kept, with its citation, on the toolkit ("CUDA 13.4
	// needs R615 or later for its new features").
	newest := map[string]scraper.Record{}
	for _, r := range recs {
		if r.Table != TableToolkitBranch {
			continue
		}
		f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: r.Fields["cuda"], Key: "driver_branch",
			Value: r.Fields["branch"] + " or later (the toolkit's new features need it; older drivers of the major run it under minor-version compatibility)", Provenance: nvsrc.Prov(Name, r)})
		if old, ok := newest[r.Fields["branch"]]; !ok || version.DottedKey(r.Fields["cuda"]) > version.DottedKey(old.Fields["cuda"]) {
			newest[r.Fields["branch"]] = r
		}
	}
	names := make([]string, 0, len(newest))
	for n := range newest {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := newest[n]
		b := branch(r)
		fill(b, "max_cuda", &b.MaxCUDA, r.Fields["cuda"], r)
	}
	// NVIDIA's own table (a text capture of a newer edition): type and
	// end of life; its maximum CUDA is a major only, which the precise
	// sources (toolkit table, driver manifests) state better.
	for _, r := range recs {
		if r.Table != TableBranchText {
			continue
		}
		b := branch(r)
		fill(b, "branch_type", &b.BranchType, r.Fields["branch_type"], r)
		fill(b, "end_of_life", &b.EndOfLife, r.Fields["end_of_life"], r)
		f.Attributes = append(f.Attributes, db.Attribute{Component: "driver", Version: r.Fields["branch"], Key: "datacenter_table",
			Value:      strings.Join([]string{r.Fields["branch_type"], "end of life " + r.Fields["end_of_life"], r.Fields["max_cuda_datacenter_doc"]}, "; "),
			Provenance: nvsrc.Prov(Name, r)})
	}
	for _, r := range recs {
		if r.Table != TableBranchRelease {
			continue
		}
		b := branch(r)
		fill(b, "branch_type", &b.BranchType, branchTypes[r.Fields["type"]], r)
		f.Attributes = append(f.Attributes, db.Attribute{Component: "driver", Version: "R" + b.Branch, Key: "branch_type",
			Value: branchTypes[r.Fields["type"]] + " (" + r.Fields["type"] + ")", Provenance: nvsrc.Prov(Name, r)})
		if d := r.Fields["released"]; d != "" {
			f.Attributes = append(f.Attributes, db.Attribute{Component: "driver", Version: "R" + b.Branch, Key: "released", Value: d, Provenance: nvsrc.Prov(Name, r)})
		}
	}
}
