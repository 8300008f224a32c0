package pin

import (
	"slices"
	"strings"

	"github.com/cudb/cudb/query"
)

// Where a pin's packages come from: PyPI, a framework's variant index or
// feed, a find-links page, and in which order pip reads them.

// needsPyPI reports whether some framework comes from PyPI.
func (p *pinPlan) needsPyPI() bool {
	for _, pt := range p.parts {
		if pt.index == "" && pt.findLinks == "" {
			return true
		}
	}
	return false
}

func (p *pinPlan) variantIndexes() []string {
	var out []string
	// Feeds lacking dependencies first (see indexArgs).
	for _, first := range []bool{true, false} {
		for _, pt := range p.parts {
			if pt.index != "" && pt.feedLacksDeps == first && !slices.Contains(out, pt.index) {
				out = append(out, pt.index)
			}
		}
	}
	return out
}

// feedLacksDeps reports whether some framework comes from a feed that
// holds its wheel but not its dependencies.
func (p *pinPlan) feedLacksDeps() bool {
	for _, pt := range p.parts {
		if pt.index != "" && pt.feedLacksDeps {
			return true
		}
	}
	return false
}

func (p *pinPlan) findLinks() []string {
	var out []string
	for _, pt := range p.parts {
		if pt.findLinks != "" && !slices.Contains(out, pt.findLinks) {
			out = append(out, pt.findLinks)
		}
	}
	return out
}

// indexArgs are pip's index options: one variant index replaces PyPI
// unless some framework needs PyPI, then every variant index is extra.
//
// A feed that holds a framework's wheel but not its dependencies
// (ONNX Runtime's CUDA 12 feed) is read before PyPI: pip keeps the first
// index's file when two indexes hold the same version, and PyPI's
// onnxruntime-gpu 1.18.0 is the CUDA 11.8 build.
func (p *pinPlan) indexArgs() []string {
	var out []string
	feedFirst := p.feedLacksDeps()
	for i, u := range p.variantIndexes() {
		if i == 0 && (!p.needsPyPI() || feedFirst) {
			out = append(out, "--index-url "+u)
		} else {
			out = append(out, "--extra-index-url "+u)
		}
	}
	if feedFirst {
		out = append(out, "--extra-index-url "+query.PyPISimple)
	}
	for _, u := range p.findLinks() {
		out = append(out, "-f "+u)
	}
	return out
}

func defaultIndex(s *query.Stack) string {
	for _, b := range s.Builds() {
		if b.IndexURL != "" && !isPyPI(b.IndexURL) {
			return b.IndexURL
		}
	}
	return "the variant index"
}

func isPyPI(u string) bool {
	return u == "" || strings.HasPrefix(u, "https://pypi.org/") || strings.HasPrefix(u, "https://pypi.python.org/")
}
