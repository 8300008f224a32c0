package check

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

func (c *checker) platform() string {
	if c.opts.Target.Platform != "" {
		return c.opts.Target.Platform
	}
	return "linux"
}

// request is the resolve question a group asks: its lines as pip would
// read them, the variant its index URL names, the unit's Python.
func (c *checker) request(u *Unit, g *fwGroup, py string) query.ResolveRequest {
	req := query.ResolveRequest{Python: pyMinor(py), Platform: c.platform()}
	for _, r := range g.reqs {
		spec := r.Spec
		if r.Name != g.main.Name {
			// A companion's local label (+cu117) repeats the variant
			// the framework's line already chooses.
			spec = stripLocal(spec)
		}
		req.Requirements = append(req.Requirements, r.Name+spec)
	}
	if g.main.Installer == InstallerConda {
		req.Channel = "conda"
		for _, r := range u.Reqs {
			// pytorch-cuda=12.1 and cudatoolkit=11.8 choose the CUDA
			// build of conda's pytorch.
			if (r.Name == "pytorch-cuda" || r.Name == "cudatoolkit" || r.Name == "cuda-version") && r.Spec != "" {
				req.CUDA = version.MinorText(strings.TrimSuffix(strings.TrimPrefix(r.Spec, "=="), ".*"))
			}
			// cpuonly (or the cpu pytorch-mutex) selects the CPU build.
			if r.Name == "cpuonly" || r.Name == "pytorch-mutex" && strings.Contains(r.Spec, "cpu") {
				req.Variant = "cpu"
			}
		}
	} else if v := variantOf(g.main.IndexURL); v != "" && !hasLocal(g.main.Spec) {
		req.Variant = v
	} else if localCPU(g.main.Spec) {
		// ==2.5.1+cpu names the CPU build (resolve's default is the CUDA
		// builds).
		req.Variant = "cpu"
	} else if strings.HasSuffix(g.main.Package, "-cpu") {
		// A framework's -cpu package (tensorflow-cpu) is its CPU build.
		req.Variant = "cpu"
	}
	return req
}

// resolveGroup finds the build the group's lines install; a line no
// known build matches becomes a finding naming which part failed.
func (c *checker) resolveGroup(ctx context.Context, u *Unit, g *fwGroup, py string) error {
	m := g.main
	for _, r := range g.reqs {
		if why := wheelFits(r.Wheel, py, c.platform()); why != "" {
			c.add(Finding{File: r.File, Line: r.Line, Category: CatNoMatchingBuild, Severity: findings.SevError, Unit: u.Name,
				Message:  fmt.Sprintf("%s%s: %s, so pip refuses it (\"not a supported wheel on this platform\")", r.Name, r.Spec, why),
				Evidence: []string{"wheel: " + r.Wheel.Name + "-" + r.Wheel.Version + "-" + r.Wheel.Python + "-" + r.Wheel.ABI + "-" + r.Wheel.Platform}})
		}
	}
	if hasLocal(m.Spec) && m.IndexURL == "" && m.Unseen == "" && (m.Installer == InstallerPip || m.Installer == InstallerUV) {
		fix := ""
		if s := c.best(ctx, query.ResolveRequest{Requirements: []string{m.Name + m.Spec}, Platform: c.platform()}); s != nil {
			fix = c.render(u, g, s)
		}
		c.add(Finding{File: m.File, Line: m.Line, Category: CatNoMatchingBuild, Severity: findings.SevError, Unit: u.Name,
			Message:  fmt.Sprintf("%s%s names a local build label, and PyPI publishes none: pip finds no such wheel without the PyTorch index", m.Name, m.Spec),
			Evidence: []string{"index: PyPI (no --index-url)"}, Fix: fix})
		// The label names one build: the host checks still judge it.
		c.fallbackStack(ctx, u, g, c.request(u, g, py))
		return nil
	}
	if slices.Contains(m.Extras, "cpu") {
		// jax[cpu]: a CPU build whatever the database records of it.
		if c.gpuIntended(u) && !u.alt && !u.gpuPeer {
			fix := ""
			if s := c.best(ctx, c.withTarget(query.ResolveRequest{Requirements: []string{m.Name + m.Spec}, Platform: c.platform(), Python: pyMinor(py)})); s != nil && s.CUDA != "" {
				g2 := *g
				g2.main.Extras = []string{"cuda" + version.MajorText(s.CUDA)}
				fix = c.render(u, &g2, s)
			}
			c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatCPUOnlyWheel, Severity: findings.SevError, Unit: u.Name,
				Message: fmt.Sprintf("%s installs the CPU build, but this environment is meant for a GPU (%s): it will never use the GPU", m.text(), gpuReason(c, u)),
				Fix:     fix})
		}
		return nil
	}
	req := c.request(u, g, py)
	res, err := c.resolve(ctx, req)
	if err != nil {
		return c.noMatch(ctx, u, g, req, err)
	}
	if len(res.Stacks) == 0 {
		return nil
	}
	pick := &res.Stacks[0]
	if req.Variant == "" && req.Channel == "" && !hasLocal(m.Spec) {
		// pip from PyPI installs the default build.
		for i := range res.Stacks {
			if res.Stacks[i].Default {
				pick = &res.Stacks[i]
				break
			}
		}
	}
	g.stack = pick
	if req.Python != "" && pick.Python.Min == "" && pick.Python.Max == "" {
		// resolve keeps a build whose Python range the database does
		// not record: that fact is missing, and said so.
		c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			// verify's words and label, so its pass over the same
			// build adds no second finding
			Message: query.PythonRangeUnknownText(g.component+" "+pick.Packages[g.component], req.Python, ""),
			Fix:     "cudb matrix " + frameworks.Must(g.component).Matrix})
	}
	c.unknowns(ctx, u, g, req, pick)
	if !m.Pinned() && !g.fromImage {
		c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s is not pinned (%s): the installer takes the newest release when the image is built; judged as %s, the newest cudb knows",
				m.Name, orAny(m.Spec), stackLabel(pick)),
			Evidence: []string{"requirement: " + m.text()}, Fix: c.render(u, g, pick), Sources: pick.Sources})
	}
	return nil
}

// unknowns asks resolve about the chosen build on the target host and
// reports each fact its answer says is missing (a GPU architecture list
// the data does not hold): unknown is a warning, never a pass.
func (c *checker) unknowns(ctx context.Context, u *Unit, g *fwGroup, req query.ResolveRequest, pick *query.Stack) {
	t := c.opts.Target
	if t.Driver == "" && t.SM == "" {
		return
	}
	exact := req
	exact.Requirements = []string{g.component + "==" + pick.Packages[g.component]}
	exact.Variant = ""
	// The Python is judged on its own line (resolveGroup): here only the
	// host's facts.
	exact.Python = ""
	res, err := c.resolve(ctx, c.withTarget(exact))
	if err != nil || res.Status != "unknown" {
		return
	}
	for _, missing := range res.Unknown {
		c.add(Finding{File: g.main.File, Line: g.main.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: "not judged: " + missing, Fix: "cudb matrix " + frameworks.Must(g.component).Matrix, Sources: pick.Sources})
	}
}

func orAny(s string) string {
	if s == "" {
		return "any version"
	}
	return s
}

// noMatch explains a resolve that found nothing by relaxing one part at
// a time: the Python, then the companions.
func (c *checker) noMatch(ctx context.Context, u *Unit, g *fwGroup, req query.ResolveRequest, err error) error {
	switch errs.CodeOf(err) {
	case errs.CodeNotFound:
	case errs.CodeUsage:
		c.add(Finding{File: g.main.File, Line: g.main.Line, Category: CatNotJudged, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s cannot be judged: %v", g.main.text(), err)})
		return nil
	default:
		return err
	}
	m := g.main
	c.fallbackStack(ctx, u, g, req)
	if m.Unseen != "" {
		// The build may be served where cudb cannot look.
		c.add(Finding{File: m.File, Line: m.Line, Category: CatNotJudged, Severity: findings.SevWarning, Unit: u.Name,
			Message:  fmt.Sprintf("%s matches no build cudb knows (%v), and it may come from %s, which cudb cannot read: not judged", m.text(), err, m.Unseen),
			Evidence: []string{"requirement: " + m.text(), "source: " + m.Unseen}})
		return nil
	}
	if g.fromImage {
		// The image exists: what is missing is the database's fact.
		c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s ships %s%s, which the database does not know (%v): its checks are skipped", u.Image.Ref, m.Name, m.Spec, err),
			Fix:     "cudb matrix " + frameworks.Must(g.component).Matrix})
		return nil
	}
	if m.Pinned() && c.best(ctx, query.ResolveRequest{Requirements: []string{m.Name + stripLocal(m.Spec)}, Platform: c.platform()}) == nil {
		// The database has no release of that version at all: a fact it
		// lacks, not a build that does not exist.
		// The one wording of an unknown release (query.ReleaseUnknownText),
		// as verify says it of an installed one.
		msg := fmt.Sprintf("the database records no release %s%s (%v): it is not judged", m.Name, stripLocal(m.Spec), err)
		if ver, ok := strings.CutPrefix(stripLocal(m.Spec), "=="); ok && !strings.ContainsAny(ver, "*,") {
			msg = query.ReleaseUnknownText(ctx, c.d, g.component, ver, m.Name+" "+ver, "it is not judged")
		}
		c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: msg,
			Fix:     fmt.Sprintf("cudb refresh (update the data), or cudb matrix %s for the known releases", frameworks.Must(g.component).Matrix)})
		return nil
	}
	cat, sev := CatNoMatchingBuild, findings.SevError
	msg := err.Error()
	if req.Python != "" {
		r2 := req
		r2.Python = ""
		s := c.best(ctx, r2)
		if s == nil && len(g.reqs) > 1 && c.best(ctx, query.ResolveRequest{Requirements: []string{m.Name + m.Spec}, Python: req.Python, Platform: req.Platform, Variant: req.Variant}) == nil {
			// The framework's own line does not fit the Python either:
			// that, not its companions, is what fails first.
			r2.Requirements = []string{m.Name + m.Spec}
			s = c.best(ctx, r2)
		}
		if s != nil {
			cat = findings.CatPythonUnsupported
			msg = fmt.Sprintf("%s has no build for Python %s (%s supports Python %s-%s)", m.text(), req.Python, stackLabel(s), s.Python.Min, s.Python.Max)
		}
	}
	if cat == CatNoMatchingBuild && len(g.reqs) > 1 {
		r3 := req
		r3.Requirements = []string{m.Name + m.Spec}
		if s := c.best(ctx, r3); s != nil {
			var at *Requirement
			cat, sev, msg, at = c.companions(ctx, g, s, req, err)
			if at != nil {
				// Point at the companion's line (the framework may come
				// from the base image).
				m.File, m.Line = at.File, at.Line
			}
		}
	}
	// The fix: the newest build of the same lines that runs on the
	// target, dropping what did not match.
	var fix string
	for _, fr := range c.relaxations(u, g, req) {
		if s := c.best(ctx, fr); s != nil {
			fix = c.render(u, g, s)
			break
		}
	}
	c.add(Finding{File: m.File, Line: m.Line, Category: cat, Severity: sev, Unit: u.Name, Message: msg,
		Evidence: []string{"requirement: " + m.text(), "index: " + orPyPI(m.IndexURL)}, Fix: fix})
	return nil
}

// fallbackStack is the build the framework's own line installs when
// the group as a whole matched none (a companion, the Python or the
// index did not fit): the GPU-architecture and driver checks still run
// on it, each finding on its own.
func (c *checker) fallbackStack(ctx context.Context, u *Unit, g *fwGroup, req query.ResolveRequest) {
	r := req
	r.Requirements = []string{g.main.Name + stripLocal(g.main.Spec)}
	if hasLocal(g.main.Spec) {
		r.Requirements = []string{g.main.Name + g.main.Spec}
		r.Variant = ""
	}
	r.Python = ""
	res, err := c.resolve(ctx, r)
	if err != nil || len(res.Stacks) == 0 {
		return
	}
	pick := &res.Stacks[0]
	if r.Variant == "" && !hasLocal(g.main.Spec) {
		for i := range res.Stacks {
			if res.Stacks[i].Default {
				pick = &res.Stacks[i]
				break
			}
		}
	}
	g.fallback = pick
}

// companions tells a companion released with another framework version
// (a mismatch) from one the database records no pairing for (unknown):
// the release pages list one companion per framework release, and a
// companion they do not list may still require this framework.
func (c *checker) companions(ctx context.Context, g *fwGroup, s *query.Stack, req query.ResolveRequest, err error) (cat, sev, msg string, at *Requirement) {
	cat, sev, msg = findings.CatUnknownVersion, findings.SevWarning, ""
	for i := range g.reqs {
		r := &g.reqs[i]
		if r.Name == g.main.Name || r.Spec == "" {
			continue
		}
		if s.Packages[r.Name] == "" {
			msg = fmt.Sprintf("the database records no %s released with %s: the pair %s%s is not judged", r.Name, stackLabel(s), r.Name, r.Spec)
			continue
		}
		alone := req
		alone.Requirements = []string{g.component, r.Name + stripLocal(r.Spec)}
		alone.Variant, alone.CUDA = "", ""
		other := c.best(ctx, alone)
		if other == nil {
			msg = fmt.Sprintf("the database records no framework release for %s%s (it records %s==%s with %s): the pair is not judged", r.Name, stripLocal(r.Spec), r.Name, s.Packages[r.Name], stackLabel(s))
			continue
		}
		return CatCompanionMismatch, findings.SevError, fmt.Sprintf("%s%s was released with %s==%s, not with %s%s (%v)", r.Name, r.Spec, g.component, other.Packages[g.component], g.main.Name, g.main.Spec, err), r
	}
	if msg == "" {
		msg = err.Error()
	}
	return cat, sev, msg, nil
}

func orPyPI(s string) string {
	if s == "" {
		return "PyPI"
	}
	return s
}

// relaxations are the questions tried, in order, for a fix.
func (c *checker) relaxations(u *Unit, g *fwGroup, req query.ResolveRequest) []query.ResolveRequest {
	t := c.opts.Target
	withTarget := func(r query.ResolveRequest) query.ResolveRequest {
		r.Driver, r.DriverOS, r.SM = t.Driver, t.DriverOS, t.SM
		return r
	}
	main := []string{g.main.Name + g.main.Spec}
	var out []query.ResolveRequest
	r := req
	out = append(out, withTarget(r))
	r.Variant = ""
	out = append(out, withTarget(r))
	r.Requirements = main
	out = append(out, withTarget(r))
	// The newest release that fits the environment's Python before a
	// build of the asked version for another Python.
	r.Requirements = []string{g.component}
	out = append(out, withTarget(r))
	r.Requirements, r.Python = main, ""
	out = append(out, withTarget(r))
	r.Requirements = []string{g.component}
	out = append(out, withTarget(r))
	return out
}

// best is the first stack of a resolve, or nil. A framework whose
// builds record no architecture list cannot answer a GPU question, so
// the GPU is dropped rather than every build refused.
func (c *checker) best(ctx context.Context, req query.ResolveRequest) *query.Stack {
	res, err := c.resolve(ctx, req)
	if (err != nil || len(res.Stacks) == 0) && req.SM != "" {
		req.SM = ""
		res, err = c.resolve(ctx, req)
	}
	if err != nil || len(res.Stacks) == 0 {
		return nil
	}
	return &res.Stacks[0]
}

// together asks whether the unit's frameworks share one environment:
// the same question `cudb resolve torch==X tensorflow==Y` answers.
func (c *checker) together(ctx context.Context, u *Unit, groups []*fwGroup, py string) error {
	var reqs []string
	var last *fwGroup
	for _, g := range groups {
		if g.stack == nil || g.stack.CUDA == "" {
			// A CPU build (tensorflow-cpu, torch+cpu) loads no CUDA
			// library: there is nothing to share.
			continue
		}
		v, err := version.Parse(g.stack.Packages[g.component])
		if err != nil {
			continue
		}
		reqs = append(reqs, g.component+"=="+v.String())
		last = g
	}
	if len(reqs) < 2 {
		return nil
	}
	res, err := c.resolve(ctx, query.ResolveRequest{Requirements: reqs, Python: pyMinor(py), Platform: c.platform()})
	if err != nil {
		if errs.CodeOf(err) == errs.CodeNotFound {
			return nil
		}
		return err
	}
	conflicts := applyingConflicts(res.Conflicts, groups)
	if len(conflicts) == 0 {
		if len(res.Conflicts) == 0 && len(res.Stacks) > 0 && res.Stacks[0].Status == query.StatusUnknown && len(res.Stacks[0].Unknown) > 0 {
			// The same answer verify gives for the installed pair: a
			// fact the judgement needs is missing, said as unknown.
			c.add(Finding{File: last.main.File, Line: last.main.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
				Message: fmt.Sprintf("cudb cannot tell whether %s can share one environment: %s", strings.Join(reqs, " and "), strings.Join(res.Stacks[0].Unknown, "; ")),
				Fix:     "cudb resolve " + strings.Join(reqs, " ") + " (the versions that share one environment), or give each its own environment"})
		}
		return nil
	}
	byKind := map[string][]query.Incompatibility{}
	var kinds []string
	for _, cf := range conflicts {
		if byKind[cf.Kind] == nil {
			kinds = append(kinds, cf.Kind)
		}
		byKind[cf.Kind] = append(byKind[cf.Kind], cf)
	}
	sort.Strings(kinds)
	// Unpinned lines are judged as the newest releases, which is a
	// guess at what the installer takes: a conflict that rests on one is
	// a warning.
	sev, guess := findings.SevError, ""
	for _, g := range groups {
		if g.stack != nil && !g.main.Pinned() && !g.fromImage {
			sev, guess = findings.SevWarning, " (judged as the newest releases of the unpinned lines: pin them to be sure)"
		}
	}
	fix := c.togetherFix(ctx, u, last, groups, py)
	if fix == "" && len(res.Suggestions) > 0 {
		fix = c.renderReqs(u, last, res.Suggestions[0].Requirements)
	}
	for _, k := range kinds {
		cs := byKind[k]
		var ev []string
		var pkgs []string
		for _, cf := range cs {
			ev = append(ev, cf.Message)
			if cf.Package != "" {
				pkgs = append(pkgs, cf.Package)
			}
		}
		msg := fmt.Sprintf("%s cannot share one environment (%s)", strings.Join(reqs, " and "), k)
		if len(pkgs) > 0 {
			msg = fmt.Sprintf("%s cannot share one environment: their wheels pin different %s", strings.Join(reqs, " and "), strings.Join(pkgs, ", "))
		} else if len(cs) == 1 {
			msg = cs[0].Message
		}
		c.add(Finding{File: last.main.File, Line: last.main.Line, Category: CatFrameworkConflict, Severity: sev, Unit: u.Name,
			Message: msg + guess, Evidence: ev, Fix: fix})
	}
	return nil
}

// togetherFix is the install of the same releases in builds that agree
// (torch's cu126 build beside a CUDA 12 TensorFlow), when one exists.
func (c *checker) togetherFix(ctx context.Context, u *Unit, last *fwGroup, groups []*fwGroup, py string) string {
	var reqs []string
	for _, g := range groups {
		if g.stack == nil {
			continue
		}
		v, err := version.Parse(g.stack.Packages[g.component])
		if err != nil {
			return ""
		}
		reqs = append(reqs, g.component+"=="+v.Public())
	}
	res, err := c.resolve(ctx, query.ResolveRequest{Requirements: reqs, Python: pyMinor(py), Platform: c.platform()})
	if err != nil || len(res.Stacks) == 0 || res.Stacks[0].Install.Command == "" {
		return ""
	}
	cmd := res.Stacks[0].Install.Command
	switch c.kindOf(last.main.File) {
	case KindDockerfile:
		return "RUN " + cmd
	case KindCompose:
		return ""
	}
	return cmd
}

// pins checks the file's own nvidia-* pins against the framework wheel's
// Requires-Dist: pip refuses a set whose pins do not intersect.
func (c *checker) pins(u *Unit, g *fwGroup) {
	for _, r := range u.Reqs {
		if !strings.HasPrefix(r.Name, "nvidia-") || !r.Pinned() {
			continue
		}
		have, err := version.Parse(strings.TrimPrefix(r.Spec, "=="))
		if err != nil {
			continue
		}
		for _, p := range g.stack.Pins {
			body, marker, _ := strings.Cut(p, ";")
			if strings.Contains(marker, "extra") && !extraNamed(marker, g.main.Extras) {
				continue
			}
			pr, err := version.ParseRequirement(strings.TrimSpace(body))
			if err != nil || version.NormalizeName(pr.Name) != r.Name {
				continue
			}
			if pr.Specs.Check(have, true) {
				continue
			}
			file := r.File
			if file == "" {
				file = u.File
			}
			c.add(Finding{File: file, Line: r.Line, Category: CatPinConflict, Severity: findings.SevError, Unit: u.Name,
				Message:  fmt.Sprintf("%s%s conflicts with %s, whose wheel requires %s%s: pip cannot install both", r.Name, r.Spec, stackLabel(g.stack), pr.Name, pr.SpecText()),
				Evidence: []string{"file: " + r.Name + r.Spec, "wheel pin: " + strings.TrimSpace(body)},
				Fix:      r.Name + pr.SpecText(), Sources: g.stack.Sources})
		}
	}
}

// applyingConflicts drops the pin conflicts that rest on a wheel pin
// the file does not install: resolve judges each framework with the extra
// its CUDA wheels come with (tensorflow[and-cuda]), but a line without
// that extra installs none of the pins it gates, so pip has nothing to
// refuse.
func applyingConflicts(cs []query.Incompatibility, groups []*fwGroup) []query.Incompatibility {
	var out []query.Incompatibility
	for _, cf := range cs {
		if cf.Kind != "pin" || !pinNotInstalled(cf, groups) {
			out = append(out, cf)
		}
	}
	return out
}

func pinNotInstalled(cf query.Incompatibility, groups []*fwGroup) bool {
	pkg := version.NormalizeName(cf.Package)
	for _, g := range groups {
		if g.stack == nil || g.fromImage {
			continue
		}
		side := false
		for _, b := range cf.Between {
			side = side || strings.HasPrefix(b, g.component+"==")
		}
		if !side {
			continue
		}
		for _, r := range g.stack.PinReqs() {
			if version.NormalizeName(r.Needs) == pkg && strings.Contains(r.Marker, "extra") && !extraNamed(r.Marker, g.main.Extras) {
				return true
			}
		}
	}
	return false
}

func extraNamed(marker string, extras []string) bool {
	for _, e := range extras {
		if strings.Contains(marker, `"`+e+`"`) {
			return true
		}
	}
	return false
}

var localRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\+[A-Za-z0-9.]+`) })

func stripLocal(spec string) string { return localRe().ReplaceAllString(spec, "") }

// localCPU reports whether spec pins a CPU build by its local label
// (==2.5.1+cpu).
func localCPU(spec string) bool {
	_, label, ok := strings.Cut(spec, "+")
	return ok && strings.EqualFold(strings.TrimSpace(label), "cpu")
}
