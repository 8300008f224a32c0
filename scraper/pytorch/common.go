// Package pytorch holds the PyTorch fact family: which torch builds exist
// (version × variant × platform × channel), what each bundles or pins
// (cuDNN, NCCL, CUDA runtime, nvidia-* wheels), which torchvision and
// torchaudio pair with it, and the GPU architectures it was compiled for.
//
// The family is split into several sources so that db.Merge can record
// disagreements between them; their precedence is their order in
// scraper/all.
package pytorch

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

const (
	snapDir       = "pytorch"
	downloadBase  = "https://download.pytorch.org/whl/"
	findLinksURL  = "https://download.pytorch.org/whl/torch_stable.html"
	pypiSimpleURL = "https://pypi.org/simple"
)

// doc is one upstream document: where it lives live, and where its
// snapshot lives under the snapshot directory.
type doc struct {
	live string // raw URL read in live mode
	page string // human page cited in provenance
	snap string // path below <snapshots>/pytorch/
	// capture, when set, is read in snapshot mode from the captures
	// shipped with the package (captures/CAPTURES.md says where each
	// came from) instead of the snapshot directory.
	capture string
}

// captures are trimmed, verbatim copies of published text the shared
// snapshot directory does not hold (see captures/CAPTURES.md).
//
//go:embed captures/*.md captures/*.html captures/*.sh captures/*.bat
var captures embed.FS

// ref is the provenance prefix of rows from d: the snapshot's file@commit
// (commit parsed from the file name) or, live, the path at its branch.
func (d doc) ref() string {
	if d.capture != "" {
		return d.capture
	}
	if d.snap == "" {
		return d.live
	}
	base := filepath.Base(d.snap)
	name, commit, ok := strings.Cut(base, "@")
	if !ok {
		return base
	}
	commit = strings.TrimSuffix(commit, filepath.Ext(commit))
	return name + "@" + commit
}

// read returns the document's bytes from the live URL or the snapshot.
func (d doc) read(ctx context.Context, in scraper.Input) ([]byte, doc, error) {
	if in.Fetcher != nil {
		if d.live == "" {
			return nil, d, fmt.Errorf("%s is snapshot-only: no live upstream is implemented for it", d.snap)
		}
		b, err := in.Fetcher.Get(ctx, d.live)
		if err != nil {
			return nil, d, fmt.Errorf("failed to fetch %s: %w", d.live, err)
		}
		live := d
		live.snap = ""
		return b, live, nil
	}
	if d.capture != "" {
		b, err := captures.ReadFile("captures/" + d.capture)
		if err != nil {
			return nil, d, fmt.Errorf("failed to read capture %s: %w", d.capture, err)
		}
		return b, d, nil
	}
	if in.Snapshots == "" {
		return nil, d, fmt.Errorf("no fetcher and no snapshot directory")
	}
	p := filepath.Join(in.Snapshots, snapDir, filepath.FromSlash(d.snap))
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, d, fmt.Errorf("failed to read snapshot %s: %w", d.snap, err)
	}
	return b, d, nil
}

// scrape reads d and parses it, naming what failed to parse and where.
func (d doc) scrape(ctx context.Context, in scraper.Input, what string, parse func(src []byte, ref string) ([]scraper.Record, error)) ([]scraper.Record, error) {
	b, got, err := d.read(ctx, in)
	if err != nil {
		return nil, err
	}
	recs, err := parse(b, got.ref())
	if err != nil {
		return nil, fmt.Errorf("failed to parse %s from %s: %w", what, got.ref(), err)
	}
	return recs, nil
}

// quotedDoc is a captured document that quotes a page (an issue, a pull
// request, a README): its records cite that page (none when the capture
// could not be tied to one, and CAPTURES.md names its origin).
type quotedDoc struct {
	d     doc
	what  string // what it gives, for errors: "the printed arch lists"
	parse func(src []byte, ref string) ([]scraper.Record, error)
}

// scrapeQuoted reads each quoted document (snapshot mode only: live
// refreshes read no issue threads) and cites its page on every record.
func scrapeQuoted(ctx context.Context, in scraper.Input, docs []quotedDoc) ([]scraper.Record, error) {
	var all []scraper.Record
	for _, q := range docs {
		recs, err := q.d.scrape(ctx, in, q.what, q.parse)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			recs[i].URL = q.d.page
		}
		all = append(all, recs...)
	}
	return all, nil
}

// facts accumulates one source's facts. A second statement of the same
// fact identity is folded into the first; a different value becomes a
// db.Conflict naming both rows, so within-source disagreements are listed
// by `cudb db check` like cross-source ones.
type facts struct {
	source string
	out    db.Facts
	rel    map[string]bool
	builds map[db.BuildKey]int
	reqs   map[string]int
	attrs  map[string]int
}

func newFacts(source string) *facts {
	return &facts{source: source, rel: map[string]bool{}, builds: map[db.BuildKey]int{},
		reqs: map[string]int{}, attrs: map[string]int{}}
}

func (f *facts) prov(url, ref string) db.Provenance {
	return db.Provenance{Source: f.source, URL: url, Ref: ref}
}

func (f *facts) release(component, version string, p db.Provenance) {
	k := component + "==" + version
	if f.rel[k] {
		return
	}
	f.rel[k] = true
	f.out.Releases = append(f.out.Releases, db.Release{Component: component, Version: version, Provenance: p})
}

// build adds b, or fills the empty fields of the build already known under
// the same key (recording a conflict for fields that differ).
func (f *facts) build(b db.Build) {
	k := b.Key()
	i, ok := f.builds[k]
	if !ok {
		f.builds[k] = len(f.out.Builds)
		f.out.Builds = append(f.out.Builds, b)
		return
	}
	kept := &f.out.Builds[i]
	subject := "build " + k.String()
	fill := func(field string, dst *string, v string, other db.Provenance) {
		switch {
		case v == "" || *dst == v:
		case *dst == "":
			*dst = v
		default:
			f.conflict(subject, field, *dst, kept.Provenance, v, other, "")
		}
	}
	fill("pip_version", &kept.PipVersion, b.PipVersion, b.Provenance)
	fill("cuda", &kept.CUDA, b.CUDA, b.Provenance)
	fill("python_min", &kept.PythonMin, b.PythonMin, b.Provenance)
	fill("python_max", &kept.PythonMax, b.PythonMax, b.Provenance)
	fill("index_url", &kept.IndexURL, b.IndexURL, b.Provenance)
	if !kept.FillArch(b) { // a list filled in keeps its own citation
		fill("arch_list", &kept.ArchList, b.ArchList, b.Provenance)
	}
	fill("package", &kept.Package, b.Package, b.Provenance)
	if b.IsDefault {
		kept.IsDefault = true
	}
}

func (f *facts) require(r db.Requirement) {
	k := r.Build.String() + "|" + r.Needs + "|" + r.Kind
	i, ok := f.reqs[k]
	if !ok {
		f.reqs[k] = len(f.out.Requirements)
		f.out.Requirements = append(f.out.Requirements, r)
		return
	}
	kept := &f.out.Requirements[i]
	if kept.Spec != r.Spec && r.Spec != "" {
		f.conflict("requirement "+r.Build.String()+" needs "+r.Needs+" ("+r.Kind+")", "spec",
			kept.Spec, kept.Provenance, r.Spec, r.Provenance, "")
	}
	if kept.Marker == "" {
		kept.Marker = r.Marker
	}
}

func (f *facts) attr(a db.Attribute) {
	k := a.Component + "|" + a.Version + "|" + a.Key
	i, ok := f.attrs[k]
	if !ok {
		f.attrs[k] = len(f.out.Attributes)
		f.out.Attributes = append(f.out.Attributes, a)
		return
	}
	kept := f.out.Attributes[i]
	if kept.Value != a.Value {
		f.conflict("attribute "+a.Component+" "+a.Version+" "+a.Key, "value", kept.Value, kept.Provenance, a.Value, a.Provenance, "")
	}
}

func (f *facts) conflict(subject, field, kept string, kp db.Provenance, other string, op db.Provenance, note string) {
	f.out.Conflicts = append(f.out.Conflicts, db.Conflict{
		Subject: subject, Field: field, Kept: kept, KeptSource: cite(kp),
		Other: other, OtherSource: cite(op), Note: note,
	})
}

// refuse records a row that cannot be used, with the reason.
func (f *facts) refuse(r scraper.Record, reason string) {
	f.out.Conflicts = append(f.out.Conflicts, db.Conflict{
		Subject: r.Table + " " + r.Key, Field: "refused", Other: rowText(r),
		OtherSource: cite(db.Provenance{Source: f.source, Ref: r.Ref}), Note: reason,
	})
}

func (f *facts) result() *db.Facts { return &f.out }

func cite(p db.Provenance) string {
	if p.Ref != "" {
		return p.Source + " (" + p.Ref + ")"
	}
	return p.Source
}

func rowText(r scraper.Record) string {
	if t := r.Fields["row"]; t != "" {
		return t
	}
	keys := make([]string, 0, len(r.Fields))
	for k := range r.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if r.Fields[k] != "" {
			parts = append(parts, k+"="+r.Fields[k])
		}
	}
	return strings.Join(parts, "; ")
}

var (
	reRelease = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+$`) })
	reMinor   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+$`) })
	reCUDAVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cu(\d+)$`) })
	reDotted  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+(\.\d+)*$`) })
)

// cudaOfVariant turns "cu121" into "12.1" and "cu80" into "8.0"; other
// variants (cpu, rocm, xpu) have no CUDA.
func cudaOfVariant(v string) string {
	m := reCUDAVar().FindStringSubmatch(v)
	if m == nil {
		return ""
	}
	d := m[1]
	if len(d) < 2 {
		return ""
	}
	return strings.TrimLeft(d[:len(d)-1], "0") + "." + d[len(d)-1:]
}

// variantOfCUDA turns "12.1" (or "12.1.105") into "cu121".
func variantOfCUDA(cuda string) string {
	parts := strings.Split(strings.TrimSpace(cuda), ".")
	if len(parts) < 2 || !reDotted().MatchString(parts[0]) || !reDotted().MatchString(parts[1]) {
		return ""
	}
	return "cu" + parts[0] + parts[1]
}

// cmpDotted orders dotted numeric versions ("1.10.0" > "1.9.1"); private
// until query/version lands.
func cmpDotted(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// platformsOf says which platforms a wheel variant ships for when a source
// does not distinguish: CUDA, cpu and xpu wheels are built for Linux and
// Windows, ROCm wheels for Linux only.
func platformsOf(variant string) []string {
	if strings.HasPrefix(variant, "rocm") {
		return []string{"linux"}
	}
	return []string{"linux", "windows"}
}

// indexURL is the index a variant's wheels of version v are served from.
func indexURL(v, variant string) string {
	switch {
	case v == "1.8.2":
		return downloadBase + "lts/1.8/" + variant
	case cmpDotted(v, "1.11.0") < 0:
		return findLinksURL
	default:
		return downloadBase + variant
	}
}

// archList turns "3.5;5.0+PTX;6.0" or "sm_35 sm_50+PTX" or "sm_37, sm_50"
// into "sm_35 sm_50 compute_50 sm_60"; "" when an entry is not an arch.
func archList(s string) (string, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })
	var out []string
	seen := map[string]bool{}
	add := func(x string) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for _, f := range fields {
		ptx := false
		if strings.HasSuffix(strings.ToUpper(f), "+PTX") {
			ptx = true
			f = f[:len(f)-4]
		}
		var num string
		switch {
		case strings.HasPrefix(f, "sm_"):
			num = f[3:]
		case strings.HasPrefix(f, "compute_"):
			add(f)
			continue
		default:
			num = strings.ReplaceAll(f, ".", "")
		}
		if num == "" || !regexp.MustCompile(`^\d+[a-z]?$`).MatchString(num) {
			return "", fmt.Errorf("not a GPU architecture: %q", f)
		}
		add("sm_" + num)
		if ptx {
			add("compute_" + num)
		}
	}
	return strings.Join(out, " "), nil
}

// normMarker writes a PEP 508 environment marker in one canonical form
// (double-quoted strings, single spaces between tokens, none inside
// parentheses) so that sources quoting the same marker differently do not
// raise conflicts; real differences in the marker survive.
func normMarker(m string) string {
	toks, ok := version.MarkerTokens(m)
	if !ok {
		return strings.Join(strings.Fields(m), " ") // unbalanced: leave it be
	}
	for i, t := range toks {
		if t[0] == '\'' && !strings.ContainsRune(t, '"') {
			toks[i] = `"` + t[1:len(t)-1] + `"`
		}
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t != ")" && toks[i-1] != "(" {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}
