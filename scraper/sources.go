package scraper

import "sort"

// Sources is every source cudb knows, in precedence order: when two
// sources state the same fact differently, the earlier one is kept and the
// disagreement is recorded as a conflict. Adding a source is one package
// under scraper/ that calls Register in its init, one blank import in
// scraper/all, and one name in precedence.
//
// Source packages import this package (for Record, Input, Source), so
// this package cannot import them: they register themselves instead, and
// precedence stays explicit here.
func Sources() []Source {
	out := append([]Source(nil), registered...)
	rank := func(name string) int {
		for i, n := range precedence {
			if n == name {
				return i
			}
		}
		return len(precedence)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i].Name()), rank(out[j].Name())
		if ri != rj {
			return ri < rj
		}
		return out[i].Name() < out[j].Name()
	})
	return out
}

// precedence names the sources, earliest first; a registered source not
// listed here comes after every listed one, in name order.
var precedence = []string{
	"tensorflow",
	"jax",
	"onnxruntime",
	// PyTorch family; scraper/pytorch explains this order.
	"pytorch-lockfiles",
	"pytorch-previous-versions",
	"pytorch-release-md",
	"pytorch-build-matrix",
	"pytorch-domains",
	"pytorch-moi90",
	"cudadriver",
	"cudnn",
	"gpus",
	"cudaarch",
	"driverbranch",
}

var registered []Source

// Register adds a source; source packages call it from init.
func Register(s Source) { registered = append(registered, s) }

// Lookup returns the source named name.
func Lookup(name string) (Source, bool) {
	for _, s := range Sources() {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}
