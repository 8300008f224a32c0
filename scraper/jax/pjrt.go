package jax

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// The CUDA plugin wheel (jax-cudaNN-plugin) requires the PJRT wheel of the
// same release (jax-cudaNN-pjrt==<version>): jax_plugins/cuda/plugin_setup.py
// at each release tag says so. The lines are captured from the release
// tags (captures/CAPTURES.md); wherever the data has a build install the
// plugin, the pjrt pin of that release goes beside it, so a pin file names
// both wheels the GPU backend needs.
//
//go:embed captures/plugin_setup-install_requires@release-tags.txt
var pjrtCapture []byte

const tablePJRT = "pjrt_requires"

var rePJRTLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^jax-v(\d+\.\d+\.\d+(?:\.\d+)?):(jax_plugins/cuda/plugin_setup\.py):(\d+):\s*install_requires=\[f"jax-cuda\{cuda_version\}-pjrt==\{__version__\}"\],?$`)
})

// parsePJRT reads `git grep -n` output over release tags: one record per
// release whose plugin_setup.py requires jax-cuda{N}-pjrt=={__version__}.
// A line of another shape is an error: the capture is trimmed to these.
func parsePJRT(src []byte) ([]scraper.Record, error) {
	var recs []scraper.Record
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
		m := rePJRTLine().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			return nil, fmt.Errorf("line %d: not a plugin_setup.py pjrt requirement at a release tag: %q", i+1, line)
		}
		if seen[m[1]] {
			return nil, fmt.Errorf("line %d: release %s twice", i+1, m[1])
		}
		seen[m[1]] = true
		recs = append(recs, scraper.Record{Table: tablePJRT, Key: m[1],
			URL:    "https://github.com/jax-ml/jax/blob/jax-v" + m[1] + "/" + m[2] + "#L" + m[3],
			Ref:    fmt.Sprintf("plugin_setup.py@jax-v%s line %s", m[1], m[3]),
			Fields: map[string]string{"jax_version": m[1], "line": m[3]}})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no pjrt requirement")
	}
	return recs, nil
}

// pjrt adds, to every build whose install names a CUDA plugin of release
// v (jax-cudaNN-plugin), the PJRT wheel that plugin of v requires. Runs
// after the extras made the plugin requirements; a release without a
// captured line gets none (its plugin_setup.py is not in the data).
func (n *normalizer) pjrt(recs []scraper.Record) {
	byVersion := map[string]scraper.Record{}
	for _, r := range recs {
		byVersion[r.Fields["jax_version"]] = r
	}
	var add []db.Requirement
	for _, q := range n.f.Requirements {
		m := pluginNameRE().FindStringSubmatch(q.Needs)
		if m == nil || !strings.HasSuffix(m[1], "-plugin") || (q.Kind != db.KindPaired && q.Kind != db.KindPin) {
			continue
		}
		// An exact plugin ("==0.7.1", ">=0.4.30,<=0.4.30") takes the pjrt
		// of that release. A range (jax 0.4.37 allows the plugin
		// ">=0.4.36,<=0.4.37": jax-only patch releases publish no plugin of
		// their own) takes the same range: every plugin in it requires the
		// pjrt of its own version, so pip settles both on one release.
		lo, hi, ok := bounds(q.Spec)
		if !ok {
			continue
		}
		r, okHi := byVersion[hi]
		if _, okLo := byVersion[lo]; !okHi || !okLo {
			continue
		}
		spec := "==" + hi
		if lo != hi {
			spec = q.Spec
		}
		add = append(add, db.Requirement{Build: q.Build, Needs: "jax-cuda" + m[2] + "-pjrt", Kind: db.KindPaired,
			Spec: spec, Provenance: n.prov(r)})
	}
	for _, q := range add {
		n.req(q)
	}
}

// bounds are the lowest and highest versions a specifier allows when it
// states both: "==X" (X, X) or ">=A,<=B" (A, B).
func bounds(spec string) (lo, hi string, ok bool) {
	for _, c := range strings.Split(spec, ",") {
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, "=="):
			lo, hi = c[2:], c[2:]
		case strings.HasPrefix(c, ">="):
			lo = c[2:]
		case strings.HasPrefix(c, "<="):
			hi = c[2:]
		default:
			return "", "", false
		}
	}
	return lo, hi, lo != "" && hi != ""
}
