package pin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

// PinFormats lists the formats Pins renders, in the order help shows them.
var PinFormats = []string{"requirements", "constraints", "pip", "uv", "conda", "apt", "docker"}

// PinOptions tune rendering; they never change which stack is chosen.
type PinOptions struct {
	// CudbVersion is written into every header so a pasted file says
	// which cudb made it.
	CudbVersion string
	// Devel picks development packages and images (headers, nvcc).
	Devel bool
	// ProjectName and ProjectVersion name the uv project (pyproject.toml's
	// [project] name and version) and the conda environment (name only);
	// empty: derived from the stack ("torch-2.1.0-cu118") and "0.1.0".
	ProjectName    string
	ProjectVersion string
	// AllowUnknown writes a stack cudb cannot vouch for (a fact it needs
	// is not in the data), with each gap in the file's header; without
	// it such a stack is refused.
	AllowUnknown bool
}

// CheckProjectName reports whether name is a valid Python distribution
// name (PEP 508), which also makes it a valid conda environment name.
func CheckProjectName(name string) error {
	if !projectNameRE().MatchString(name) {
		return fmt.Errorf("invalid project name %q: letters, digits, '.', '-' and '_', starting and ending with a letter or digit", name)
	}
	return nil
}

var projectNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9._-]*[a-z0-9])?$`)
})

// PinResult is what `cudb pin` prints (with --json) or writes.
type PinResult struct {
	Format      string                  `json:"format"`
	Content     string                  `json:"content"`
	Stack       *query.Stack            `json:"stack,omitempty"`
	Query       query.Query             `json:"query"`
	Data        PinData                 `json:"data"`
	Notes       []string                `json:"notes"`
	Conflicts   []query.Incompatibility `json:"conflicts,omitempty"`
	Suggestions []query.Suggestion      `json:"suggestions,omitempty"`
}

// PinData identifies the facts a pin set was made from.
type PinData struct {
	BuiltFrom     string `json:"built_from,omitempty"`
	DataAsOf      string `json:"data_as_of,omitempty"`
	SchemaVersion string `json:"schema_version,omitempty"`
}

// Pins resolves r exactly as Resolve does, takes the best stack and
// renders it in format. Frameworks that cannot share an environment give
// a errs.CodeIncompatible *errs.Error and a result carrying the conflicts.
func Pins(ctx context.Context, d *db.DB, r query.ResolveRequest, format string, opts PinOptions) (*PinResult, error) {
	if format == "" {
		format = "requirements"
	}
	if !slices.Contains(PinFormats, format) {
		return nil, errs.Usage("unknown format %q: expected one of %s", format, strings.Join(PinFormats, ", ")).
			WithHint("cudb pin torch==2.1 --format requirements")
	}
	if opts.ProjectName != "" {
		if err := CheckProjectName(opts.ProjectName); err != nil {
			return nil, errs.Usage("%s", err.Error()).WithHint("cudb pin torch==2.1 --format uv --name my-project")
		}
	}
	if opts.ProjectVersion != "" {
		if _, err := version.Parse(opts.ProjectVersion); err != nil {
			return nil, errs.Usage("invalid project version %q: expected a PEP 440 version", opts.ProjectVersion).
				WithHint("cudb pin torch==2.1 --format uv --project-version 1.0.0")
		}
	}
	switch {
	case format == "conda":
		r.Channel = "conda"
	case r.Channel == "conda":
		return nil, errs.Usage("--channel conda goes with --format conda: %s pins come from pip", format).
			WithHint("cudb pin %s --format conda", strings.Join(r.Requirements, " "))
	}
	res, err := query.Resolve(ctx, d, r)
	if err != nil {
		if errs.CodeOf(err) == errs.CodeNotFound {
			if format == "conda" {
				return nil, notOnConda(ctx, d, r, err)
			}
			// A release with no pip build at all but conda builds deserves
			// that answer (the version-level error is the one that lists
			// the versions that exist).
			var qe *errs.Error
			versionLevel := errors.As(err, &qe) && qe.Detail != nil
			cr := r
			cr.Channel = "conda"
			if _, cerr := query.Resolve(ctx, d, cr); versionLevel && cerr == nil {
				return nil, errs.Errorf(errs.CodeNotFound, "%s was published to the conda channels only, not as pip wheels", strings.Join(r.Requirements, " ")).
					WithHint("cudb pin %s --format conda", strings.Join(r.Requirements, " "))
			}
		}
		return nil, err
	}
	data, err := pinData(ctx, d)
	if err != nil {
		return nil, err
	}
	out := &PinResult{Format: format, Query: res.Query, Notes: []string{}, Data: data}
	if len(res.Conflicts) > 0 {
		out.Conflicts, out.Suggestions = res.Conflicts, res.Suggestions
		var msgs []string
		for _, c := range res.Conflicts {
			msgs = append(msgs, c.Message)
		}
		e := errs.Errorf(errs.CodeIncompatible, "these frameworks cannot share one environment: %s", strings.Join(msgs, "; "))
		e.Detail = map[string]any{"conflicts": res.Conflicts, "suggestions": res.Suggestions}
		if len(res.Suggestions) > 0 {
			e.WithHint("cudb pin %s --format %s", strings.Join(res.Suggestions[0].Requirements, " "), format)
		} else {
			e.WithHint("cudb resolve %s to see what each framework needs", strings.Join(r.Requirements, " "))
		}
		return out, e
	}
	if len(res.Stacks) == 0 {
		return nil, errs.Errorf(errs.CodeNotFound, "pins need a framework: %s names only native components", strings.Join(r.Requirements, " ")).
			WithHint("cudb pin torch==2.1 --cuda 12.1")
	}
	best := res.Stacks[0]
	if best.Status == query.StatusUnknown && !opts.AllowUnknown {
		// Known-good stacks rank first, so none of them matched.
		e := errs.Errorf(errs.CodeNotFound, "cudb cannot vouch for %s: %s", packagesLine(best), strings.Join(best.Unknown, "; "))
		e.Detail = map[string]any{"unknown": best.Unknown, "status": best.Status}
		allow := opts
		allow.AllowUnknown = true
		return nil, e.WithHint("%s to write it anyway (the gap goes into the file's header), or cudb resolve %s for the known-good stacks",
			pinCommand(r, format, allow), strings.Join(r.Requirements, " "))
	}
	content, notes, err := renderStack(ctx, d, r, format, opts, &best, out.Data)
	if err != nil {
		return nil, err
	}
	out.Content = content
	out.Stack = &best
	out.Notes = append(out.Notes, notes...)
	return out, nil
}

func packagesLine(s query.Stack) string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(s.Packages)) {
		out = append(out, n+"=="+s.Packages[n])
	}
	return strings.Join(out, " ")
}

// pinPackage is one `name==version` line.
type pinPackage struct {
	name, version string
	extras        []string
}

func (p pinPackage) requirement(withExtras bool) string {
	n := p.name
	if withExtras && len(p.extras) > 0 {
		n += "[" + strings.Join(p.extras, ",") + "]"
	}
	return n + p.spec()
}

// spec is the version as a specifier: "==2.1.0", or the range itself
// when the data gives a companion only a range (jax 0.5.2 asks for
// jax-cuda12-plugin>=0.5.1,<=0.5.2).
func (p pinPackage) spec() string {
	if strings.ContainsAny(p.version[:min(1, len(p.version))], "<>=!~") {
		return p.version
	}
	return "==" + p.version
}

// pinPart is one framework's share of the environment.
type pinPart struct {
	stack     *query.Stack
	framework string
	packages  []pinPackage
	index     string // variant index; "" = PyPI
	// feedLacksDeps: index holds the framework's wheel only; its
	// dependencies come from PyPI (frameworks.Framework.FeedLacksDeps).
	feedLacksDeps bool
	findLinks     string
	pins          []string // runtime wheels the framework pins, markers cleaned
	// systemCUDNN and systemCUDA mean the framework loads these from the
	// system: no wheel brings them.
	systemCUDNN, systemCUDA bool
	nonDefaultOn            []string // platforms where PyPI's wheel is another variant
	dropped                 []string // the data's pins that are not valid requirements
}

// requirementHeadRE is a PEP 508 name with optional extras.
var requirementHeadRE = sync.OnceValue(func() *regexp.Regexp {
	const id = `[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?`
	return regexp.MustCompile(`^` + id + `(?:\[\s*` + id + `(?:\s*,\s*` + id + `)*\s*\])?$`)
})

func validRequirementHead(s string) bool {
	return requirementHeadRE().MatchString(strings.TrimSpace(s))
}

type pinPlan struct {
	req      query.ResolveRequest
	format   string
	opts     PinOptions
	stack    *query.Stack
	parts    []pinPart
	data     PinData
	driver   string // driver floor text
	cudaFull string // full toolkit version for image tags
	cudaRule string // where cudaFull came from
	notes    []string
}

func newPinPlan(ctx context.Context, d *db.DB, r query.ResolveRequest, format string, opts PinOptions, s *query.Stack, data PinData) (*pinPlan, error) {
	p := &pinPlan{req: r, format: format, opts: opts, stack: s, data: data}
	parts := s.Parts
	if len(parts) == 0 {
		parts = []query.Stack{*s}
	}
	for i := range parts {
		p.parts = append(p.parts, newPinPart(&parts[i], r.Platform))
	}
	// A label on companions keeps pip from taking PyPI's build of the same
	// version when PyPI is searched beside the variant index.
	shared := p.needsPyPI() || len(p.variantIndexes()) > 1
	for i := range p.parts {
		pt := &p.parts[i]
		if pt.findLinks != "" || (pt.index != "" && shared) {
			labelCompanions(pt)
		}
	}
	var err error
	if p.driver, err = driverFloor(ctx, d, s, p.parts); err != nil {
		return nil, err
	}
	if s.CUDA != "" {
		if p.cudaFull, p.cudaRule, err = cudaFull(ctx, d, s.CUDA); err != nil {
			return nil, err
		}
	}
	for _, pt := range p.parts {
		for _, pl := range pt.nonDefaultOn {
			if !slices.Contains(s.Platforms, pl) {
				continue
			}
			p.notes = append(p.notes, fmt.Sprintf("on %s, PyPI's %s %s is not the %s build: install there from %s",
				pl, pt.framework, pt.packages[0].version, pt.stack.Variant, defaultIndex(pt.stack)))
		}
		for _, l := range pt.dropped {
			p.notes = append(p.notes, fmt.Sprintf("the data's pin %q is not a valid requirement (its source elides part of it): left out", l))
		}
		if pt.systemCUDNN || pt.systemCUDA {
			p.notes = append(p.notes, fmt.Sprintf("%s %s loads CUDA %s and cuDNN %s from the system, not from pip: cudb pin %s --format apt",
				pt.framework, pt.packages[0].version, pt.stack.CUDA, pt.stack.CUDNN, strings.Join(r.Requirements, " ")))
		}
	}
	return p, nil
}

func newPinPart(s *query.Stack, platform string) pinPart {
	pt := pinPart{stack: s, framework: s.Framework()}
	rep := s.Representative()
	name := s.Framework()
	if rep.Package != "" {
		name = rep.Package
	}
	pypi := isPyPI(rep.IndexURL) || defaultOn(s, platform)
	switch {
	case strings.HasSuffix(rep.IndexURL, ".html"):
		pt.findLinks = rep.IndexURL
	case !pypi:
		pt.index = rep.IndexURL
		if f, ok := frameworks.Get(s.Framework()); ok {
			pt.feedLacksDeps = f.FeedLacksDeps
		}
	}
	ver := s.Packages[name]
	if pypi && pt.findLinks == "" {
		// PyPI serves this variant under the public version.
		if v, err := version.Parse(ver); err == nil {
			ver = v.Public()
		}
		if platform == "" {
			for _, b := range s.Builds() {
				if !b.IsDefault && b.Platform != "" && !isPyPI(b.IndexURL) && b.IndexURL != "" {
					pt.nonDefaultOn = append(pt.nonDefaultOn, b.Platform)
				}
			}
		}
	}
	pt.packages = append(pt.packages, pinPackage{name: name, version: ver})
	var comps []string
	for k := range s.Packages {
		if k != name {
			comps = append(comps, k)
		}
	}
	sort.Strings(comps)
	for _, c := range comps {
		pt.packages = append(pt.packages, pinPackage{name: c, version: s.Packages[c]})
	}
	for _, r := range s.PinReqs() {
		marker, extra := splitExtra(r.Marker)
		if extra != "" && !slices.Contains(pt.packages[0].extras, extra) {
			pt.packages[0].extras = append(pt.packages[0].extras, extra)
		}
		line := r.Needs + r.Spec
		if !validRequirementHead(r.Needs) {
			// Not a requirement pip or uv can read (a source that
			// elided the extras: cuda-toolkit[...]): left out, said so.
			pt.dropped = append(pt.dropped, line)
			continue
		}
		if marker != "" {
			line += "; " + marker
		}
		if !slices.Contains(pt.pins, line) {
			pt.pins = append(pt.pins, line)
		}
	}
	sort.Strings(pt.pins)
	if s.CUDA != "" && rep.Channel == "" {
		hasPin := func(prefix string) bool {
			for _, r := range s.PinReqs() {
				if strings.HasPrefix(r.Needs, prefix) {
					return true
				}
			}
			return false
		}
		// A cuDNN the framework only documents (tested, minimum) rather
		// than ships or pins is one the system must provide.
		pt.systemCUDNN = s.CUDNN != "" && (s.CUDNNKind() == db.KindTested || s.CUDNNKind() == db.KindMinimum) && !hasPin("nvidia-cudnn")
		_, tested := rep.Req("cuda", db.KindTested)
		pt.systemCUDA = tested && !hasPin("nvidia-cuda-runtime") && !hasPin("nvidia-cublas")
	}
	return pt
}

// defaultOn reports whether plain pip gets this variant: on the asked
// platform, or on the representative (Linux) build when none was asked.
func defaultOn(s *query.Stack, platform string) bool {
	if platform == "" {
		return s.Representative().IsDefault
	}
	for _, b := range s.Builds() {
		if b.Platform == platform || b.Platform == "" {
			return b.IsDefault
		}
	}
	return false
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

// labelCompanions gives companions the framework's local label
// (torchvision==0.16.0+cu118): the variant indexes and find-links pages
// publish them under it.
func labelCompanions(pt *pinPart) {
	v, err := version.Parse(pt.packages[0].version)
	if err != nil || v.Local() == "" {
		return
	}
	for i := 1; i < len(pt.packages); i++ {
		if cv, err := version.Parse(pt.packages[i].version); err == nil && cv.Local() == "" {
			pt.packages[i].version += "+" + v.Local()
		}
	}
}

// splitExtra takes an `extra == "and-cuda"` clause out of a marker: in a
// requirements file it would never hold, so the extra goes on the
// framework (tensorflow[and-cuda]) and the rest of the marker stays.
func splitExtra(marker string) (rest, extra string) {
	var keep []string
	for _, clause := range strings.Split(marker, " and ") {
		c := strings.TrimSpace(clause)
		if name, ok := strings.CutPrefix(strings.ReplaceAll(c, " ", ""), "extra=="); ok {
			extra = strings.Trim(name, `"'`)
			continue
		}
		if c != "" {
			keep = append(keep, c)
		}
	}
	return strings.Join(keep, " and "), extra
}

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

// requirementLines are the framework pins then the runtime wheel pins.
func (p *pinPlan) requirementLines(withExtras bool) []string {
	var out []string
	for _, pt := range p.parts {
		for _, pk := range pt.packages {
			out = append(out, pk.requirement(withExtras))
		}
	}
	// The same pin from two frameworks goes in once, without a marker
	// when either states it without one.
	var pins []string
	for _, pt := range p.parts {
		for _, pin := range pt.pins {
			req, marker, _ := strings.Cut(pin, ";")
			dup := -1
			for i, q := range pins {
				if qr, _, _ := strings.Cut(q, ";"); strings.TrimSpace(qr) == strings.TrimSpace(req) {
					dup = i
				}
			}
			switch {
			case dup < 0:
				pins = append(pins, pin)
			case strings.TrimSpace(marker) == "":
				pins[dup] = strings.TrimSpace(req)
			}
		}
	}
	return append(out, pins...)
}

func (p *pinPlan) needsSystemLibs() bool {
	for _, pt := range p.parts {
		if pt.systemCUDNN || pt.systemCUDA {
			return true
		}
	}
	return false
}
