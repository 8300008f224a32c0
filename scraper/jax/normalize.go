package jax

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

const component = "jax"

// extraVariant maps the cuda extras of jax's setup.py, renamed over time,
// to the CUDA variant they install, and ranks them: the lowest rank is
// the extra shown as the variant's install name (pip wheels before a
// local CUDA; the plain "cuda" extra of old releases last).
var extraVariant = map[string]struct {
	variant string
	rank    int
	local   bool
}{
	"cuda13": {"cuda13", 0, false}, "cuda13-local": {"cuda13", 0, true},
	"cuda12": {"cuda12", 0, false}, "cuda12_pip": {"cuda12", 1, false},
	"cuda12-local": {"cuda12", 0, true}, "cuda12_local": {"cuda12", 1, true},
	"cuda11_pip": {"cuda11", 1, false}, "cuda11_local": {"cuda11", 1, true},
}

var (
	localCUDARE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\+cuda(\d+)\.cudnn(\d)(\d+)$`) })
	pluginNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(jax-cuda(\d+)-(?:plugin|pjrt))(\[[^\]]*\])?(.*)$`) })
)

// Normalize implements scraper.Source.
func (s Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	n := &normalizer{f: &db.Facts{}, src: s.Name(), builds: map[db.BuildKey]int{}, reqs: map[string]int{}, attrs: map[[3]string]bool{}, releases: map[string]bool{}}
	by := map[string][]scraper.Record{}
	for _, r := range recs {
		switch r.Table {
		case tableWheel, tableDriver, tableExtra, tablePin, tableBazel, tablePJRT, tableCaps, tablePython, tableHost:
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
		by[r.Table] = append(by[r.Table], r)
	}
	n.extras(by[tableExtra])
	n.wheels(by[tableWheel])
	n.host(by[tableHost])
	n.bazel(by[tableBazel])
	n.pins(by[tablePin])
	n.pjrt(by[tablePJRT])
	n.drivers(by[tableDriver])
	n.caps(by[tableCaps])
	n.python(by[tablePython])
	if len(n.f.Builds) == 0 && len(n.f.Attributes) == 0 {
		return nil, fmt.Errorf("no usable rows")
	}
	return n.f, nil
}

type normalizer struct {
	f        *db.Facts
	src      string
	builds   map[db.BuildKey]int
	reqs     map[string]int
	attrs    map[[3]string]bool
	releases map[string]bool
}

func (n *normalizer) prov(r scraper.Record) db.Provenance {
	return db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref}
}

func (n *normalizer) refuse(r scraper.Record, note string) {
	keys := make([]string, 0, len(r.Fields))
	for k := range r.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if r.Fields[k] != "" && k != "commit" && k != "notes" && k != "text" {
			parts = append(parts, k+"="+r.Fields[k])
		}
	}
	n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "jax " + r.Table + " " + r.Key, Field: "refused",
		Other: strings.Join(parts, " "), OtherSource: n.src + " (" + r.Ref + ")", Note: note})
}

func publicVersion(s string) (string, error) {
	v, err := version.Parse(s)
	if err != nil {
		return "", err
	}
	return v.Public(), nil
}

func (n *normalizer) build(ver, variant string, p db.Provenance) db.BuildKey {
	k := db.BuildKey{Component: component, Version: ver, Variant: variant, Platform: "linux"}
	if _, ok := n.builds[k]; !ok {
		n.builds[k] = len(n.f.Builds)
		n.f.Builds = append(n.f.Builds, db.Build{Component: component, Version: ver, Variant: variant, Platform: "linux", Provenance: p})
		if !n.releases[ver] {
			n.releases[ver] = true
			n.f.Releases = append(n.f.Releases, db.Release{Component: component, Version: ver, Provenance: p})
		}
	}
	return k
}

// req adds a requirement unless the build already has one for (needs,
// kind): then an equal spec is dropped as a repeat and a different one
// becomes a conflict (the first, from the preferred extra, is kept).
func (n *normalizer) req(q db.Requirement) {
	id := q.Build.String() + "|" + q.Needs + "|" + q.Kind
	if i, ok := n.reqs[id]; ok {
		if old := n.f.Requirements[i]; old.Spec != q.Spec {
			n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "requirement " + q.Build.String() + " needs " + q.Needs + " (" + q.Kind + ")",
				Field: "spec", Kept: old.Spec, KeptSource: n.src + " (" + old.Ref + ")", Other: q.Spec, OtherSource: n.src + " (" + q.Ref + ")",
				Note: "two extras of one release state this differently; the preferred extra is kept"})
		}
		return
	}
	n.reqs[id] = len(n.f.Requirements)
	n.f.Requirements = append(n.f.Requirements, q)
}

func (n *normalizer) attr(a db.Attribute) {
	k := [3]string{a.Component, a.Version, a.Key}
	if n.attrs[k] {
		return
	}
	n.attrs[k] = true
	n.f.Attributes = append(n.f.Attributes, a)
}

// extras turns each cuda extra of jax into the build of its variant, the
// paired jaxlib (and plugin) and the extra's name.
func (n *normalizer) extras(recs []scraper.Record) {
	rank := func(e string) int {
		if ev, ok := extraVariant[e]; ok {
			return ev.rank
		}
		return 9
	}
	// The plain "cuda" extra of old releases names its variant in the
	// jaxlib local version or the plugin name, on any of its rows. An
	// extra whose jaxlib carries a local CUDA label installs the
	// monolithic CUDA jaxlib.
	group := map[string]string{}
	mono := map[string]bool{}
	for _, r := range recs {
		f := r.Fields
		if req, err := version.ParseRequirement(f["requirement_resolved"]); err == nil {
			if m := localCUDARE().FindStringSubmatch(req.SpecText()); m != nil {
				group[f["jax_version"]+"/"+f["extra"]] = "cuda" + m[1]
				mono[f["jax_version"]+"/"+f["extra"]] = true
			} else if m := pluginNameRE().FindStringSubmatch(req.Name); m != nil {
				group[f["jax_version"]+"/"+f["extra"]] = "cuda" + m[2]
			}
		}
	}
	// One extra per build says how it installs. Up to 0.4.29 the pip
	// extra with the monolithic CUDA jaxlib (cuda12_pip, with -f) is the
	// documented install, and the plugin extra (cuda12) beside it was
	// experimental; jaxlib 0.4.30 dropped the monolithic jaxlib (CHANGELOG:
	// "You must use the plugin-based installation"). So a monolithic pip
	// extra comes first, then the plugin extras, then local-CUDA ones, then
	// the plain "cuda" extra of old releases. Extras after the first of a
	// build give only their names: mixing a monolithic jaxlib with the
	// plugin would install two CUDA backends.
	class := func(r scraper.Record) int {
		e := r.Fields["extra"]
		ev, ok := extraVariant[e]
		switch {
		case !ok:
			return 90 + rank(e)
		case ev.local:
			return 50 + ev.rank
		case mono[r.Fields["jax_version"]+"/"+e]:
			return ev.rank
		}
		return 10 + ev.rank
	}
	sort.SliceStable(recs, func(i, j int) bool { return class(recs[i]) < class(recs[j]) })
	chosen := map[string]string{} // version/variant → the extra that installs it
	for _, r := range recs {
		f := r.Fields
		ver, err := publicVersion(f["jax_version"])
		if err != nil {
			n.refuse(r, fmt.Sprintf("jax_version %q: %v", f["jax_version"], err))
			continue
		}
		req, err := version.ParseRequirement(f["requirement_resolved"])
		if err != nil {
			n.refuse(r, fmt.Sprintf("requirement %q: %v", f["requirement_resolved"], err))
			continue
		}
		ev, known := extraVariant[f["extra"]]
		variant := ev.variant
		if !known {
			// The plain "cuda" extra of old releases: its variant is in
			// the jaxlib local version or the plugin name.
			variant = group[f["jax_version"]+"/"+f["extra"]]
			if f["extra"] != "cuda" || variant == "" {
				n.refuse(r, fmt.Sprintf("extra %q names no CUDA variant", f["extra"]))
				continue
			}
			ev.rank = 9
		}
		p := n.prov(r)
		k := n.build(ver, variant, p)
		key := "extra@" + variant
		if ev.local {
			key = "extra_local@" + variant
		}
		n.attr(db.Attribute{Component: component, Version: ver, Key: key, Value: f["extra"], Provenance: p})
		if c, ok := chosen[ver+"/"+variant]; ok && c != f["extra"] {
			continue
		}
		chosen[ver+"/"+variant] = f["extra"]
		needs := req.Name
		if m := pluginNameRE().FindStringSubmatch(req.Name); m != nil {
			needs = m[1]
		}
		spec := req.SpecText()
		n.req(db.Requirement{Build: k, Needs: needs, Kind: db.KindPaired, Spec: spec, Provenance: p})
		if m := localCUDARE().FindStringSubmatch(spec); m != nil && needs == "jaxlib" {
			n.req(db.Requirement{Build: k, Needs: "cudnn", Kind: db.KindMinimum, Spec: ">=" + m[2] + "." + m[3], Provenance: p})
			// jax itself carries no local label: the CUDA flavour is
			// jaxlib's, so the exact jaxlib is what pip must install.
			n.req(db.Requirement{Build: k, Needs: "jaxlib", Kind: db.KindPin, Spec: spec, Provenance: p})
			b := &n.f.Builds[n.builds[k]]
			b.IndexURL = "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"
		}
	}
	// The unqualified "extra" (what resolve reads) is set where a release
	// has one pip-wheel variant; with two (cuda12 and cuda13) each keeps
	// its qualified key only.
	perVersion := map[string][]db.Attribute{}
	for _, a := range n.f.Attributes {
		if strings.HasPrefix(a.Key, "extra@") {
			perVersion[a.Version] = append(perVersion[a.Version], a)
		}
	}
	vers := make([]string, 0, len(perVersion))
	for v := range perVersion {
		vers = append(vers, v)
	}
	sort.Strings(vers)
	for _, v := range vers {
		if as := perVersion[v]; len(as) == 1 {
			a := as[0]
			a.Key = "extra"
			n.attr(a)
		}
	}
}

// wheels adds the install page's built-with and compatible-with versions
// to the build of the release the page snapshot describes.
func (n *normalizer) wheels(recs []scraper.Record) {
	for _, r := range recs {
		f := r.Fields
		if f["release"] == "" {
			continue // live page: the release it describes is not named on it
		}
		ver, err := publicVersion(f["release"])
		if err != nil {
			n.refuse(r, err.Error())
			continue
		}
		variant := r.Key[strings.LastIndex(r.Key, "/")+1:]
		p := n.prov(r)
		k := n.build(ver, variant, p)
		b := &n.f.Builds[n.builds[k]]
		if c := f["built_cuda"]; c != "" {
			if _, err := version.ParseDotted(c); err != nil {
				n.refuse(r, fmt.Sprintf("built-with CUDA %q: %v", c, err))
				continue
			}
			b.CUDA = c
			n.req(db.Requirement{Build: k, Needs: "cuda", Kind: db.KindTested, Spec: c, Provenance: p})
		}
		if c := f["built_cudnn"]; c != "" {
			n.req(db.Requirement{Build: k, Needs: "cudnn", Kind: db.KindTested, Spec: c, Provenance: p})
		}
		for _, pair := range [][2]string{{"compat_cuda", "cuda"}, {"compat_cudnn", "cudnn"}, {"compat_nccl", "nccl"}} {
			spec := strings.ReplaceAll(f[pair[0]], " ", "")
			if spec == "" {
				continue
			}
			if _, err := version.ParseDottedSpec(spec); err != nil {
				n.refuse(r, fmt.Sprintf("compatible-with %s %q: %v", pair[1], spec, err))
				continue
			}
			n.req(db.Requirement{Build: k, Needs: pair[1], Kind: db.KindMinimum, Spec: spec, Provenance: p})
		}
		if c := f["built_nccl"]; c != "" {
			n.attr(db.Attribute{Component: component, Version: ver, Key: "built_nccl@" + variant, Value: c, Provenance: p})
		}
	}
}

var cudaMajorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)\.`) })

// bazel records what the build config names; it is the build's CUDA
// where the install page (which lags it) says otherwise, and the
// disagreement is a conflict.
func (n *normalizer) bazel(recs []scraper.Record) {
	for _, r := range recs {
		f := r.Fields
		ver, err := publicVersion(f["jax_version"])
		if err != nil {
			n.refuse(r, err.Error())
			continue
		}
		scope, variable, val := f["bazel_config_or_scope"], f["variable"], f["value"]
		p := n.prov(r)
		switch {
		case strings.HasPrefix(variable, "_"):
			n.attr(db.Attribute{Component: component, Version: ver, Key: "setup" + variable, Value: val, Provenance: p})
			continue
		case strings.Contains(scope, "rbe_"):
			n.refuse(r, "a CI (rbe) configuration, not a shipped wheel")
			continue
		}
		variant := ""
		switch {
		case strings.HasSuffix(scope, "cuda_v13"):
			variant = "cuda13"
		case strings.HasSuffix(scope, "cuda_v12"), scope == "build:cuda":
			variant = "cuda12"
		}
		if variant == "" {
			n.refuse(r, fmt.Sprintf("scope %q names no CUDA variant", scope))
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(variable, "HERMETIC_")) + "@" + variant
		n.attr(db.Attribute{Component: component, Version: ver, Key: "built_" + strings.TrimSuffix(key, "_version@"+variant) + "@" + variant, Value: val, Provenance: p})
		if variable != "HERMETIC_CUDA_VERSION" {
			continue
		}
		if m := cudaMajorRE().FindStringSubmatch(val); m == nil || "cuda"+m[1] != variant {
			n.refuse(r, fmt.Sprintf("CUDA %q does not belong to the %s variant", val, variant))
			continue
		}
		k, ok := n.findBuild(ver, variant)
		if !ok {
			continue
		}
		b := &n.f.Builds[n.builds[k]]
		d, _ := version.ParseDotted(val)
		fs := d.Fields()
		mm := fmt.Sprintf("%d.%d", fs[0], fs[1])
		if b.CUDA != "" && b.CUDA != mm {
			other := b.Ref
			if i, ok := n.reqs[k.String()+"|cuda|"+db.KindTested]; ok {
				other = n.f.Requirements[i].Ref
			}
			n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "build " + k.String(), Field: "cuda",
				Kept: mm, KeptSource: n.src + " (" + r.Ref + ")", Other: b.CUDA, OtherSource: n.src + " (" + other + ")",
				Note: "installation.md's built-with CUDA lags the build config; the build config is kept as the build's CUDA, the page's value stays a tested requirement"})
		}
		b.CUDA = mm
	}
}

func (n *normalizer) findBuild(ver, variant string) (db.BuildKey, bool) {
	k := db.BuildKey{Component: component, Version: ver, Variant: variant, Platform: "linux"}
	_, ok := n.builds[k]
	return k, ok
}

func (n *normalizer) pins(recs []scraper.Record) {
	for _, r := range recs {
		f := r.Fields
		ver, err := publicVersion(f["jax_version"])
		if err != nil {
			n.refuse(r, err.Error())
			continue
		}
		if f["package"] == "" {
			n.refuse(r, "no package")
			continue
		}
		if f["spec"] != "" {
			if _, err := version.ParseSpecifiers(f["spec"]); err != nil {
				n.refuse(r, fmt.Sprintf("spec %q: %v", f["spec"], err))
				continue
			}
		}
		k, ok := n.findBuild(ver, f["cuda_variant"])
		if !ok {
			n.refuse(r, "no cuda extra of this release installs the "+f["cuda_variant"]+" variant")
			continue
		}
		p := n.prov(r)
		p.Ref += " (" + f["extra"] + ")"
		marker := strings.TrimSpace(strings.TrimPrefix(f["notes"], "marker:"))
		if !strings.HasPrefix(f["notes"], "marker:") {
			marker = ""
		}
		n.req(db.Requirement{Build: k, Needs: f["package"], Kind: db.KindPin, Spec: f["spec"], Marker: marker, Provenance: p})
	}
}

// drivers gives every build the driver floor for its CUDA major from the
// newest page snapshot at or before its release (the oldest one for
// releases older than every snapshot).
func (n *normalizer) drivers(recs []scraper.Record) {
	type floor struct {
		rel  version.Version
		spec string
		rec  scraper.Record
	}
	byMajor := map[string][]floor{}
	for _, r := range recs {
		f := r.Fields
		if f["release"] == "" {
			continue
		}
		rel, err := version.Parse(f["release"])
		d, derr := version.ParseDotted(f["min_driver"])
		if err != nil || derr != nil || d.Major() < 100 {
			n.refuse(r, fmt.Sprintf("driver %q or release %q does not parse", f["min_driver"], f["release"]))
			continue
		}
		byMajor[f["cuda_major"]] = append(byMajor[f["cuda_major"]], floor{rel, ">=" + f["min_driver"], r})
	}
	for _, fs := range byMajor {
		sort.Slice(fs, func(i, j int) bool { return fs[i].rel.Compare(fs[j].rel) < 0 })
	}
	for _, b := range n.f.Builds {
		fs := byMajor[strings.TrimPrefix(b.Variant, "cuda")]
		if len(fs) == 0 {
			continue
		}
		v := version.MustParse(b.Version)
		pick := fs[0]
		for _, fl := range fs {
			if fl.rel.Compare(v) <= 0 {
				pick = fl
			}
		}
		p := n.prov(pick.rec)
		n.req(db.Requirement{Build: b.Key(), Needs: "driver", Kind: db.KindMinimum, Spec: pick.spec, Provenance: p})
	}
}
