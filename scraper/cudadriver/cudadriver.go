// Package cudadriver is the source of CUDA toolkit → minimum driver facts:
// Table 3 ("CUDA Toolkit and Corresponding Driver Versions") and Table 2
// (minor-version compatibility floors) of the CUDA toolkit release notes.
package cudadriver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "cudadriver"

// PageURL is the live release notes (latest edition; it carries the whole
// history in Table 3).
const PageURL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"

// CSVFile is the curated fact table in the snapshot directory.
const CSVFile = "cuda_driver.csv"

// Record tables.
const (
	TableToolkit     = "toolkit_driver" // live Table 3 rows
	TableMinorCompat = "minor_compat"   // live Table 2 rows
)

// Captions of the two tables, matched as text (numbers and ids move).
const (
	captionToolkit = "CUDA Toolkit and Corresponding Driver Versions"
	captionCompat  = "CUDA Toolkit and Minimum Required Driver Version for CUDA Minor Version Compatibility"
)

var csvColumns = []string{"cuda_version", "label", "table_row_text", "min_linux_driver", "min_windows_driver",
	"minor_compat_min_linux", "minor_compat_min_windows", "release_date", "source", "note"}

// Source implements scraper.Source.
type Source struct {
	// URL overrides PageURL (tests point it at httptest).
	PageURL string
}

// New returns the source reading the live page.
func New() *Source { return &Source{PageURL: PageURL} }

func (s *Source) Name() string { return Name }
func (s *Source) URL() string  { return PageURL }

func (s *Source) page() string {
	if s.PageURL != "" {
		return s.PageURL
	}
	return PageURL
}

// Scrape reads the curated CSV (snapshot mode) or the live page.
func (s *Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return nvsrc.Page{CSV: CSVFile, Columns: csvColumns, Key: func(r map[string]string) string {
		if r["cuda_version"] != "" {
			return r["cuda_version"]
		}
		return r["label"]
	}, URLs: []string{s.page()}, What: "the CUDA driver tables", Parse: ParsePage}.Scrape(ctx, in)
}

// ParsePage reads Table 3 (required) and Table 2 (optional: old editions
// folded it into the text) of a release-notes page.
func ParsePage(page []byte, url string) ([]scraper.Record, error) {
	doc, err := nvsrc.Parse(page)
	if err != nil {
		return nil, err
	}
	t3 := nvsrc.FindTable(doc, captionToolkit)
	if t3 == nil {
		return nil, fmt.Errorf("no table captioned %q", captionToolkit)
	}
	g, err := nvsrc.ReadGrid(t3)
	if err != nil {
		return nil, err
	}
	cTK, cLin, cWin := g.Col("CUDA Toolkit"), g.Col("Linux"), g.Col("Windows")
	if cTK < 0 || cLin < 0 || cWin < 0 {
		return nil, fmt.Errorf("table %q: expected toolkit, Linux and Windows columns, header is %q", captionToolkit, g.Header)
	}
	var recs []scraper.Record
	seen := map[string]bool{}
	for i, row := range g.Rows {
		label := nvsrc.At(row, cTK).Text
		if label == "" {
			continue
		}
		key := label
		if seen[key] {
			key = fmt.Sprintf("%s#%d", label, i+1)
		}
		seen[key] = true
		recs = append(recs, scraper.Record{Table: TableToolkit, Key: key, URL: url, Ref: "Table: " + captionToolkit,
			Fields: map[string]string{"row_text": label, "linux": nvsrc.At(row, cLin).Text, "windows": nvsrc.At(row, cWin).Text}})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("table %q has no rows", captionToolkit)
	}
	if t2 := nvsrc.FindTable(doc, captionCompat); t2 != nil {
		g, err := nvsrc.ReadGrid(t2)
		if err != nil {
			return nil, err
		}
		cTK := g.Col("CTK", "CUDA Toolkit")
		cMin, cMax := g.ColLast("Min"), g.ColLast("Max")
		cLin, cWin := g.Col("Linux"), g.Col("Windows")
		if cMin < 0 && cLin < 0 {
			// Old layout: "CUDA Toolkit | Linux x86_64 Minimum ... | Windows ...".
			cLin, cWin = 1, 2
		}
		for _, row := range g.Rows {
			ctk := nvsrc.At(row, cTK).Text
			if ctk == "" {
				continue
			}
			f := map[string]string{"ctk": ctk}
			if cMin >= 0 {
				f["linux"] = nvsrc.At(row, cMin).Text
				f["max"] = nvsrc.At(row, cMax).Text
			} else {
				f["linux"] = nvsrc.At(row, cLin).Text
				f["windows"] = nvsrc.At(row, cWin).Text
			}
			recs = append(recs, scraper.Record{Table: TableMinorCompat, Key: ctk, URL: url, Ref: "Table: " + captionCompat, Fields: f})
		}
	}
	return recs, nil
}

// Normalize turns rows into CUDADriver facts.
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	n := &normalizer{f: &db.Facts{}, compat: map[[2]string]compatVal{}}
	for _, r := range recs {
		switch r.Table {
		case nvsrc.TableCSV:
			n.csvRow(r)
		case TableToolkit:
			n.liveToolkit(r)
		case TableMinorCompat:
			n.liveCompat(r)
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	n.flushCompat()
	return n.f, nil
}

type compatVal struct {
	val  string
	cuda string // the toolkit row it was read from
	rec  scraper.Record
}

type normalizer struct {
	f      *db.Facts
	compat map[[2]string]compatVal // (major, os) → floor
	seen   map[[3]string]bool
}

func (n *normalizer) refuse(subject, reason string, r scraper.Record) {
	n.f.Conflicts = append(n.f.Conflicts, nvsrc.Refused(Name, subject, reason, r))
}

func (n *normalizer) add(c db.CUDADriver, r scraper.Record) {
	if n.seen == nil {
		n.seen = map[[3]string]bool{}
	}
	k := [3]string{c.CUDA, c.OS, c.Kind}
	if n.seen[k] {
		n.refuse("cuda_driver "+c.CUDA+" "+c.OS, "a second row for the same toolkit and OS", r)
		return
	}
	n.seen[k] = true
	n.f.CUDADrivers = append(n.f.CUDADrivers, c)
}

func (n *normalizer) csvRow(r scraper.Record) {
	f := r.Fields
	v := f["cuda_version"]
	subject := "cuda_driver " + v
	if v == "" {
		subject = "cuda_driver " + f["label"]
	}
	if note := f["note"]; nvsrc.IsDisagreement(note) {
		n.f.Conflicts = append(n.f.Conflicts, nvsrc.Disagreement(Name, subject, "min_driver", f["min_linux_driver"]+" / "+f["min_windows_driver"], note, r))
	}
	if v == "" || !nvsrc.IsDotted(v) {
		n.refuse(subject, "no toolkit version (the patch number is not stated by any source read)", r)
		return
	}
	label := f["label"]
	if label == "" {
		label = f["table_row_text"]
	}
	n.toolkit(v, label, f["min_linux_driver"], f["min_windows_driver"], f["release_date"], r)
	for _, os := range []string{"linux", "windows"} {
		val, err := nvsrc.Driver(f["minor_compat_min_"+os])
		if err != nil || val == "" {
			continue
		}
		k := [2]string{nvsrc.Major(v), os}
		old, ok := n.compat[k]
		switch {
		case !ok:
			n.compat[k] = compatVal{val, v, r}
		case old.val != val:
			n.f.Conflicts = append(n.f.Conflicts, db.Conflict{
				Subject: "cuda_driver " + k[0] + " " + os + " minor_compat", Field: "min_driver",
				Kept: old.val, KeptSource: Name + ": row " + old.cuda, Other: val, OtherSource: Name + ": row " + v,
				Note: "rows of one CUDA major disagree on the minor-version compatibility floor"})
		case version.DottedKey(v) < version.DottedKey(old.cuda):
			// Cite the earliest toolkit of the line: its notes set the floor.
			n.compat[k] = compatVal{val, v, r}
		}
	}
}

// toolkit adds the Linux and Windows rows of one toolkit release.
func (n *normalizer) toolkit(v, label, linux, windows, released string, r scraper.Record) {
	subject := "cuda_driver " + v
	lin, lerr := nvsrc.Driver(linux)
	win, werr := nvsrc.Driver(windows)
	if lerr != nil && !errors.Is(lerr, nvsrc.ErrNA) {
		n.refuse(subject, "unreadable Linux driver: "+lerr.Error(), r)
		return
	}
	if werr != nil && !errors.Is(werr, nvsrc.ErrNA) {
		n.refuse(subject, "unreadable Windows driver: "+werr.Error(), r)
		return
	}
	prov := nvsrc.Prov(Name, r)
	// Every toolkit the table names is a known release, also one whose
	// driver floor no source read states (CUDA 13.4: the driver is no
	// longer bundled and no Table 3 row was found): the release is
	// listed, its floor is unknown (an attribute says so), never guessed.
	n.f.Releases = append(n.f.Releases, db.Release{Component: "cuda", Version: v, ReleasedOn: released, Provenance: prov})
	if label != "" {
		n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "label", Value: label, Provenance: prov})
	}
	if lin == "" && win == "" {
		n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "min_driver",
			Value: "unknown: no minimum driver published for this release in the sources read (cells empty or N/A)", Provenance: prov})
		return
	}
	if lin != "" {
		n.add(db.CUDADriver{CUDA: v, Label: label, OS: "linux", Kind: "toolkit", MinDriver: lin, ReleasedOn: released, Provenance: prov}, r)
	}
	if win != "" {
		n.add(db.CUDADriver{CUDA: v, Label: label, OS: "windows", Kind: "toolkit", MinDriver: win, ReleasedOn: released, Provenance: prov}, r)
	} else {
		why := "not stated by the sources read"
		if errors.Is(werr, nvsrc.ErrNA) {
			why = "N/A in NVIDIA's table (the Windows driver is not bundled with this toolkit)"
		}
		n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "windows_min_driver", Value: why, Provenance: prov})
	}
}

func (n *normalizer) flushCompat() {
	keys := make([][2]string, 0, len(n.compat))
	for k := range n.compat {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		c := n.compat[k]
		n.add(db.CUDADriver{CUDA: k[0], Label: "CUDA " + k[0] + ".x minor version compatibility", OS: k[1], Kind: "minor_compat",
			MinDriver: c.val, Provenance: nvsrc.Prov(Name, c.rec)}, c.rec)
	}
}

func (n *normalizer) liveToolkit(r scraper.Record) {
	text := r.Fields["row_text"]
	v, ok := ParseLabel(text)
	if !ok {
		n.refuse("cuda_driver "+text, "cannot tell the toolkit version from the row label", r)
		return
	}
	n.toolkit(v, text, r.Fields["linux"], r.Fields["windows"], "", r)
}

var compatMajorRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:CUDA\s+)?(\d+)\.(?:x|1\.x\s*[–-]\s*\d+\.\d+\.x)$`)
})

func (n *normalizer) liveCompat(r scraper.Record) {
	ctk := strings.TrimSpace(r.Fields["ctk"])
	m := compatMajorRe().FindStringSubmatch(ctk)
	if m == nil {
		n.refuse("cuda_driver minor_compat "+ctk, "row does not cover a whole CUDA major line", r)
		return
	}
	for _, os := range []string{"linux", "windows"} {
		val, err := nvsrc.Driver(r.Fields[os])
		if err != nil && !errors.Is(err, nvsrc.ErrNA) {
			n.refuse("cuda_driver minor_compat "+ctk, os+": "+err.Error(), r)
			return
		}
		if val == "" {
			continue
		}
		k := [2]string{m[1], os}
		if _, ok := n.compat[k]; !ok {
			n.compat[k] = compatVal{val, ctk, r}
		}
	}
}

var (
	labelInner   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+\d+\.\d+\s*\((\d+\.\d+\.\d+)`) })
	labelFull    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+(\d+\.\d+\.\d+)\b`) })
	labelGA      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+(\d+)\.(\d+)(?:\s+GA)?$`) })
	labelUpdate  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^CUDA\s+(\d+)\.(\d+)\s+Update\s+(\d+)$`) })
	buildNumbers = map[string]bool{"13.4": true} // "the third digit is a build number": GA is X.Y.1
)

// ParseLabel maps a Table 3 label to the full toolkit version: "CUDA 9.2
// (9.2.148 Update 1)" → 9.2.148, "CUDA 11.4.0 GA" → 11.4.0, "CUDA 12.1
// Update 1" → 12.1.1, "CUDA 13.1" → 13.1.0. "Update N" is patch N only
// from CUDA 11 on; older update labels name no patch.
func ParseLabel(text string) (string, bool) {
	text = strings.Join(strings.Fields(strings.ReplaceAll(text, "\u00a0", " ")), " ")
	if m := labelInner().FindStringSubmatch(text); m != nil {
		return m[1], true
	}
	if m := labelFull().FindStringSubmatch(text); m != nil {
		return m[1], true
	}
	bump := func(maj, min string, patch int) string {
		if buildNumbers[maj+"."+min] {
			patch++
		}
		return fmt.Sprintf("%s.%s.%d", maj, min, patch)
	}
	if m := labelGA().FindStringSubmatch(text); m != nil {
		return bump(m[1], m[2], 0), true
	}
	if m := labelUpdate().FindStringSubmatch(text); m != nil {
		if maj, _ := strconv.Atoi(m[1]); maj < 11 {
			return "", false
		}
		p, _ := strconv.Atoi(m[3])
		return bump(m[1], m[2], p), true
	}
	return "", false
}
