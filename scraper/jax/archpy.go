package jax

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// What a release's CUDA wheels are built for, read at its release tag:
// the compute capabilities of its .bazelrc (the list the CUDA config hands
// to the compiler; build.py only overrides it when asked) and the Python
// versions of jaxlib/setup.py (python_requires and the classifiers). Both
// are `git grep -n` output over the release tags (captures/CAPTURES.md).
//
//go:embed captures/bazelrc-compute_capabilities@release-tags.txt
var capsCapture []byte

//go:embed captures/jaxlib-setup-python@release-tags.txt
var pythonCapture []byte

const (
	tableCaps   = "compute_caps"   // one CUDA config's compute capabilities at a tag
	tablePython = "python_support" // jaxlib's python_requires and newest classifier at a tag
)

var (
	reCapsLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^jax-v(\d+\.\d+\.\d+(?:\.\d+)?):(\.bazelrc):(\d+):(?:build|common):(cuda(?:_v1\d)?) --(?:action|repo)_env[ =](?:TF|HERMETIC)_CUDA_COMPUTE_CAPABILITIES="([a-z0-9_,]+)"$`)
	})
	reCap        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(sm|compute)_(\d{2,3})$`) })
	rePythonLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^jax-v(\d+\.\d+\.\d+(?:\.\d+)?):(jaxlib/setup\.py):(\d+):\s*(?:python_requires=['"]>=(3\.\d+)['"],|"Programming Language :: Python :: (3\.\d+)",)$`)
	})
)

// parseCaps reads the captured .bazelrc lines: one record per release and
// CUDA config ("cuda" before the CUDA 12/13 split, "cuda_v12"/"cuda_v13"
// after), the list as the file writes it.
func parseCaps(src []byte) ([]scraper.Record, error) {
	var recs []scraper.Record
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
		m := reCapsLine().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			return nil, fmt.Errorf("line %d: not a CUDA config's compute capabilities at a release tag: %q", i+1, line)
		}
		key := m[1] + "/" + m[4]
		if seen[key] {
			return nil, fmt.Errorf("line %d: release %s config %s twice", i+1, m[1], m[4])
		}
		seen[key] = true
		recs = append(recs, scraper.Record{Table: tableCaps, Key: key,
			URL:    "https://github.com/jax-ml/jax/blob/jax-v" + m[1] + "/" + m[2] + "#L" + m[3],
			Ref:    fmt.Sprintf(".bazelrc@jax-v%s line %s (%s)", m[1], m[3], m[4]),
			Fields: map[string]string{"jax_version": m[1], "config": m[4], "capabilities": m[5]}})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no compute capabilities")
	}
	return recs, nil
}

// parsePython reads the captured jaxlib/setup.py lines: one record per
// release with its python_requires floor and the newest Python its
// classifiers name (the range the release's wheels are published for).
func parsePython(src []byte) ([]scraper.Record, error) {
	type acc struct {
		min, max, minLine, maxLine string
		order                      int
	}
	by := map[string]*acc{}
	for i, line := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
		m := rePythonLine().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			return nil, fmt.Errorf("line %d: not a python_requires or Python classifier of jaxlib/setup.py at a release tag: %q", i+1, line)
		}
		a := by[m[1]]
		if a == nil {
			a = &acc{order: len(by)}
			by[m[1]] = a
		}
		switch {
		case m[4] != "":
			if a.min != "" {
				return nil, fmt.Errorf("line %d: release %s has two python_requires", i+1, m[1])
			}
			a.min, a.minLine = m[4], m[3]
		case a.max == "" || pyMinor(m[5]) > pyMinor(a.max):
			a.max, a.maxLine = m[5], m[3]
		}
	}
	vers := make([]string, 0, len(by))
	for v := range by {
		vers = append(vers, v)
	}
	sort.Slice(vers, func(i, j int) bool { return by[vers[i]].order < by[vers[j]].order })
	var recs []scraper.Record
	for _, v := range vers {
		a := by[v]
		if a.min == "" || a.max == "" || pyMinor(a.max) < pyMinor(a.min) {
			return nil, fmt.Errorf("release %s: python_requires %q and newest classifier %q do not make a range", v, a.min, a.max)
		}
		recs = append(recs, scraper.Record{Table: tablePython, Key: v,
			URL:    "https://github.com/jax-ml/jax/blob/jax-v" + v + "/jaxlib/setup.py#L" + a.minLine,
			Ref:    fmt.Sprintf("jaxlib/setup.py@jax-v%s lines %s (python_requires), %s (newest classifier)", v, a.minLine, a.maxLine),
			Fields: map[string]string{"jax_version": v, "python_min": a.min, "python_max": a.max}})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no Python support")
	}
	return recs, nil
}

func pyMinor(s string) int {
	_, after, _ := strings.Cut(s, ".")
	n, _ := strconv.Atoi(after)
	return n
}

// archList turns the .bazelrc list into the model's form. The file's own
// comment says what the two prefixes mean: "sm" emits only cubin, "compute"
// emits both cubin and PTX; so compute_120 is sm_120 plus compute_120.
func archList(caps string) (string, error) {
	var out []string
	for _, c := range strings.Split(caps, ",") {
		m := reCap().FindStringSubmatch(c)
		if m == nil {
			return "", fmt.Errorf("capability %q is neither sm_NN nor compute_NN", c)
		}
		out = append(out, "sm_"+m[2])
		if m[1] == "compute" {
			out = append(out, "compute_"+m[2])
		}
	}
	return strings.Join(out, " "), nil
}

// caps sets the arch list of every CUDA build of a release from its tag's
// .bazelrc: the cuda_v12/cuda_v13 config for its variant, or the single
// "cuda" config every CUDA wheel of a release used before the split. A
// release the data holds no CUDA build of is recorded as refused.
func (n *normalizer) caps(recs []scraper.Record) {
	byRelease := map[string]map[string]scraper.Record{}
	for _, r := range recs {
		v, err := publicVersion(r.Fields["jax_version"])
		if err != nil {
			n.refuse(r, err.Error())
			continue
		}
		if byRelease[v] == nil {
			byRelease[v] = map[string]scraper.Record{}
		}
		byRelease[v][r.Fields["config"]] = r
	}
	used := map[string]bool{}
	for i := range n.f.Builds {
		b := &n.f.Builds[i]
		cfgs := byRelease[b.Version]
		r, ok := cfgs["cuda_v"+strings.TrimPrefix(b.Variant, "cuda")]
		if !ok {
			r, ok = cfgs["cuda"]
		}
		if !ok {
			continue
		}
		list, err := archList(r.Fields["capabilities"])
		if err != nil {
			n.refuse(r, err.Error())
			used[r.Key] = true
			continue
		}
		b.ArchList, b.ArchFrom = list, n.prov(r)
		used[r.Key] = true
	}
	for _, r := range recs {
		if !used[r.Key] {
			n.refuse(r, "no CUDA build of this release (and config) is in the data")
		}
	}
}

// python sets the Python range of every build of a release from its tag's
// jaxlib/setup.py: every CUDA build installs that release's jaxlib.
func (n *normalizer) python(recs []scraper.Record) {
	by := map[string]scraper.Record{}
	for _, r := range recs {
		v, err := publicVersion(r.Fields["jax_version"])
		if err != nil {
			n.refuse(r, err.Error())
			continue
		}
		by[v] = r
	}
	used := map[string]bool{}
	for _, r := range recs {
		v, err := publicVersion(r.Fields["jax_version"])
		if err == nil && n.releases[v] {
			// The build rows carry the source's own provenance; the
			// attribute cites the setup.py lines the range was read from.
			n.attr(db.Attribute{Component: component, Version: v, Key: "python_range",
				Value: r.Fields["python_min"] + "-" + r.Fields["python_max"], Provenance: n.prov(r)})
		}
	}
	for i := range n.f.Builds {
		b := &n.f.Builds[i]
		r, ok := by[b.Version]
		if !ok {
			continue
		}
		b.PythonMin, b.PythonMax = r.Fields["python_min"], r.Fields["python_max"]
		used[r.Key] = true
	}
	for _, r := range recs {
		if !used[r.Key] {
			n.refuse(r, "no CUDA build of this release is in the data")
		}
	}
}
