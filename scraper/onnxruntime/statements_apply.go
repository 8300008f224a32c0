package onnxruntime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// sinceFact is a statement that holds from release first on.
type sinceFact struct {
	first, value, variant string
	prov                  db.Provenance
}

// applyStatements folds the stated facts into the builds the tables made,
// after them (the tables are ONNX Runtime's own pages; the statements only
// fill what they leave empty):
//   - a release named only by a statement, a PyPI wheel or PyPI's release
//     list gets the build PyPI serves, when a pypi-cuda statement says
//     which CUDA line that is;
//   - a release with no build marked as PyPI's gets the stated one;
//   - a CUDA 13 build without a cuDNN gets the stated major;
//   - builds that name no platform get the stated platforms (one build per
//     platform), or, where PyPI's wheels of the release cover both Linux
//     and Windows, the platforms of those wheels.
func (n *normalizer) applyStatements(recs []scraper.Record) {
	sort.SliceStable(recs, func(i, j int) bool { return lineOf(recs[i].Ref) < lineOf(recs[j].Ref) })
	var pypiCUDA, cudnn []sinceFact
	type span struct {
		first, last string
		plats       []string
		prov        db.Provenance
	}
	var spans []span
	type pyFact struct {
		first, last, variant, lo, hi string
		prov                         db.Provenance
	}
	var pys []pyFact
	wheels := map[string][]Wheel{}
	wheelProv := map[string]db.Provenance{}
	var named []string
	namedProv := map[string]db.Provenance{}
	for _, r := range recs {
		f := r.Fields
		p := db.Provenance{Source: n.src, URL: r.URL, Ref: r.Ref + " (" + f["strength"] + ")"}
		switch f["kind"] {
		case "pypi-cuda":
			pypiCUDA = append(pypiCUDA, sinceFact{first: f["first"], value: f["cuda_major"], prov: p})
		case "cudnn":
			cudnn = append(cudnn, sinceFact{first: f["first"], value: f["cudnn_major"], variant: f["variant"], prov: p})
		case "platforms":
			spans = append(spans, span{first: f["first"], last: f["last"], plats: strings.Fields(f["platforms"]), prov: p})
		case "python":
			pys = append(pys, pyFact{first: f["first"], last: f["last"], variant: f["variant"], lo: f["python_min"], hi: f["python_max"], prov: p})
		case "wheel":
			v := f["version"]
			wp := p
			wp.URL = f["wheel_url"]
			if _, ok := wheelProv[v]; !ok {
				wheelProv[v] = wp
				named = append(named, v)
				namedProv[v] = wp
			}
			wheels[v] = append(wheels[v], Wheel{Version: v, PythonTag: f["python_tag"], Platform: f["platform"], URL: f["wheel_url"]})
		case "release", "pypi-newest":
			if _, ok := namedProv[f["version"]]; !ok {
				named = append(named, f["version"])
				namedProv[f["version"]] = p
			}
		default:
			n.refuse(r, "unknown statement kind "+f["kind"])
		}
	}
	// PyPI's build of every release a pypi-cuda statement covers: a release
	// known only from statements, or one whose rows name other builds only
	// (1.25.0: the CUDA 13 aarch64 feed package).
	hasPyPILine := func(v, variant string) bool {
		for _, b := range n.f.Builds {
			if b.Version == v && b.Variant == variant && b.Platform != "linux-aarch64" {
				return true
			}
		}
		return false
	}
	for _, v := range append(sortedKeys(n.releases), named...) {
		sf, ok := since(pypiCUDA, v)
		if !ok {
			if !n.releases[v] {
				n.f.Conflicts = append(n.f.Conflicts, db.Conflict{Subject: "onnxruntime-gpu " + v, Field: "refused", OtherSource: n.src + " (" + namedProv[v].Ref + ")",
					Note: "a release no table describes and no statement says which CUDA line PyPI serves for"})
			}
			continue
		}
		if hasPyPILine(v, "cuda"+sf.value) {
			continue
		}
		p, ok := namedProv[v]
		if !ok {
			p = sf.prov
		}
		k := n.build(v, "cuda"+sf.value, "", sf.value, p)
		n.req(db.Requirement{Build: k, Needs: "cuda", Kind: db.KindTested, Spec: sf.value, Provenance: sf.prov})
	}
	byVersion := map[string][]int{}
	for i, b := range n.f.Builds {
		byVersion[b.Version] = append(byVersion[b.Version], i)
	}
	// PyPI's build, where no table said.
	for _, v := range sortedKeys(byVersion) {
		sf, ok := since(pypiCUDA, v)
		if !ok {
			continue
		}
		has := false
		for _, i := range byVersion[v] {
			has = has || n.f.Builds[i].IsDefault
		}
		if has {
			continue
		}
		for _, i := range byVersion[v] {
			b := &n.f.Builds[i]
			if b.Variant == "cuda"+sf.value {
				b.IsDefault = true
				n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: v, Key: "pypi_default@" + b.Variant + platformSuffix(b.Platform), Value: "yes", Provenance: sf.prov})
			}
		}
	}
	// cuDNN majors of the builds no table gave one.
	withCUDNN := map[db.BuildKey]bool{}
	for _, q := range n.f.Requirements {
		if q.Needs == "cudnn" {
			withCUDNN[q.Build] = true
		}
	}
	for _, b := range n.f.Builds {
		for _, sf := range cudnn {
			if sf.variant == b.Variant && atLeast(b.Version, sf.first) && !withCUDNN[b.Key()] {
				n.req(db.Requirement{Build: b.Key(), Needs: "cudnn", Kind: db.KindTested, Spec: sf.value, Provenance: sf.prov})
				withCUDNN[b.Key()] = true
			}
		}
	}
	// Python ranges no table gave.
	for i := range n.f.Builds {
		b := &n.f.Builds[i]
		for _, py := range pys {
			if b.Variant == py.variant && b.PythonMin == "" && b.PythonMax == "" && atLeast(b.Version, py.first) && !atLeast(b.Version, nextAfter(py.last)) {
				b.PythonMin, b.PythonMax = py.lo, py.hi
				n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: b.Version, Key: "python@" + b.Variant + platformSuffix(b.Platform), Value: py.lo + "-" + py.hi, Provenance: py.prov})
			}
		}
	}
	// Platforms.
	for _, v := range sortedKeys(byVersion) {
		var plats []string
		var p db.Provenance
		for _, s := range spans {
			if atLeast(v, s.first) && !atLeast(v, nextAfter(s.last)) {
				plats, p = s.plats, s.prov
			}
		}
		onlyDefault := false
		if plats == nil {
			seen := map[string]bool{}
			for _, w := range wheels[v] {
				if w.Platform != "" {
					seen[w.Platform] = true
				}
			}
			if seen["linux"] && seen["windows"] {
				plats, p, onlyDefault = sortedKeys(seen), wheelProv[v], true
			}
		}
		if plats != nil {
			n.splitPlatforms(v, plats, p, onlyDefault)
		}
	}
}

// splitPlatforms gives every build of release v that names no platform one
// build per platform, with the same requirements.
func (n *normalizer) splitPlatforms(v string, plats []string, p db.Provenance, onlyDefault bool) {
	for i := range n.f.Builds {
		b := &n.f.Builds[i]
		if b.Version != v || b.Platform != "" || (onlyDefault && !b.IsDefault) {
			continue
		}
		old := b.Key()
		var reqs []db.Requirement
		for _, q := range n.f.Requirements {
			if q.Build == old {
				reqs = append(reqs, q)
			}
		}
		for j, pl := range plats {
			nb := *b
			nb.Platform = pl
			nk := nb.Key()
			if j == 0 {
				b.Platform = pl
				for qi := range n.f.Requirements {
					if n.f.Requirements[qi].Build == old {
						n.f.Requirements[qi].Build = nk
					}
				}
			} else {
				n.f.Builds = append(n.f.Builds, nb)
				b = &n.f.Builds[i]
				for _, q := range reqs {
					q.Build = nk
					n.f.Requirements = append(n.f.Requirements, q)
				}
			}
			n.f.Attributes = append(n.f.Attributes, db.Attribute{Component: component, Version: v, Key: "platform@" + nb.Variant + "/" + pl, Value: "yes", Provenance: p})
		}
	}
}

// since is the statement with the latest first release at or before v.
func since(fs []sinceFact, v string) (sinceFact, bool) {
	var best sinceFact
	ok := false
	for _, f := range fs {
		if atLeast(v, f.first) && (!ok || atLeast(f.first, best.first)) {
			best, ok = f, true
		}
	}
	return best, ok
}

// atLeast reports whether release a is at or after release b.
func atLeast(a, b string) bool {
	x, err1 := version.Parse(a)
	y, err2 := version.Parse(b)
	return err1 == nil && err2 == nil && x.Compare(y) >= 0
}

// nextAfter is the first release past a span ending at last: the patch
// releases of last's minor are part of the span ("1.18.0..1.28.0" covers
// 1.28.1), the next minor is not.
func nextAfter(last string) string {
	v, err := version.Parse(last)
	if err != nil {
		return last
	}
	r := v.Release()
	if len(r) < 2 {
		return last
	}
	return fmt.Sprintf("%d.%d.0", r[0], r[1]+1)
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
