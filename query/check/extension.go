package check

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

var aptToolkitRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^cuda-(?:toolkit|nvcc|compiler)-(\d+)-(\d+)(?:=.*)?$`)
})

// toolkit is the CUDA toolkit (nvcc) a unit compiles with and where it
// comes from: an apt cuda-toolkit-X-Y / cuda-nvcc-X-Y package, else a
// devel image's.
func toolkit(u *Unit) (cuda, from string, line int) {
	for _, p := range u.Apt {
		if m := aptToolkitRe().FindStringSubmatch(p.Name); m != nil {
			return m[1] + "." + m[2], "apt package " + p.Name, p.Line
		}
	}
	if im := u.Image; im != nil && im.Family == FamilyCUDA && im.Flavour == "devel" && im.CUDA != "" {
		return im.CUDA, "image " + im.Ref, im.Line
	}
	return "", "", 0
}

// extensions judges each CUDA extension build against torch's CUDA:
// torch.utils.cpp_extension (and apex's own check) refuse to compile
// with an nvcc of another CUDA major than the one torch was built with,
// so the build fails.
func (c *checker) extensions(ctx context.Context, u *Unit, g *fwGroup) {
	if g.component != frameworks.Torch || len(u.Extensions) == 0 || g.stack == nil || g.stack.CUDA == "" {
		return
	}
	tk, from, _ := toolkit(u)
	if tk == "" {
		return
	}
	s := g.stack
	if version.MajorText(tk) == version.MajorText(s.CUDA) {
		return
	}
	fix := ""
	req := query.ResolveRequest{Requirements: []string{g.main.Name + g.main.Spec}, Platform: c.platform(), Python: pyMinor(c.python(u)), CUDA: version.MinorText(tk)}
	b := c.best(ctx, req)
	if b == nil || version.MajorText(b.CUDA) != version.MajorText(tk) {
		req.Requirements = []string{g.component}
		b = c.best(ctx, req)
	}
	if b != nil && version.MajorText(b.CUDA) == version.MajorText(tk) {
		fix = c.render(u, g, b)
	}
	for _, e := range u.Extensions {
		c.add(Finding{File: u.File, Line: e.Line, Category: findings.CatToolkitMismatch, Severity: findings.SevError, Unit: u.Name,
			Message: fmt.Sprintf("%s compiles against %s, built with CUDA %s, using the CUDA %s toolkit of the %s: torch.utils.cpp_extension refuses a CUDA major other than torch's, so the build fails",
				e.What, stackLabel(s), s.CUDA, tk, from),
			Evidence: []string{"toolkit: CUDA " + tk + " (" + from + ")", "torch: " + stackLabel(s) + " (CUDA " + s.CUDA + ")", "requirement: " + g.main.text()},
			Fix:      fix, Sources: s.Sources})
	}
}

// targetWarnings are findings about the target host itself, reported
// at the top of every file: a GPU name the database does not know.
func (c *checker) targetWarnings(file string) {
	for _, w := range c.warnings {
		w.File = file
		c.add(w)
	}
}

// gpuNameUnknown turns an unknown --gpu into a warning: the checks that
// need the GPU's architecture are skipped and everything else is judged.
func gpuNameUnknown(t Target, err error) Finding {
	return Finding{Line: 1, Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
		Message: fmt.Sprintf("target GPU %q: %v; the GPU-architecture checks are skipped and the rest is judged", t.GPU, strings.TrimSpace(err.Error())),
		Fix:     "cudb check … --sm <compute capability> (nvidia-smi --query-gpu=compute_cap --format=csv prints it)"}
}
