package tensorflow

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

const component = "tensorflow"

var versionCellRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(tensorflow(?:[_-]gpu)?)-(\d+\.\d+\.\d+)$`) })

// Normalize implements scraper.Source.
func (s Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	n := &normalizer{f: &db.Facts{}, src: s.Name(), releases: map[string]bool{}, builds: map[db.BuildKey]int{}, attrs: map[[3]string]bool{}, tested: map[string]bool{}}
	byTable := map[string][]scraper.Record{}
	for _, r := range recs {
		byTable[r.Table] = append(byTable[r.Table], r)
	}
	for t := range byTable {
		switch t {
		case tableBuild, tableHistory, tableDriver, tableCutoff, tablePin, tablePatch:
		default:
			return nil, fmt.Errorf("unknown record table %q", t)
		}
	}
	if len(byTable[tableBuild]) == 0 {
		return nil, fmt.Errorf("no tested-build rows")
	}
	for _, r := range byTable[tableBuild] {
		n.build(r)
	}
	for _, r := range byTable[tableHistory] {
		n.history(r)
	}
	n.drivers(byTable[tableDriver])
	for _, r := range byTable[tableCutoff] {
		n.cutoff(r)
	}
	n.pins(byTable[tablePin])
	n.patches(byTable[tablePatch])
	sort.SliceStable(n.f.Releases, func(i, j int) bool {
		return version.SortKey(n.f.Releases[i].Version) < version.SortKey(n.f.Releases[j].Version)
	})
	return n.f, nil
}

type normalizer struct {
	f        *db.Facts
	src      string
	releases map[string]bool
	builds   map[db.BuildKey]int // index into f.Builds
	attrs    map[[3]string]bool
	tested   map[string]bool // releases with a row of their own in a tested-build table
}

func (n *normalizer) prov(r scraper.Record) db.Provenance {
	return db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref}
}

func (n *normalizer) refuse(r scraper.Record, subject, note string) {
	n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: subject, Field: "refused",
		Other: describe(r), OtherSource: n.src + " (" + r.Ref + ")", Note: note})
}

func describe(r scraper.Record) string {
	keys := make([]string, 0, len(r.Fields))
	for k := range r.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if r.Fields[k] != "" && k != "section" && k != "text" && k != "notes" && k != "evidence" {
			parts = append(parts, k+"="+r.Fields[k])
		}
	}
	return strings.Join(parts, " ")
}

func (n *normalizer) attr(a db.Attribute) {
	k := [3]string{a.Component, a.Version, a.Key}
	if n.attrs[k] {
		return
	}
	n.attrs[k] = true
	n.f.Attributes = append(n.f.Attributes, a)
}

func (n *normalizer) release(v string, p db.Provenance) {
	if !n.releases[v] {
		n.releases[v] = true
		n.f.Releases = append(n.f.Releases, db.Release{Component: component, Version: v, Provenance: p})
	}
}

// parseVersionCell splits "tensorflow_gpu-1.15.0" into the package as the
// table names it and the public version.
func parseVersionCell(cell string) (pkg, ver string, err error) {
	m := versionCellRE().FindStringSubmatch(strings.TrimSpace(cell))
	if m == nil {
		return "", "", fmt.Errorf("version cell %q is not <package>-<major.minor.patch>", cell)
	}
	v, err := version.Parse(m[2])
	if err != nil {
		return "", "", fmt.Errorf("version cell %q: %w", cell, err)
	}
	return m[1], v.Public(), nil
}

// PythonRange turns "2.7, 3.3-3.7" or "3.9-3.12" or "3.5" into the lowest
// and highest Python version named.
func PythonRange(cell string) (lo, hi string, err error) {
	var all []version.Dotted
	var texts []string
	for _, part := range strings.Split(cell, ",") {
		for _, p := range strings.Split(part, "-") {
			p = strings.TrimSpace(p)
			d, err := version.ParseDotted(p)
			if err != nil || len(d.Fields()) < 2 || d.Major() < 2 || d.Major() > 3 {
				return "", "", fmt.Errorf("python cell %q: %q is not a Python version", cell, p)
			}
			all = append(all, d)
			texts = append(texts, p)
		}
	}
	li, hi2 := 0, 0
	for i := range all {
		if all[i].Compare(all[li]) < 0 {
			li = i
		}
		if all[i].Compare(all[hi2]) > 0 {
			hi2 = i
		}
	}
	return texts[li], texts[hi2], nil
}

// cudaVariant is "cuda<major>" for a CUDA cell such as "12.2" or "9".
func cudaVariant(cuda string) (string, error) {
	d, err := version.ParseDotted(cuda)
	if err != nil {
		return "", fmt.Errorf("CUDA cell %q: %w", cuda, err)
	}
	if d.Major() < 7 || d.Major() > 99 {
		return "", fmt.Errorf("CUDA cell %q is not a CUDA version", cuda)
	}
	return fmt.Sprintf("cuda%d", d.Major()), nil
}

func checkDotted(what, s string) error {
	d, err := version.ParseDotted(s)
	if err != nil {
		return fmt.Errorf("%s cell %q: %w", what, s, err)
	}
	if len(d.Fields()) > 4 {
		return fmt.Errorf("%s cell %q has too many parts", what, s)
	}
	return nil
}

func buildOf(r scraper.Record) (db.Build, error) {
	f := r.Fields
	pkg, ver, err := parseVersionCell(f["version_cell"])
	if err != nil {
		return db.Build{}, err
	}
	b := db.Build{Component: component, Version: ver, Platform: f["platform"], Package: pkg}
	switch f["device"] {
	case "cpu":
		b.Variant = "cpu"
	case "gpu":
		if b.Variant, err = cudaVariant(f["cuda"]); err != nil {
			return db.Build{}, err
		}
		if err := checkDotted("cuDNN", f["cudnn"]); err != nil {
			return db.Build{}, err
		}
		b.CUDA = f["cuda"]
		// TensorFlow publishes each release's GPU build of a platform on
		// PyPI only (tensorflow.org/install/pip: `pip install
		// tensorflow[and-cuda]`, before 2.12 the tensorflow / tensorflow-gpu
		// wheels): the tested build is the one plain pip installs.
		b.IsDefault = true
	default:
		return db.Build{}, fmt.Errorf("device %q is neither cpu nor gpu", f["device"])
	}
	switch b.Platform {
	case "linux", "windows", "macos":
	default:
		return db.Build{}, fmt.Errorf("platform %q", b.Platform)
	}
	if b.PythonMin, b.PythonMax, err = PythonRange(f["python"]); err != nil {
		return db.Build{}, err
	}
	return b, nil
}

func (n *normalizer) build(r scraper.Record) {
	subject := "tensorflow tested build " + r.Key
	b, err := buildOf(r)
	if err != nil {
		n.refuse(r, subject, err.Error())
		return
	}
	p := n.prov(r)
	b.Provenance = p
	if i, dup := n.builds[b.Key()]; dup {
		n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "build " + b.Key().String(), Field: "refused",
			Kept: describeBuild(n.f.Builds[i]), KeptSource: n.src + " (" + n.f.Builds[i].Ref + ")",
			Other: describe(r), OtherSource: n.src + " (" + r.Ref + ")",
			Note: "the table repeats this version; the first row is kept"})
		return
	}
	n.builds[b.Key()] = len(n.f.Builds)
	n.f.Builds = append(n.f.Builds, b)
	n.release(b.Version, p)
	n.tested[b.Version] = true
	if b.Variant != "cpu" {
		n.f.Requirements = append(n.f.Requirements,
			db.Requirement{Build: b.Key(), Needs: "cudnn", Kind: db.KindTested, Spec: r.Fields["cudnn"], Provenance: p},
			db.Requirement{Build: b.Key(), Needs: "cuda", Kind: db.KindTested, Spec: r.Fields["cuda"], Provenance: p})
	}
	// Compiler and build tool differ by platform and table, so each row
	// keeps its own keys; the unqualified keys (what resolve reads) come
	// from the Linux rows, GPU before CPU (records arrive sorted by key,
	// so linux/cpu precedes linux/gpu: let GPU overwrite below).
	qual := "@" + b.Platform + "-" + r.Fields["device"]
	for key, field := range map[string]string{"compiler": "compiler", "build_tools": "build_tools"} {
		if v := r.Fields[field]; v != "" {
			n.attr(db.Attribute{Component: component, Version: b.Version, Key: key + qual, Value: v, Provenance: p})
		}
	}
	if b.Platform == "linux" {
		for _, key := range []string{"compiler", "build_tools"} {
			v := r.Fields[key]
			if v == "" {
				continue
			}
			k := [3]string{component, b.Version, key}
			if n.attrs[k] && r.Fields["device"] == "gpu" {
				for i := range n.f.Attributes {
					a := &n.f.Attributes[i]
					if a.Component == component && a.Version == b.Version && a.Key == key {
						a.Value, a.Provenance = v, p
					}
				}
				continue
			}
			n.attr(db.Attribute{Component: component, Version: b.Version, Key: key, Value: v, Provenance: p})
		}
	}
}

func describeBuild(b db.Build) string {
	return fmt.Sprintf("package=%s python=%s-%s cuda=%s", b.Package, b.PythonMin, b.PythonMax, b.CUDA)
}

// history turns a row of an older snapshot into a conflict: a value the
// newest table states differently (kept: the newest), or a row the newest
// table no longer has (refused).
func (n *normalizer) history(r scraper.Record) {
	date := r.Fields["snapshot_date"]
	b, err := buildOf(r)
	if err != nil {
		n.refuse(r, "tensorflow tested build "+r.Key, "row of an older snapshot ("+date+"): "+err.Error())
		return
	}
	i, ok := n.builds[b.Key()]
	if !ok {
		n.refuse(r, "build "+b.Key().String(), "row only in an older snapshot of the page ("+date+"); the newest table no longer lists it, so it describes no build")
		return
	}
	kept := n.f.Builds[i]
	cur := map[string]string{"cuda": kept.CUDA, "python": ""}
	for _, q := range n.f.Requirements {
		if q.Build == kept.Key() && q.Kind == db.KindTested {
			cur[q.Needs] = q.Spec
		}
	}
	for _, a := range n.f.Attributes {
		if a.Version == kept.Version && strings.HasSuffix(a.Key, "@"+kept.Platform+"-"+r.Fields["device"]) {
			cur[strings.TrimSuffix(a.Key, "@"+kept.Platform+"-"+r.Fields["device"])] = a.Value
		}
	}
	if kept.PythonMin != b.PythonMin || kept.PythonMax != b.PythonMax {
		cur["python"] = "changed"
	}
	for _, field := range cellKeys {
		old := r.Fields[field]
		if field == "python" {
			if cur["python"] == "" {
				continue
			}
			n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "build " + kept.Key().String(), Field: "python",
				Kept: kept.PythonMin + "-" + kept.PythonMax, KeptSource: n.src + " (" + kept.Ref + ")",
				Other: old, OtherSource: n.src + " (" + r.Ref + ")", Note: "an older snapshot of the page (" + date + ") said otherwise; the newest table is kept"})
			continue
		}
		if old == "" || old == cur[field] {
			continue
		}
		n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "build " + kept.Key().String(), Field: field,
			Kept: cur[field], KeptSource: n.src + " (" + kept.Ref + ")",
			Other: old, OtherSource: n.src + " (" + r.Ref + ")",
			Note: "an older snapshot of the page (" + date + ") said otherwise; the newest table is kept"})
	}
}

func (n *normalizer) cutoff(r scraper.Record) {
	v, err := version.Parse(r.Fields["version"])
	if err != nil || len(v.Release()) < 2 {
		n.refuse(r, "tensorflow windows_native_gpu_last", fmt.Sprintf("version %q does not parse", r.Fields["version"]))
		return
	}
	rel := v.Release()
	val := fmt.Sprintf("%d.%d.0", rel[0], rel[1])
	if len(rel) > 2 {
		val = v.Public()
	}
	n.attr(db.Attribute{Component: component, Key: "windows_native_gpu_last", Value: val, Provenance: n.prov(r)})
}

// drivers attaches the stated driver floors to the Linux GPU builds: the
// floor stated for the build's CUDA minor (gpu.md) when there is one, else
// the floor stated for its CUDA major (pip.md). Records arrive sorted by
// key; the documents' own order (newest first) decides between two
// statements for the same CUDA version, and the loser is a conflict.
func (n *normalizer) drivers(recs []scraper.Record) {
	rank := map[string]int{}
	for i, d := range driverDocs {
		rank[d.ref(false)] = i
		rank[d.ref(true)] = i
	}
	sort.SliceStable(recs, func(i, j int) bool { return rank[recs[i].Ref] < rank[recs[j].Ref] })
	type floor struct {
		spec string
		rec  scraper.Record
	}
	floors := map[string]floor{} // "linux/11.2" or "linux/12"
	for _, r := range recs {
		f := r.Fields
		d, err := version.ParseDotted(f["min_driver"])
		if err != nil || d.Major() < 100 {
			n.refuse(r, "tensorflow driver floor "+r.Key, fmt.Sprintf("driver %q is not a driver version", f["min_driver"]))
			continue
		}
		if _, err := version.ParseDotted(f["cuda"]); err != nil {
			n.refuse(r, "tensorflow driver floor "+r.Key, fmt.Sprintf("CUDA %q does not parse", f["cuda"]))
			continue
		}
		key := f["os"] + "/" + f["cuda"]
		spec := ">=" + f["min_driver"]
		if prev, ok := floors[key]; ok {
			if prev.spec != spec {
				n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "tensorflow driver floor for CUDA " + f["cuda"] + " (" + f["os"] + ")",
					Field: "min_driver", Kept: prev.spec, KeptSource: n.src + " (" + prev.rec.Ref + ")",
					Other: spec, OtherSource: n.src + " (" + r.Ref + ")", Note: "an older page stated another floor (" + f["text"] + "); the newer page is kept"})
			}
			continue
		}
		floors[key] = floor{spec, r}
		if f["os"] != "linux" {
			n.attr(db.Attribute{Component: component, Key: "driver_min_" + f["os"], Value: f["min_driver"], Provenance: n.prov(r)})
		} else if r.Ref == pipMain.ref(false) || r.Ref == pipMain.ref(true) {
			n.attr(db.Attribute{Component: component, Key: "driver_min_linux", Value: f["min_driver"], Provenance: n.prov(r)})
		}
	}
	for _, b := range n.f.Builds {
		if b.Platform != "linux" || b.CUDA == "" {
			continue
		}
		c, err := version.ParseDotted(b.CUDA)
		if err != nil {
			continue
		}
		var best *floor
		for key, fl := range floors {
			osName, cuda, _ := strings.Cut(key, "/")
			if osName != "linux" {
				continue
			}
			fd, _ := version.ParseDotted(cuda)
			exact := strings.Contains(cuda, ".") && fd.Compare(c) == 0
			major := !strings.Contains(cuda, ".") && fd.Major() == c.Major()
			if exact || (major && best == nil) {
				fl := fl
				best = &fl
				if exact {
					break
				}
			}
		}
		if best == nil {
			continue
		}
		n.f.Requirements = append(n.f.Requirements, db.Requirement{Build: b.Key(), Needs: "driver", Kind: db.KindMinimum,
			Spec: best.spec, Provenance: n.prov(best.rec)})
	}
}

var cuSuffixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-cu(\d+)$`) })

// pins attaches the and-cuda NVIDIA wheel pins to the Linux build of the
// release they belong to. A release without a tested row (patch releases
// such as 2.15.1) gets a build whose CUDA is inherited from its x.y row.
func (n *normalizer) pins(recs []scraper.Record) {
	for _, r := range recs {
		f := r.Fields
		subject := "tensorflow[and-cuda] pin " + r.Key
		v, err := version.Parse(f["tf_version"])
		if err != nil {
			n.refuse(r, subject, fmt.Sprintf("tf_version %q names no release (%v)", f["tf_version"], err))
			continue
		}
		ver := v.Public()
		if f["dependency"] == "" || f["pinned_spec"] == "" {
			n.refuse(r, subject, "empty dependency or spec")
			continue
		}
		if _, err := version.ParseSpecifiers(f["pinned_spec"]); err != nil {
			n.refuse(r, subject, fmt.Sprintf("spec %q: %v", f["pinned_spec"], err))
			continue
		}
		key, ok := n.pinBuild(ver, recs, r)
		if !ok {
			n.refuse(r, subject, "no CUDA variant can be told for this release (no -cuNN pin and no tested row)")
			continue
		}
		p := n.prov(r)
		p.URL = pinURL(f)
		n.f.Requirements = append(n.f.Requirements, db.Requirement{Build: key, Needs: f["dependency"], Kind: db.KindPin,
			Spec: f["pinned_spec"], Marker: `extra == "and-cuda"`, Provenance: p})
	}
}

func pinURL(f map[string]string) string {
	if f["source_repo"] == "" || f["commit"] == "" || strings.Contains(f["source_repo"], " ") {
		return ""
	}
	return "https://github.com/" + f["source_repo"] + "/blob/" + f["commit"] + "/" + f["source_path"]
}

// pinBuild finds (or creates) the Linux GPU build a release's pins belong
// to: the variant is told by the -cuNN suffix of the release's pins.
func (n *normalizer) pinBuild(ver string, recs []scraper.Record, r scraper.Record) (db.BuildKey, bool) {
	variant := ""
	for _, o := range recs {
		if o.Fields["tf_version"] != r.Fields["tf_version"] {
			continue
		}
		if m := cuSuffixRE().FindStringSubmatch(o.Fields["dependency"]); m != nil {
			variant = "cuda" + m[1]
			break
		}
	}
	if variant == "" {
		for _, b := range n.f.Builds {
			if b.Version == ver && b.Platform == "linux" && b.CUDA != "" {
				variant = b.Variant
			}
		}
	}
	if variant == "" {
		return db.BuildKey{}, false
	}
	key := db.BuildKey{Component: component, Version: ver, Variant: variant, Platform: "linux"}
	if _, ok := n.builds[key]; ok {
		return key, true
	}
	b := db.Build{Component: component, Version: ver, Variant: variant, Platform: "linux", Package: "tensorflow", IsDefault: true, Provenance: n.prov(r)}
	// Patch releases have no row of their own: take CUDA and Python from
	// the newest tested row of the same major.minor and the same variant.
	vv, _ := version.Parse(ver)
	rel := vv.Release()
	var best *db.Build
	for i := range n.f.Builds {
		o := &n.f.Builds[i]
		ov, _ := version.Parse(o.Version)
		or := ov.Release()
		if o.Platform != "linux" || o.Variant != variant || len(or) < 2 || len(rel) < 2 || or[0] != rel[0] || or[1] != rel[1] || o.Ref == r.Ref {
			continue
		}
		if best == nil || ov.Compare(version.MustParse(best.Version)) > 0 {
			best = o
		}
	}
	if best != nil {
		b.CUDA, b.PythonMin, b.PythonMax = best.CUDA, best.PythonMin, best.PythonMax
		b.Ref = r.Ref + "; CUDA and Python inherited from the tested row of " + best.Version + " (" + best.Ref + ")"
		for _, q := range n.f.Requirements {
			if q.Build == best.Key() && q.Kind == db.KindMinimum && q.Needs == "driver" {
				q.Build = key
				n.f.Requirements = append(n.f.Requirements, q)
				break
			}
		}
	}
	n.builds[key] = len(n.f.Builds)
	n.f.Builds = append(n.f.Builds, b)
	n.release(ver, n.prov(r))
	return key, true
}
