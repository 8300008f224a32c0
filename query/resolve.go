package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/version"
)

// ResolveRequest is what `cudb resolve` and GET /v1/resolve ask.
type ResolveRequest struct {
	Requirements []string // pip syntax: torch==2.1, tensorflow>=2.15, cuda==12.1, cudnn==8.9.*
	CUDA         string   // --cuda: a CUDA version or dotted specifier ("12.1" = any 12.1.x)
	Python       string   // --python 3.11
	Platform     string   // linux | windows | macos | linux-aarch64
	Variant      string   // --variant cu121 | cpu | rocm6.0 (default: CUDA builds)
	Channel      string   // "" (pip wheels) | conda
	Driver       string   // --driver 535.104.05
	// DriverOS says whose numbering Driver uses, "linux" or "windows";
	// empty follows Platform. A WSL2 guest installs Linux wheels on a
	// Windows driver.
	DriverOS string
	GPU      string // --gpu "Tesla T4"
	SM       string // --sm 7.5
	Pre      bool   // include pre-releases
	Explain  bool   // cite the row behind each fact
}

// Query echoes the parsed request.
type Query struct {
	Requirements []QueryRequirement `json:"requirements"`
	CUDA         string             `json:"cuda,omitempty"`
	Python       string             `json:"python,omitempty"`
	Platform     string             `json:"platform,omitempty"`
	Variant      string             `json:"variant,omitempty"`
	Channel      string             `json:"channel,omitempty"`
	Driver       string             `json:"driver,omitempty"`
	GPU          string             `json:"gpu,omitempty"`
	SM           string             `json:"sm,omitempty"`
	Pre          bool               `json:"pre,omitempty"`
}

// QueryRequirement is one parsed requirement.
type QueryRequirement struct {
	Name      string   `json:"name"`
	Specifier string   `json:"specifier"`
	Extras    []string `json:"extras,omitempty"`
}

// Range is an inclusive version range; empty ends are unknown.
type Range struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// SourceRef cites a source.
type SourceRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Citation ties one fact of a stack to the row it came from (--explain).
type Citation struct {
	Fact   string `json:"fact"`
	Value  string `json:"value"`
	Source string `json:"source"`
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
}

// Install says how to install a stack with pip.
type Install struct {
	IndexURL     string `json:"index_url,omitempty"`
	FindLinks    string `json:"find_links,omitempty"`
	PyPIDefault  bool   `json:"pypi_default"`
	Command      string `json:"command"`
	CondaChannel string `json:"conda_channel,omitempty"`
}

// Stack is one answer: a set of package versions and the native pieces
// (CUDA, cuDNN, NCCL, driver) they go with.
type Stack struct {
	Packages            map[string]string `json:"packages"`
	Variant             string            `json:"variant"`
	CUDA                string            `json:"cuda"`
	CUDNN               string            `json:"cudnn"`
	NCCL                string            `json:"nccl"`
	Python              Range             `json:"python"`
	Platforms           []string          `json:"platforms"`
	ComputeCapabilities []string          `json:"compute_capabilities"`
	Install             Install           `json:"install"`
	Default             bool              `json:"default"`
	Pins                []string          `json:"pins"`
	Driver              *Floors           `json:"driver,omitempty"`
	GPU                 *GPUFit           `json:"gpu,omitempty"`
	Notes               []string          `json:"notes,omitempty"`
	Sources             []SourceRef       `json:"sources"`
	Citations           []Citation        `json:"citations,omitempty"`
	// Parts holds the single-framework stacks a multi-framework stack
	// was combined from.
	Parts []Stack `json:"parts,omitempty"`

	framework string
	version   version.Version
	builds    []*BuildRow
	pinReqs   []db.Requirement
	pinNames  []string // PEP 503 names of pinReqs, for matching pins across frameworks
	cudnnKind string
}

// GPUFit says whether a stack carries kernels for the asked GPU.
type GPUFit struct {
	Name              string `json:"name,omitempty"`
	ComputeCapability string `json:"compute_capability"`
	Support           string `json:"support"` // sass | sass_compatible | ptx_jit | none
	Detail            string `json:"detail,omitempty"`
}

// Conflict explains why frameworks cannot share one environment.
type Conflict struct {
	Kind    string   `json:"kind"` // cuda_major | pin | python | platform | cudnn_major
	Message string   `json:"message"`
	Between []string `json:"between"`
	Package string   `json:"package,omitempty"`
	Specs   []string `json:"specs,omitempty"`
}

// Suggestion is a nearby combination that would agree.
type Suggestion struct {
	Requirements []string `json:"requirements"`
	Reason       string   `json:"reason"`
}

// Resolution is the answer to a ResolveRequest.
type Resolution struct {
	Query       Query             `json:"query"`
	Stacks      []Stack           `json:"stacks"`
	Conflicts   []Conflict        `json:"conflicts"`
	Suggestions []Suggestion      `json:"suggestions,omitempty"`
	Components  []ComponentAnswer `json:"components,omitempty"`
}

// ComponentAnswer answers a question about a native component alone
// (`cudb resolve cuda==12.4`, `cudb resolve cudnn==9.1.0`).
type ComponentAnswer struct {
	Component string `json:"component"`
	Version   string `json:"version"`
	Facts     any    `json:"facts"`
}

// family is a framework and the packages released in lockstep with it.
type family struct {
	component  string
	companions []string
}

var families = []family{
	{"torch", []string{"torchvision", "torchaudio"}},
	{"tensorflow", nil},
	{"jax", []string{"jaxlib"}},
	{"onnxruntime-gpu", nil},
}

// aliases maps other spellings to a family component and, where the name
// is a distinct pip package, a package filter.
var aliases = map[string]struct{ component, pkg string }{
	"pytorch":        {"torch", ""},
	"tensorflow-gpu": {"tensorflow", "tensorflow-gpu"},
	"tf":             {"tensorflow", ""},
	"onnxruntime":    {"onnxruntime-gpu", ""},
	"ort":            {"onnxruntime-gpu", ""},
}

// nativeComponents are constraints rather than frameworks.
var nativeComponents = []string{"cuda", "cudnn", "nccl", "python", "driver"}

// Known lists every component name resolve accepts.
func Known() []string {
	var out []string
	for _, f := range families {
		out = append(out, f.component)
		out = append(out, f.companions...)
	}
	return append(out, nativeComponents...)
}

// frameworkReq is a parsed framework requirement.
type frameworkReq struct {
	fam   family
	pkg   string // package filter (tensorflow-gpu)
	req   version.Requirement
	comps map[string]version.Requirement // companion constraints
}

// parsedRequest is a ResolveRequest after validation.
type parsedRequest struct {
	ResolveRequest
	frameworks []*frameworkReq
	cuda       *version.DottedSpec
	cudnn      *version.DottedSpec
	nccl       *version.DottedSpec
	python     *version.Dotted
	native     []version.Requirement // component questions with no framework
}

func usage(format string, args ...any) *Error { return Errorf(CodeUsage, format, args...) }

func parseRequest(r ResolveRequest) (*parsedRequest, error) {
	p := &parsedRequest{ResolveRequest: r}
	if len(r.Requirements) == 0 {
		return nil, usage("name at least one requirement, e.g. torch==2.1").WithHint("cudb resolve torch==2.1 --cuda 12.1")
	}
	byFamily := map[string]*frameworkReq{}
	pending := map[string]version.Requirement{} // companions named before their framework
	for _, raw := range r.Requirements {
		req, err := version.ParseRequirement(raw)
		if err != nil {
			return nil, usage("invalid requirement %q: %v", raw, err).WithHint("cudb resolve 'torch==2.1' (pip syntax: ==, !=, >=, <=, >, <, ~=, ==X.*)")
		}
		name := req.Name
		if a, ok := aliases[name]; ok {
			fr := byFamily[a.component]
			if fr == nil {
				fr = &frameworkReq{fam: familyOf(a.component), comps: map[string]version.Requirement{}}
				byFamily[a.component] = fr
				p.frameworks = append(p.frameworks, fr)
			}
			fr.req, fr.pkg = and(fr.req, req), a.pkg
			continue
		}
		switch name {
		case "cuda", "cudnn", "nccl":
			spec, err := version.ParseDottedSpec(req.SpecText())
			if err != nil {
				return nil, usage("invalid %s version in %q: %v", name, raw, err).WithHint("cudb resolve torch %s==12.1", name)
			}
			switch name {
			case "cuda":
				p.cuda = &spec
			case "cudnn":
				p.cudnn = &spec
			case "nccl":
				p.nccl = &spec
			}
			p.native = append(p.native, req)
			continue
		case "python":
			v, err := version.ParseDotted(strings.TrimLeft(req.SpecText(), "=~<>! "))
			if err != nil || !req.Specs.IsExact() {
				return nil, usage("give python as an exact version, e.g. python==3.11 or --python 3.11").WithHint("cudb resolve torch==2.1 --python 3.11")
			}
			p.python = &v
			continue
		case "driver":
			if r.Driver != "" {
				return nil, usage("driver given twice").WithHint("cudb resolve torch --driver 535.104.05")
			}
			p.Driver = strings.TrimLeft(req.SpecText(), "=>~ ")
			p.native = append(p.native, req)
			continue
		}
		if f := familyOf(name); f.component != "" {
			if f.component == name {
				fr := byFamily[name]
				if fr == nil {
					fr = &frameworkReq{fam: f, comps: map[string]version.Requirement{}}
					byFamily[name] = fr
					p.frameworks = append(p.frameworks, fr)
				}
				fr.req = and(fr.req, req)
			} else {
				pending[name] = req
				if byFamily[f.component] == nil {
					fr := &frameworkReq{fam: f, comps: map[string]version.Requirement{}}
					fr.req = version.Requirement{Name: f.component}
					byFamily[f.component] = fr
					p.frameworks = append(p.frameworks, fr)
				}
			}
			continue
		}
		return nil, usage("unknown component %q", raw).WithHint("cudb resolve torch==2.1 (components: %s)", strings.Join(Known(), ", "))
	}
	for name, req := range pending {
		byFamily[familyOf(name).component].comps[name] = req
	}
	if r.CUDA != "" {
		if p.cuda != nil {
			return nil, usage("CUDA given twice (--cuda and cuda==)").WithHint("cudb resolve torch==2.1 --cuda 12.1")
		}
		spec, err := version.ParseDottedSpec(r.CUDA)
		if err != nil {
			return nil, usage("invalid --cuda %q: %v", r.CUDA, err).WithHint("cudb resolve torch==2.1 --cuda 12.1")
		}
		p.cuda = &spec
	}
	if r.Python != "" {
		v, err := version.ParseDotted(r.Python)
		if err != nil || len(v.Fields()) > 3 || v.Major() < 2 || v.Major() > 3 {
			return nil, usage("invalid --python %q: expected a Python version such as 3.11", r.Python).WithHint("cudb resolve torch==2.1 --python 3.11")
		}
		p.python = &v
	}
	switch r.Platform {
	case "", "linux", "windows", "macos", "linux-aarch64":
	default:
		return nil, usage("invalid --platform %q: expected linux, windows, macos or linux-aarch64", r.Platform).WithHint("cudb resolve torch==2.1 --platform linux")
	}
	switch r.Channel {
	case "", "pip", "conda":
	default:
		return nil, usage("invalid --channel %q: expected pip or conda", r.Channel).WithHint("cudb resolve torch==1.13 --channel conda")
	}
	if p.Channel == "pip" {
		p.Channel = ""
	}
	return p, nil
}

// and joins two requirements on one package: both must hold.
func and(prev, next version.Requirement) version.Requirement {
	if prev.Name == "" {
		return next
	}
	prev.Specs = append(append(version.Specifiers{}, prev.Specs...), next.Specs...)
	prev.Extras = append(prev.Extras, next.Extras...)
	prev.Raw += "," + next.SpecText()
	return prev
}

func familyOf(name string) family {
	for _, f := range families {
		if f.component == name {
			return f
		}
		for _, c := range f.companions {
			if c == name {
				return f
			}
		}
	}
	return family{}
}

func (p *parsedRequest) echo() Query {
	q := Query{CUDA: p.ResolveRequest.CUDA, Python: p.ResolveRequest.Python, Platform: p.Platform, Variant: p.Variant,
		Channel: p.Channel, Driver: p.Driver, GPU: p.GPU, SM: p.SM, Pre: p.Pre, Requirements: []QueryRequirement{}}
	for _, raw := range p.Requirements {
		if req, err := version.ParseRequirement(raw); err == nil {
			q.Requirements = append(q.Requirements, QueryRequirement{Name: req.Name, Specifier: req.SpecText(), Extras: req.Extras})
		}
	}
	return q
}

// Resolve answers a request. A well-formed request with no answer is a
// *Error with CodeNotFound naming what does exist; frameworks that cannot
// share an environment give a Resolution with Conflicts (and no stacks).
func Resolve(ctx context.Context, d *db.DB, r ResolveRequest) (*Resolution, error) {
	p, err := parseRequest(r)
	if err != nil {
		return nil, err
	}
	res := &Resolution{Query: p.echo(), Stacks: []Stack{}, Conflicts: []Conflict{}}
	ctxs, err := newConstraints(ctx, d, p)
	if err != nil {
		return nil, err
	}
	if len(p.frameworks) == 0 {
		comps, err := componentAnswers(ctx, d, p)
		if err != nil {
			return nil, err
		}
		res.Components = comps
		return res, nil
	}
	var perFamily [][]Stack
	for _, fr := range p.frameworks {
		stacks, err := frameworkStacks(ctx, d, p, fr, ctxs)
		if err != nil {
			return nil, err
		}
		perFamily = append(perFamily, stacks)
	}
	if len(perFamily) == 1 {
		res.Stacks = perFamily[0]
	} else {
		res.Stacks, res.Conflicts, res.Suggestions = combine(ctx, d, p, perFamily, ctxs)
	}
	for i := range res.Stacks {
		finish(&res.Stacks[i], p.Explain)
	}
	return res, nil
}

// finish fills derived fields and drops what was only needed internally.
func finish(s *Stack, explain bool) {
	if !explain {
		s.Citations = nil
	}
	for i := range s.Parts {
		finish(&s.Parts[i], explain)
	}
	if s.Pins == nil {
		s.Pins = []string{}
	}
	if s.Platforms == nil {
		s.Platforms = []string{}
	}
	if s.ComputeCapabilities == nil {
		s.ComputeCapabilities = []string{}
	}
	if s.Sources == nil {
		s.Sources = []SourceRef{}
	}
}

// step is one filter over candidate stacks, named for the error when it
// leaves nothing.
type step struct {
	name string
	keep func(*Stack) bool
	// explain describes what exists when the step empties the set.
	explain func(before []Stack) string
}

func frameworkStacks(ctx context.Context, d *db.DB, p *parsedRequest, fr *frameworkReq, cs *constraints) ([]Stack, error) {
	known, err := Versions(ctx, d, fr.fam.component)
	if err != nil {
		return nil, err
	}
	if len(known) == 0 {
		return nil, Errorf(CodeNotFound, "the database has no %s builds", fr.fam.component).WithHint("cudb db info")
	}
	label := fr.req.String()
	if label == "" {
		label = fr.fam.component
	}
	// Versions first, so "no such version" is told apart from "no such
	// variant of that version", and only the matching rows are read. A
	// local label (2.1.0+cu121) is checked per build below.
	public := fr.req
	public.Specs = nil
	for _, s := range fr.req.Specs {
		if s.Version().Local() == "" {
			public.Specs = append(public.Specs, s)
		}
	}
	builds, err := LoadBuildsWhere(ctx, d, fr.fam.component, func(v string) bool {
		pv, err := version.Parse(v)
		return err == nil && public.Specs.Check(pv, p.Pre || hasLocal(fr.req))
	})
	if err != nil {
		return nil, err
	}
	var matched []*BuildRow
	for _, b := range builds {
		if fr.pkg != "" && version.NormalizeName(b.Package) != fr.pkg {
			continue
		}
		if p.Channel != b.Channel {
			continue
		}
		if !versionMatches(fr.req, b, p.Pre) {
			continue
		}
		matched = append(matched, b)
	}
	if len(matched) == 0 {
		return nil, (&Error{Code: CodeNotFound, Message: fmt.Sprintf("no %s release matches %s%s", fr.fam.component, label, channelNote(p.Channel)),
			Detail: map[string]any{"versions": nearest(known, fr.req, 8)}}).
			WithHint("one of: %s", strings.Join(nearest(known, fr.req, 8), ", "))
	}
	stacks := groupStacks(fr, matched)
	steps := []step{
		{"variant", func(s *Stack) bool {
			if p.Variant != "" {
				return strings.EqualFold(s.Variant, p.Variant)
			}
			return isCUDAVariant(s)
		}, func(before []Stack) string {
			return "variants: " + strings.Join(distinct(before, func(s Stack) string { return s.Variant }), ", ")
		}},
		{"platform", func(s *Stack) bool {
			return p.Platform == "" || len(s.Platforms) == 0 || containsStr(s.Platforms, p.Platform)
		}, func(before []Stack) string {
			msg := "platforms: " + strings.Join(distinctMany(before, func(s Stack) []string { return s.Platforms }), ", ")
			if note := platformNote(ctx, d, fr.fam.component, p.Platform); note != "" {
				msg += "; " + note
			}
			return msg
		}},
		{"cuda", func(s *Stack) bool { return p.cuda == nil || (s.CUDA != "" && dottedOK(*p.cuda, s.CUDA)) },
			func(before []Stack) string {
				return "variants that exist: " + strings.Join(distinct(before, func(s Stack) string { return s.Variant + cudaSuffix(s.CUDA) }), ", ")
			}},
		{"python", func(s *Stack) bool { return p.python == nil || pythonIn(*p.python, s.Python) },
			func(before []Stack) string {
				return "python ranges: " + strings.Join(distinct(before, func(s Stack) string { return s.Python.Min + "–" + s.Python.Max }), ", ")
			}},
		{"cudnn", func(s *Stack) bool { return p.cudnn == nil || (s.CUDNN != "" && dottedOK(*p.cudnn, s.CUDNN)) },
			func(before []Stack) string {
				return "cuDNN versions: " + strings.Join(distinct(before, func(s Stack) string { return s.CUDNN }), ", ")
			}},
		{"nccl", func(s *Stack) bool { return p.nccl == nil || (s.NCCL != "" && dottedOK(*p.nccl, s.NCCL)) },
			func(before []Stack) string {
				return "NCCL versions: " + strings.Join(distinct(before, func(s Stack) string { return s.NCCL }), ", ")
			}},
	}
	for name, creq := range fr.comps {
		name, creq := name, creq
		steps = append(steps, step{name, func(s *Stack) bool {
			v, ok := s.Packages[name]
			if !ok {
				return false
			}
			pv, err := version.Parse(v)
			return err == nil && creq.Specs.Check(pv, p.Pre)
		}, func(before []Stack) string {
			return name + " versions paired with it: " + strings.Join(distinct(before, func(s Stack) string { return s.Packages[name] }), ", ")
		}})
	}
	steps = append(steps, cs.steps(fr)...)
	for _, st := range steps {
		var kept []Stack
		for i := range stacks {
			if st.keep(&stacks[i]) {
				kept = append(kept, stacks[i])
			}
		}
		if len(kept) == 0 && st.explain != nil {
			return nil, (&Error{Code: CodeNotFound,
				Message: fmt.Sprintf("no %s build matches %s with %s; %s", fr.fam.component, label, describeStep(p, st.name), st.explain(stacks))}).
				WithHint("%s", hintFor(p, st.name, label))
		}
		stacks = kept
	}
	return stacks, nil
}

// platformNote explains a platform a framework left, from the facts:
// TensorFlow's last native-Windows GPU release points to WSL2.
func platformNote(ctx context.Context, d *db.DB, component, platform string) string {
	if component != "tensorflow" || platform != "windows" {
		return ""
	}
	last, prov, err := Attribute(ctx, d, "tensorflow", "", "windows_native_gpu_last")
	if err != nil || last == "" {
		return ""
	}
	cite := prov.Source
	if prov.URL != "" {
		cite += " " + prov.URL
	}
	return fmt.Sprintf("TensorFlow %s was the last release with GPU support on native Windows; newer releases run on the GPU under WSL2 with the Linux build (cudb resolve tensorflow --platform linux) [%s]", last, cite)
}

// isCUDAVariant tells CUDA builds from CPU/ROCm/XPU ones, also when the
// source names the CUDA line (cuda12) but not its minor.
func isCUDAVariant(s *Stack) bool {
	return s.CUDA != "" || strings.HasPrefix(s.Variant, "cu")
}

func channelNote(ch string) string {
	if ch == "" {
		return ""
	}
	return " in the " + ch + " channel"
}

func cudaSuffix(c string) string {
	if c == "" {
		return ""
	}
	return " (CUDA " + c + ")"
}

func describeStep(p *parsedRequest, name string) string {
	switch name {
	case "variant":
		if p.Variant != "" {
			return "variant " + p.Variant
		}
		return "a CUDA variant"
	case "platform":
		return "platform " + p.Platform
	case "cuda":
		return "CUDA " + p.cuda.String()
	case "python":
		return "Python " + p.python.String()
	case "cudnn":
		return "cuDNN " + p.cudnn.String()
	case "nccl":
		return "NCCL " + p.nccl.String()
	case "driver":
		return "driver " + p.Driver
	case "gpu":
		if p.GPU != "" {
			return "GPU " + p.GPU
		}
		return "compute capability " + p.SM
	}
	return name
}

func hintFor(p *parsedRequest, step, label string) string {
	switch step {
	case "cuda":
		return fmt.Sprintf("cudb resolve '%s' (without --cuda) to list its variants", label)
	case "variant":
		return fmt.Sprintf("cudb matrix torch, or cudb resolve '%s' --variant cpu", label)
	case "driver":
		return fmt.Sprintf("cudb resolve %s --driver %s (without a version) for the newest release this driver runs", familyName(label), p.Driver)
	case "gpu":
		return fmt.Sprintf("cudb resolve %s --gpu ... (without a version) for the newest release with kernels for it", familyName(label))
	}
	return fmt.Sprintf("cudb resolve '%s' without --%s", label, step)
}

func familyName(label string) string {
	for i, r := range label {
		if strings.ContainsRune("=<>!~[ ", r) {
			return label[:i]
		}
	}
	return label
}

func hasLocal(req version.Requirement) bool {
	for _, s := range req.Specs {
		if s.Version().Local() != "" {
			return true
		}
	}
	return false
}

func versionMatches(req version.Requirement, b *BuildRow, pre bool) bool {
	v, err := version.Parse(b.Version)
	if err != nil {
		return false
	}
	for _, s := range req.Specs {
		if s.Version().Local() != "" {
			// A local label (2.1.0+cu121) names one variant's wheel.
			pv, err := version.Parse(b.PipVersion)
			if err != nil {
				return false
			}
			return req.Specs.Check(pv, pre)
		}
	}
	return req.Specs.Check(v, pre)
}

// nearest returns up to n known versions, those sharing the longest
// release prefix with the requirement first (2.16 → 2.16.1, 2.16.2, then
// other 2.x), newest first within a rank.
func nearest(known []string, req version.Requirement, n int) []string {
	var want []int
	if len(req.Specs) > 0 {
		want = req.Specs[0].Version().Release()
	}
	shared := func(v string) int {
		pv, err := version.Parse(v)
		if err != nil {
			return 0
		}
		rel, k := pv.Release(), 0
		for k < len(rel) && k < len(want) && rel[k] == want[k] {
			k++
		}
		return k
	}
	out := append([]string(nil), known...)
	sort.SliceStable(out, func(i, j int) bool { return shared(out[i]) > shared(out[j]) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// groupStacks folds builds of one (version, variant, package) across
// platforms into a stack. Builds arrive newest first.
func groupStacks(fr *frameworkReq, builds []*BuildRow) []Stack {
	type key struct{ v, variant, pkg string }
	idx := map[key]int{}
	var stacks []Stack
	for _, b := range builds {
		k := key{b.Version, b.Variant, b.Package}
		i, ok := idx[k]
		if !ok {
			i = len(stacks)
			idx[k] = i
			v, _ := version.Parse(b.Version)
			stacks = append(stacks, Stack{framework: fr.fam.component, version: v, Variant: b.Variant, CUDA: b.CUDA})
		}
		s := &stacks[i]
		s.builds = append(s.builds, b)
		if b.Platform != "" && !containsStr(s.Platforms, b.Platform) {
			s.Platforms = append(s.Platforms, b.Platform)
		}
	}
	for i := range stacks {
		fill(&stacks[i], fr.fam)
	}
	sort.SliceStable(stacks, func(i, j int) bool { return better(&stacks[i], &stacks[j]) })
	return stacks
}

// better orders stacks best first: newest release, then the variant plain
// pip installs, then the newest CUDA.
func better(a, b *Stack) bool {
	if c := a.version.Compare(b.version); c != 0 {
		return c > 0
	}
	if a.Default != b.Default {
		return a.Default
	}
	if a.CUDA != b.CUDA {
		return version.DottedKey(a.CUDA) > version.DottedKey(b.CUDA)
	}
	return a.Variant < b.Variant
}

// representative is the build whose facts describe the stack: Linux when
// it has one (the best documented platform), else the first.
func representative(s *Stack) *BuildRow {
	for _, b := range s.builds {
		if b.Platform == "linux" {
			return b
		}
	}
	return s.builds[0]
}

func fill(s *Stack, fam family) {
	sort.Strings(s.Platforms)
	rep := representative(s)
	name := fam.component
	if rep.Package != "" {
		name = rep.Package
	}
	pipVersion := rep.PipVersion
	if pipVersion == "" {
		pipVersion = rep.Version
	}
	s.Packages = map[string]string{name: pipVersion}
	s.cite("version", name+" "+pipVersion, rep.Provenance)
	// "Default" is about the representative (Linux x86-64) wheel: PyPI's
	// default for another platform (aarch64, Windows) is a different
	// question, and marking both would show two defaults for one release.
	s.Default = rep.IsDefault
	s.Python = Range{Min: rep.PythonMin, Max: rep.PythonMax}
	if s.Python.Min != "" || s.Python.Max != "" {
		s.cite("python", s.Python.Min+"–"+s.Python.Max, rep.Provenance)
	}
	for _, c := range fam.companions {
		// A pin names the exact wheel pip must install (jaxlib's
		// +cuda12.cudnn89 flavour); a pairing names the release.
		if r, ok := rep.Req(c, db.KindPin, db.KindPaired, db.KindTested); ok {
			s.Packages[c] = specVersion(r.Spec)
			s.cite(c, s.Packages[c], r.Provenance)
		}
	}
	if r, ok := rep.Req("cudnn", db.KindPin, db.KindBundled, db.KindTested, db.KindMinimum); ok {
		s.CUDNN = strings.TrimLeft(r.Spec, "=")
		s.cudnnKind = r.Kind
		s.cite("cudnn", s.CUDNN+" ("+r.Kind+")", r.Provenance)
		for _, other := range rep.Reqs {
			if other.Needs == "cudnn" && other.Kind != r.Kind && strings.TrimLeft(other.Spec, "=") != s.CUDNN {
				s.Notes = append(s.Notes, fmt.Sprintf("cuDNN: pip installs %s (%s); %s says %s (%s)", s.CUDNN, r.Kind, other.Source, other.Spec, other.Kind))
				s.cite("cudnn (other)", other.Spec+" ("+other.Kind+")", other.Provenance)
			}
		}
	}
	if r, ok := rep.Req("nccl", db.KindPin, db.KindBundled, db.KindTested); ok {
		s.NCCL = strings.TrimLeft(r.Spec, "=")
		s.cite("nccl", s.NCCL, r.Provenance)
	}
	for _, r := range rep.Reqs {
		if r.Kind == db.KindPin && !containsStr(fam.companions, r.Needs) && !containsStr(nativeComponents, r.Needs) {
			s.pinReqs = append(s.pinReqs, r)
			s.pinNames = append(s.pinNames, version.NormalizeName(r.Needs))
			pin := r.Needs + r.Spec
			if r.Marker != "" {
				pin += "; " + r.Marker
			}
			s.Pins = append(s.Pins, pin)
		}
	}
	s.ComputeCapabilities = archToCC(rep.ArchList)
	if rep.ArchList != "" {
		s.cite("arch_list", rep.ArchList, rep.Provenance)
	}
	s.Install = install(fam, s, rep, name, pipVersion)
	s.addSource(rep.Provenance)
	for _, r := range rep.Reqs {
		s.addSource(r.Provenance)
	}
	for _, b := range s.builds {
		s.addSource(b.Provenance)
	}
}

func install(fam family, s *Stack, rep *BuildRow, name, pipVersion string) Install {
	in := Install{PyPIDefault: s.Default}
	if rep.Channel == "conda" {
		in.CondaChannel = "pytorch"
		in.Command = fmt.Sprintf("conda install %s==%s -c pytorch", condaName(name), rep.Version)
		return in
	}
	pkgs := []string{name + "==" + pipVersion}
	for _, c := range fam.companions {
		if v, ok := s.Packages[c]; ok {
			pkgs = append(pkgs, c+"=="+v)
		}
	}
	switch {
	case strings.HasSuffix(rep.IndexURL, ".html"):
		in.FindLinks = rep.IndexURL
		in.Command = "pip install " + strings.Join(pkgs, " ") + " -f " + rep.IndexURL
	case rep.IndexURL != "" && !s.Default:
		in.IndexURL = rep.IndexURL
		in.Command = "pip install " + strings.Join(pkgs, " ") + " --index-url " + rep.IndexURL
	default:
		in.IndexURL = rep.IndexURL
		// The PyPI wheel is this variant: plain pip, no local label.
		pkgs[0] = name + "==" + rep.Version
		in.Command = "pip install " + strings.Join(pkgs, " ")
	}
	return in
}

func condaName(n string) string {
	if n == "torch" {
		return "pytorch"
	}
	return n
}

func (s *Stack) cite(fact, value string, p db.Provenance) {
	s.Citations = append(s.Citations, Citation{Fact: fact, Value: value, Source: p.Source, URL: p.URL, Ref: p.Ref})
}

func (s *Stack) addSource(p db.Provenance) {
	if p.Source == "" {
		return
	}
	for _, x := range s.Sources {
		if x.Name == p.Source && x.URL == p.URL {
			return
		}
	}
	s.Sources = append(s.Sources, SourceRef{Name: p.Source, URL: p.URL})
}

// specVersion is the one version a requirement admits ("==0.16.0",
// "0.16.0", ">=0.11.0,<=0.11.0" all give the bare version); a real range
// is kept as written (">=0.4.30").
func specVersion(spec string) string {
	spec = strings.TrimSpace(spec)
	if v, err := version.Parse(strings.TrimLeft(spec, "=")); err == nil && !strings.ContainsAny(strings.TrimLeft(spec, "="), "<>!~,") {
		return v.String()
	}
	specs, err := version.ParseSpecifiers(spec)
	if err != nil {
		return spec
	}
	var lo, hi string
	for _, c := range specs {
		switch c.Op() {
		case "==":
			if !c.Wildcard() {
				return c.Version().String()
			}
		case ">=":
			lo = c.Version().String()
		case "<=":
			hi = c.Version().String()
		}
	}
	if lo != "" && lo == hi {
		return lo
	}
	return spec
}

// archToCC turns "sm_50 sm_60 compute_90" into ["5.0", "6.0", "9.0+PTX"].
func archToCC(list string) []string {
	var out []string
	for _, tok := range strings.Fields(list) {
		ptx := strings.HasPrefix(tok, "compute_")
		num := strings.TrimPrefix(strings.TrimPrefix(tok, "sm_"), "compute_")
		if len(num) < 2 {
			continue
		}
		cc := num[:len(num)-1] + "." + num[len(num)-1:]
		if ptx {
			cc += "+PTX"
		}
		out = append(out, cc)
	}
	return out
}

func dottedOK(spec version.DottedSpec, v string) bool {
	d, err := version.ParseDotted(v)
	return err == nil && spec.Check(d)
}

// pythonIn compares major.minor against an inclusive range.
func pythonIn(py version.Dotted, r Range) bool {
	f := py.Fields()
	mm := fmt.Sprintf("%d.%d", f[0], at(f, 1))
	v, _ := version.ParseDotted(mm)
	if r.Min != "" {
		if lo, err := version.ParseDotted(r.Min); err == nil && v.Compare(lo) < 0 {
			return false
		}
	}
	if r.Max != "" {
		if hi, err := version.ParseDotted(r.Max); err == nil && v.Compare(hi) > 0 {
			return false
		}
	}
	return r.Min != "" || r.Max != ""
}

func at(f []int, i int) int {
	if i < len(f) {
		return f[i]
	}
	return 0
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func distinct(stacks []Stack, f func(Stack) string) []string {
	var out []string
	for _, s := range stacks {
		if v := f(s); v != "" && !containsStr(out, v) {
			out = append(out, v)
		}
	}
	if out == nil {
		return []string{"(none recorded)"}
	}
	return out
}

func distinctMany(stacks []Stack, f func(Stack) []string) []string {
	var out []string
	for _, s := range stacks {
		for _, v := range f(s) {
			if !containsStr(out, v) {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}
