package query

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

// Resolve answers a request. A well-formed request with no answer is a
// *errs.Error with errs.CodeNotFound naming what does exist; frameworks that cannot
// share an environment give a Resolution with Conflicts (and no stacks).
func Resolve(ctx context.Context, d *db.DB, r ResolveRequest) (*Resolution, error) {
	p, err := parseRequest(r)
	if err != nil {
		return nil, err
	}
	res := &Resolution{Query: p.echo(), Stacks: []Stack{}, Conflicts: []Incompatibility{}}
	ctxs, err := newConstraints(ctx, d, p)
	if err != nil {
		return nil, err
	}
	if len(p.frameworks) == 0 {
		comps, err := componentAnswers(ctx, d, p)
		if err != nil {
			return nil, err
		}
		for i := range comps {
			if err := filterComponentsByGPU(ctx, d, ctxs, &comps[i]); err != nil {
				return nil, err
			}
		}
		res.Components = comps
		return res, nil
	}
	var perFamily [][]Stack
	for _, fr := range p.frameworks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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
	// The conflict search stops early when ctx ends: what it found so
	// far is not the answer.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range res.Stacks {
		finish(&res.Stacks[i], p.Explain)
	}
	switch {
	case len(res.Conflicts) > 0:
		res.Status = StatusIncompatible
	case len(res.Stacks) > 0:
		res.Status, res.Unknown = res.Stacks[0].Status, res.Stacks[0].Unknown
	default:
		res.Status = StatusOK
	}
	if res.Unknown == nil {
		res.Unknown = []string{}
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
	if s.Unknown == nil {
		s.Unknown = []string{}
	}
	if s.Status == "" {
		s.Status = StatusOK
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

// notInData ends the "no release matches" message: a version the data
// does not hold is not in the data, which never says it was not published.
func notInData(channel string) string {
	if channel != "" {
		return channelNote(channel)
	}
	return " in the data (a release cudb does not hold is not in the data, which does not say it was never published)"
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
	known, err := d.Versions(ctx, fr.fam.Name)
	if err != nil {
		return nil, err
	}
	if len(known) == 0 {
		return nil, errs.Errorf(errs.CodeNotFound, "the database has no %s builds", fr.fam.Name).WithHint("cudb db info")
	}
	label := fr.req.String()
	if label == "" {
		label = fr.fam.Name
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
	builds, err := d.Builds(ctx, fr.fam.Name, func(v string) bool {
		pv, err := version.Parse(v)
		return err == nil && public.Specs.Check(pv, p.Pre || hasLocal(fr.req))
	})
	if err != nil {
		return nil, err
	}
	var matched []*db.BuildRow
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
		if pend := pendingReleases(ctx, d, fr.fam.Name, public, p.Pre); len(pend) > 0 {
			e := pendingError(fr.fam.Name, pend)
			if from := InferredFrom(ctx, d, fr.fam.Name, pend[len(pend)-1].Version); from != "" {
				// What the nearest release with facts gives, labelled as
				// such: the answer stays unknown (exit 4).
				e = e.WithHint("%s; %s: cudb resolve %s==%s", e.Hint, InferredText(fr.fam.Name, pend[len(pend)-1].Version, from), fr.fam.Name, from)
			}
			return nil, e
		}
		return nil, (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no %s release matches %s%s", fr.fam.Name, label, notInData(p.Channel)),
			Detail: map[string]any{"versions": nearest(known, fr.req, 8)}}).
			WithHint("one of: %s", strings.Join(nearest(known, fr.req, 8), ", "))
	}
	fr.platform = p.Platform
	stacks := groupStacks(fr, matched, builds)
	onPlatform := func() bool { return knownOnPlatform(ctx, d, fr.fam.Name, p.Platform, p.Variant) }
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
			if p.Platform == "" || slices.Contains(s.Platforms, p.Platform) {
				return true
			}
			if len(s.Platforms) > 0 || !onPlatform() {
				return false
			}
			// Unknown is an answer: the build stays, ranked below the
			// known-good ones, unless no build of the framework is
			// known on the platform at all.
			s.gap("the platforms of this build are not in the data (cannot tell whether it installs on " + platformName(p.Platform) + ")")
			return true
		}, func(before []Stack) string {
			pls := distinctMany(before, func(s Stack) []string { return s.Platforms })
			if len(pls) == 0 {
				kind := "CUDA"
				if k := variantKind(p.Variant, ""); k != "cuda" {
					kind = k
				}
				return "the data records no " + fr.fam.Name + " " + kind + " build for " + platformName(p.Platform) + " in any release"
			}
			msg := "platforms: " + strings.Join(pls, ", ")
			if note := platformNote(ctx, d, fr.fam.Name, p.Platform); note != "" {
				msg += "; " + note
			}
			return msg
		}},
		{"cuda", func(s *Stack) bool { return p.cuda == nil || (stackCUDA(s) != "" && p.cuda.Matches(stackCUDA(s))) },
			func(before []Stack) string {
				return "variants that exist: " + strings.Join(distinct(before, func(s Stack) string { return s.Variant + cudaSuffix(s.CUDA) }), ", ")
			}},
		{"python", func(s *Stack) bool {
			if p.python == nil {
				return true
			}
			if s.Python.Min == "" && s.Python.Max == "" {
				// Unknown is an answer: only a known range that leaves
				// the Python out drops the build.
				s.gap(pythonGap(p.python.String()))
				return true
			}
			return s.Python.HasPython(*p.python)
		}, func(before []Stack) string {
			return "python ranges: " + strings.Join(distinct(before, func(s Stack) string { return s.Python.Min + "-" + s.Python.Max }), ", ")
		}},
		{"cudnn", func(s *Stack) bool { return p.cudnn == nil || (s.CUDNN != "" && p.cudnn.Matches(s.CUDNN)) },
			func(before []Stack) string {
				return "cuDNN versions: " + strings.Join(distinct(before, func(s Stack) string { return s.CUDNN }), ", ")
			}},
		{"nccl", func(s *Stack) bool { return p.nccl == nil || (s.NCCL != "" && p.nccl.Matches(s.NCCL)) },
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
	steps = append(steps, cs.steps(ctx, fr)...)
	all := stacks
	for _, st := range steps {
		var kept []Stack
		for i := range stacks {
			if st.keep(&stacks[i]) {
				kept = append(kept, stacks[i])
			}
		}
		if len(kept) == 0 && st.name == "platform" {
			kept = cpuOnly(ctx, d, p, fr, all)
		}
		if creq, ok := fr.comps[st.name]; ok && len(kept) == 0 {
			// A companion release known only from a lead (torchvision
			// 0.29.2): what it pairs with is unknown, not absent.
			if pend := leadReleases(ctx, d, st.name, creq, p.Pre); len(pend) > 0 {
				return nil, pendingError(st.name, pend)
			}
		}
		if len(kept) == 0 && st.explain != nil {
			return nil, (&errs.Error{Code: errs.CodeNotFound,
				Message: fmt.Sprintf("no %s build matches %s with %s; %s", fr.fam.Name, label, describeStep(p, st.name), st.explain(stacks))}).
				WithHint("%s", hintFor(p, st.name, label))
		}
		stacks = kept
	}
	// Steps may have found gaps (an arch list the data lacks): known-good
	// stacks stay first.
	sort.SliceStable(stacks, func(i, j int) bool { return better(&stacks[i], &stacks[j]) })
	// Releases the requirement also matches whose facts are pending are
	// not answered, but not hidden: the best stack says so.
	if pend := pendingReleases(ctx, d, fr.fam.Name, public, p.Pre); len(stacks) > 0 && len(pend) > 0 {
		var vs []string
		for _, pr := range pend {
			vs = append(vs, pr.Version)
		}
		item := pendingItem{name: fr.fam.Name, versions: vs}
		stacks[0].pending = []pendingItem{item}
		stacks[0].Notes = append(slices.Clip(stacks[0].Notes), pendingNote(stacks[0].pending))
	}
	return stacks, nil
}

// pendingItem is one framework's releases that a requirement matches
// and whose facts are pending.
type pendingItem struct {
	name     string
	versions []string
}

// pendingNote says, in one note, which matched releases are not answered
// because their facts are pending (a stack of several frameworks names
// them all in one line).
func pendingNote(items []pendingItem) string {
	var names, tables []string
	n := 0
	for _, it := range items {
		names = append(names, it.name+" "+strings.Join(it.versions, ", "))
		tables = append(tables, "cudb matrix "+matrixName(it.name))
		n += len(it.versions)
	}
	verb := "also matches but is a known release"
	if n > 1 {
		verb = "also match but are known releases"
	}
	return fmt.Sprintf("%s %s whose facts are pending: not answered (%s)", strings.Join(names, "; "), verb, strings.Join(tables, ", "))
}

// knownOnPlatform reports whether the data holds any build of component
// for platform, of the asked variant or else a CUDA one: a build whose
// platforms the data lacks is unknown there only if the framework is
// known to ship there at all (onnxruntime-gpu on macOS: never).
func knownOnPlatform(ctx context.Context, d *db.DB, component, platform, variant string) bool {
	all, err := d.Builds(ctx, component, func(string) bool { return true })
	if err != nil {
		return false
	}
	for _, b := range all {
		if b.Platform != platform {
			continue
		}
		if variantKind(b.Variant, b.CUDA) == variantKind(variant, "") {
			return true
		}
	}
	return false
}

// variantKind is the kind of build a variant names: "cuda" for any CUDA
// build (cu121, cuda12, or a stated CUDA; also when none is asked), else
// the variant's letters (cpu, rocm, xpu).
func variantKind(variant, cuda string) string {
	v := strings.ToLower(variant)
	if v == "" || cuda != "" || strings.HasPrefix(v, "cu") {
		return "cuda"
	}
	return strings.TrimRight(v, "0123456789.")
}

// pythonGap names the missing Python range of a build for the asked
// Python (JAX and ONNX Runtime releases state none in the data).
func pythonGap(py string) string {
	return "the Python range of this build is not in the data (cannot tell whether it installs on Python " + py + ")"
}

// platformNote explains a platform a framework left, from the facts:
// TensorFlow's last native-Windows GPU release points to WSL2.
func platformNote(ctx context.Context, d *db.DB, component, platform string) string {
	if component != frameworks.TensorFlow || platform != "windows" {
		return ""
	}
	last, prov, err := d.Attribute(ctx, frameworks.TensorFlow, "", "windows_native_gpu_last")
	if err != nil || last == "" {
		return ""
	}
	cite := prov.Source
	if prov.URL != "" {
		cite += " " + prov.URL
	}
	return fmt.Sprintf("TensorFlow %s was the last release with GPU support on native Windows; newer releases run on the GPU under WSL2 with the Linux build (cudb resolve tensorflow --platform linux) [%s]", last, cite)
}

// cpuOnly answers a platform where a release has no GPU build but a CPU
// build: a CPU-only build is a build (TensorFlow >= 2.11 on native
// Windows), so the answer is that build with a note saying so, not "no
// match". Only when nothing GPU-specific was asked for.
func cpuOnly(ctx context.Context, d *db.DB, p *parsedRequest, fr *frameworkReq, all []Stack) []Stack {
	if p.Platform == "" || p.Variant != "" || p.cuda != nil || p.cudnn != nil || p.nccl != nil {
		return nil
	}
	var out []Stack
	for _, s := range all {
		if s.Variant != "cpu" || !slices.Contains(s.Platforms, p.Platform) {
			continue
		}
		note := fmt.Sprintf("CPU only on %s: %s %s has no GPU build for this platform", p.Platform, fr.fam.Name, s.version.String())
		if why := platformNote(ctx, d, fr.fam.Name, p.Platform); why != "" {
			note += "; " + why
		}
		s.Notes = append(slices.Clip(s.Notes), note)
		out = append(out, s)
	}
	return out
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
		if familyName(label) == label { // no version asked: no release runs on it
			return fmt.Sprintf("cudb resolve %s (without --driver) lists each build's driver floor; or cudb resolve %s --variant cpu", label, label)
		}
		return fmt.Sprintf("cudb resolve %s --driver %s (without a version) for the newest release this driver runs", familyName(label), p.Driver)
	case "gpu":
		if familyName(label) == label {
			return fmt.Sprintf("cudb resolve %s (without --gpu) lists each build's kernels; or cudb resolve %s --variant cpu", label, label)
		}
		return fmt.Sprintf("cudb resolve %s --gpu ... (without a version) for the newest release with kernels for it", familyName(label))
	case "python", "platform":
		return fmt.Sprintf("cudb resolve '%s' without --%s", label, step)
	case "cudnn", "nccl":
		return fmt.Sprintf("cudb resolve '%s' without the %s requirement (cudb matrix %s shows each build's)", label, step, familyName(label))
	}
	// a companion's requirement (torchaudio==2.14.0): its paired versions
	return fmt.Sprintf("cudb resolve '%s' without the %s requirement, or cudb matrix %s for the %s paired with each release", label, step, familyName(label), step)
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

func versionMatches(req version.Requirement, b *db.BuildRow, pre bool) bool {
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

// stackCUDA is the CUDA a --cuda filter compares: the stack's CUDA, else
// the major its variant names (jax 0.4.25's "cuda12" build states no
// minor, but is a CUDA 12 build: --cuda 12 keeps it, --cuda 12.3 does not).
func stackCUDA(s *Stack) string {
	if s.CUDA != "" {
		return s.CUDA
	}
	if m, ok := strings.CutPrefix(s.Variant, "cuda"); ok && m != "" && strings.Trim(m, "0123456789") == "" {
		return m
	}
	return ""
}
