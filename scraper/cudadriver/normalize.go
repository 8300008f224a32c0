package cudadriver

import (
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

// Normalize turns rows into CUDADriver facts. NVIDIA's tables (the live
// page, or the release-notes text snapshots) come first: a toolkit row of
// Table 3 gives the toolkit's label and Linux and Windows floors, a Table
// 2 row the minor-version-compatibility floor of its CUDA major. The
// curated CSV fills only what those tables do not show: toolkits they do
// not list (13.3, 13.4, manifest-only releases), release dates, Windows
// minor-compatibility floors, and the full driver version where Table 2
// prints only the branch (">= 525": the CSV's 525.60.13 lies in that
// branch and is kept). Every other value where the CSV and a table differ
// is a conflict, the table's value kept; so is a value where two editions
// of the table differ (the newest edition kept, whatever the record order).
func (s *Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	n := &normalizer{f: &db.Facts{}, compat: map[[2]string]compatVal{}, pageCompat: map[[2]string]compatVal{},
		pages: map[string]*pageRow{}, fill: map[string]scraper.Record{}}
	var csvRows []scraper.Record
	for _, r := range recs {
		switch r.Table {
		case nvsrc.TableCSV:
			csvRows = append(csvRows, r)
		case TableToolkit:
			n.pageToolkit(r)
		case TableMinorCompat:
			n.pageCompatRow(r)
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	for _, r := range csvRows {
		n.csvRow(r)
	}
	n.flushPages()
	n.flushCompat()
	return n.f, nil
}

type compatVal struct {
	val  string
	cuda string // the toolkit row it was read from
	rec  scraper.Record
}

// pageRow is a toolkit as NVIDIA's Table 3 prints it.
type pageRow struct {
	v, label       string
	linux, windows string // cells as printed
	rec            scraper.Record
}

type normalizer struct {
	f          *db.Facts
	compat     map[[2]string]compatVal // CSV: (major, os) → floor
	pageCompat map[[2]string]compatVal // Table 2: (major, os) → floor
	pages      map[string]*pageRow     // Table 3 rows by toolkit version
	order      []string                // toolkit versions in page order
	fill       map[string]scraper.Record
	seen       map[[3]string]bool
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

// cite names a record in a conflict.
func cite(r scraper.Record) string {
	s := Name + ": " + r.Table + "/" + r.Key
	if r.URL != "" {
		s += " (" + r.URL + ")"
	}
	return s
}

// differ reports whether two driver cells state different floors; a cell
// that states nothing (empty) differs from none.
func differ(a, b string) (string, string, bool) {
	av, aerr := nvsrc.Driver(a)
	bv, berr := nvsrc.Driver(b)
	if errors.Is(aerr, nvsrc.ErrNA) {
		av = "N/A"
	}
	if errors.Is(berr, nvsrc.ErrNA) {
		bv = "N/A"
	}
	if av == "" || bv == "" {
		return av, bv, false
	}
	return av, bv, av != bv
}

func (n *normalizer) pageToolkit(r scraper.Record) {
	text := r.Fields["row_text"]
	v, ok := ParseLabel(text)
	if !ok {
		n.refuse("cuda_driver "+text, "cannot tell the toolkit version from the row label", r)
		return
	}
	old, ok := n.pages[v]
	if !ok {
		n.pages[v] = &pageRow{v: v, label: text, linux: r.Fields["linux"], windows: r.Fields["windows"], rec: r}
		n.order = append(n.order, v)
		return
	}
	if old.rec.URL == r.URL {
		n.refuse("cuda_driver "+v, "a second row for the same toolkit in one table", r)
		return
	}
	row := &pageRow{v: v, label: text, linux: r.Fields["linux"], windows: r.Fields["windows"], rec: r}
	if newer(r, old.rec) {
		*old, *row = *row, *old
	}
	for _, os := range []string{"linux", "windows"} {
		if kept, other, d := differ(old.field(os), row.field(os)); d {
			n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "cuda_driver " + v + " " + os, Field: "min_driver",
				Kept: kept, KeptSource: cite(old.rec), Other: other, OtherSource: cite(row.rec),
				Note: "two editions of NVIDIA's Table 3 disagree; the newest edition is kept"})
		}
	}
}

// newer reports whether a was read from a newer edition of the release
// notes than b, whatever order the records come in: the live page (no
// archive edition in its address) is the newest.
func newer(a, b scraper.Record) bool {
	ea, eb := editionOf(a.URL), editionOf(b.URL)
	switch {
	case ea == "":
		return eb != ""
	case eb == "":
		return false
	}
	return version.DottedKey(ea) > version.DottedKey(eb)
}

func (p *pageRow) field(os string) string {
	if os == "windows" {
		return p.windows
	}
	return p.linux
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
	if p, ok := n.pages[v]; ok {
		// NVIDIA's table shows this toolkit: the CSV only fills.
		for _, os := range []string{"linux", "windows"} {
			if kept, other, d := differ(p.field(os), f["min_"+os+"_driver"]); d {
				n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "cuda_driver " + v + " " + os, Field: "min_driver",
					Kept: kept, KeptSource: cite(p.rec), Other: other, OtherSource: cite(r),
					Note: "the curated CSV disagrees with NVIDIA's Table 3; NVIDIA's value is kept"})
			}
		}
		if _, dup := n.fill[v]; !dup {
			n.fill[v] = r
		}
	} else {
		label := f["label"]
		if label == "" {
			label = f["table_row_text"]
		}
		n.toolkit(v, label, f["min_linux_driver"], f["min_windows_driver"], f["release_date"], r, r)
	}
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

// flushPages adds the toolkits of NVIDIA's tables, with the release date
// (cited to the CSV row it comes from) filled in.
func (n *normalizer) flushPages() {
	for _, v := range n.order {
		p := n.pages[v]
		rel, date := p.rec, ""
		if c, ok := n.fill[v]; ok && c.Fields["release_date"] != "" {
			rel, date = c, c.Fields["release_date"]
		}
		n.toolkit(v, p.label, p.linux, p.windows, date, p.rec, rel)
	}
}

// toolkit adds the Linux and Windows rows of one toolkit release; the
// floors are cited to r, the release (and its date) to rel.
func (n *normalizer) toolkit(v, label, linux, windows, released string, r, rel scraper.Record) {
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
	n.f.Releases = append(n.f.Releases, db.Release{Component: "cuda", Version: v, ReleasedOn: released, Provenance: nvsrc.Prov(Name, rel)})
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

// flushCompat adds one minor-compatibility floor per CUDA major and OS:
// Table 2's, else the CSV's; the CSV's full version where Table 2 prints
// only its branch; a conflict where they differ otherwise.
func (n *normalizer) flushCompat() {
	keys := make([][2]string, 0, len(n.compat)+len(n.pageCompat))
	for k := range n.pageCompat {
		keys = append(keys, k)
	}
	for k := range n.compat {
		if _, ok := n.pageCompat[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		c, ok := n.pageCompat[k]
		if csv, cok := n.compat[k]; !ok {
			c = csv
		} else if cok && csv.val != c.val {
			if !strings.Contains(c.val, ".") && nvsrc.Major(csv.val) == c.val {
				c = csv // the branch's full floor
			} else {
				n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "cuda_driver " + k[0] + " " + k[1] + " minor_compat", Field: "min_driver",
					Kept: c.val, KeptSource: cite(c.rec), Other: csv.val, OtherSource: cite(csv.rec),
					Note: "the curated CSV disagrees with NVIDIA's Table 2; NVIDIA's value is kept"})
			}
		}
		n.add(db.CUDADriver{CUDA: k[0], Label: "CUDA " + k[0] + ".x minor version compatibility", OS: k[1], Kind: "minor_compat",
			MinDriver: c.val, Provenance: nvsrc.Prov(Name, c.rec)}, c.rec)
	}
}

var compatMajorRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:CUDA\s+)?(\d+)\.(?:x|1\.x\s*[–-]\s*\d+\.\d+\.x)$`)
})

// pageCompatRow reads a Table 2 row; the newest edition sets the floor,
// an older one that differs is a conflict.
func (n *normalizer) pageCompatRow(r scraper.Record) {
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
		old, ok := n.pageCompat[k]
		cur := compatVal{val, ctk, r}
		switch {
		case !ok:
			n.pageCompat[k] = cur
		case old.rec.URL == r.URL:
			// One table, one floor per major: the first row stands.
		default:
			if newer(r, old.rec) {
				n.pageCompat[k], old, cur = cur, cur, old
			}
			if old.val != cur.val {
				n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "cuda_driver " + k[0] + " " + os + " minor_compat", Field: "min_driver",
					Kept: old.val, KeptSource: cite(old.rec), Other: cur.val, OtherSource: cite(cur.rec),
					Note: "two editions of NVIDIA's Table 2 disagree; the newest edition is kept"})
			}
		}
	}
}
