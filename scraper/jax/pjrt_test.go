package jax

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// The captured plugin_setup.py lines cover the releases 0.4.21–0.11.0,
// each citing its line at its release tag.
func TestPJRTCapture(t *testing.T) {
	recs, err := parsePJRT(pjrtCapture)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]scraper.Record{}
	for _, r := range recs {
		by[r.Fields["jax_version"]] = r
	}
	for _, v := range []string{"0.4.21", "0.4.30", "0.4.36", "0.4.37", "0.5.2", "0.7.1", "0.9.0.1", "0.11.0"} {
		if _, ok := by[v]; !ok {
			t.Errorf("no line for %s", v)
		}
	}
	if _, ok := by["0.4.20"]; ok {
		t.Error("0.4.20's plugin_setup.py has no pjrt requirement")
	}
	if got := by["0.4.30"].URL; got != "https://github.com/jax-ml/jax/blob/jax-v0.4.30/jax_plugins/cuda/plugin_setup.py#L53" {
		t.Errorf("0.4.30 cites %q", got)
	}
}

// A build installing the plugin gets the pjrt of the same release; a
// plugin range gets the same range; no plugin, no evidence or an open
// range gets none.
func TestPJRTBesidePlugin(t *testing.T) {
	recs, err := parsePJRT(pjrtCapture)
	if err != nil {
		t.Fatal(err)
	}
	n := &normalizer{f: &db.Facts{}, src: "jax", builds: map[db.BuildKey]int{}, reqs: map[string]int{}, attrs: map[[3]string]bool{}, releases: map[string]bool{}}
	plugin := func(ver, variant, name, spec string) {
		k := n.build(ver, variant, db.Provenance{Source: "jax"})
		n.req(db.Requirement{Build: k, Needs: name, Kind: db.KindPaired, Spec: spec})
	}
	plugin("0.4.30", "cuda12", "jax-cuda12-plugin", ">=0.4.30,<=0.4.30")
	plugin("0.4.37", "cuda12", "jax-cuda12-plugin", ">=0.4.36,<=0.4.37")
	plugin("0.8.0", "cuda13", "jax-cuda13-plugin", "==0.8.0")
	plugin("0.4.20", "cuda12", "jax-cuda12-plugin", "==0.4.20") // no evidence
	plugin("0.6.0", "cuda12", "jax-cuda12-plugin", ">=0.6.0")   // open range
	plugin("0.4.29", "cuda12", "jaxlib", "==0.4.29+cuda12.cudnn91")
	n.pjrt(recs)
	got := map[string]string{}
	for _, q := range n.f.Requirements {
		if strings.HasSuffix(q.Needs, "-pjrt") {
			got[q.Build.Version+" "+q.Needs] = q.Spec
			if !strings.HasPrefix(q.URL, "https://github.com/jax-ml/jax/blob/jax-v") {
				t.Errorf("%s cites %q", q.Needs, q.URL)
			}
		}
	}
	want := map[string]string{
		"0.4.30 jax-cuda12-pjrt": "==0.4.30",
		"0.4.37 jax-cuda12-pjrt": ">=0.4.36,<=0.4.37",
		"0.8.0 jax-cuda13-pjrt":  "==0.8.0",
	}
	if len(got) != len(want) {
		t.Errorf("pjrt requirements %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
}

func TestParsePJRTSad(t *testing.T) {
	line := `jax-v0.4.30:jax_plugins/cuda/plugin_setup.py:53:    install_requires=[f"jax-cuda{cuda_version}-pjrt=={__version__}"],`
	for name, src := range map[string]string{
		"empty":       "",
		"other file":  strings.Replace(line, "plugin_setup.py", "setup.py", 1),
		"rc tag":      strings.Replace(line, "jax-v0.4.30", "jax-v0.4.30-rc", 1),
		"other text":  line + "\njax-v0.4.31:jax_plugins/cuda/plugin_setup.py:53:    install_requires=[],",
		"twice":       line + "\n" + line,
		"pinned text": strings.Replace(line, "{__version__}", "0.4.30", 1),
	} {
		if recs, err := parsePJRT([]byte(src)); err == nil {
			t.Errorf("%s: no error, %d records", name, len(recs))
		}
	}
}

func FuzzParsePJRT(f *testing.F) {
	f.Add(string(pjrtCapture))
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parsePJRT([]byte(src))
		if err != nil {
			return
		}
		for _, r := range recs {
			if _, err := publicVersion(r.Fields["jax_version"]); err != nil || !strings.Contains(r.URL, "/jax-v"+r.Fields["jax_version"]+"/") {
				t.Fatalf("record %+v", r)
			}
		}
	})
}
