package query

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

// groupStacks folds builds of one (version, variant, package) across
// platforms into a stack. Builds arrive newest first.
func groupStacks(fr *frameworkReq, builds, release []*db.BuildRow) []Stack {
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
			stacks = append(stacks, Stack{framework: fr.fam.Name, version: v, Variant: b.Variant, CUDA: b.CUDA, platform: fr.platform})
		}
		s := &stacks[i]
		s.builds = append(s.builds, b)
		if b.Platform != "" && !slices.Contains(s.Platforms, b.Platform) {
			s.Platforms = append(s.Platforms, b.Platform)
		}
	}
	for i := range stacks {
		fill(&stacks[i], fr.fam)
	}
	expectPins(stacks, release)
	expectIndex(stacks)
	sort.SliceStable(stacks, func(i, j int) bool { return better(&stacks[i], &stacks[j]) })
	return stacks
}

// stackName names a stack in an unknown: "torch 2.11.0 cu128".
func (s *Stack) stackName() string {
	return s.framework + " " + s.version.String() + " " + s.Variant
}

// gap records a fact the stack's answer needs and the data lacks.
func (s *Stack) gap(what string) {
	msg := s.stackName() + ": " + what
	if !slices.Contains(s.Unknown, msg) {
		s.Unknown = append(s.Unknown, msg)
	}
	if s.Status != StatusIncompatible {
		s.Status = StatusUnknown
	}
}

// expectIndex marks CUDA wheels that plain pip may not install: the
// release has several CUDA builds, the data names none of them as the
// one PyPI serves, and this one has no index of its own. Writing a bare
// `name==version` for it could install another build (onnxruntime-gpu
// 1.18.0 from PyPI is the CUDA 11.8 build, not the CUDA 12 one).
func expectIndex(stacks []Stack) {
	builds, hasDefault := map[string]int{}, map[string]bool{}
	for i := range stacks {
		s := &stacks[i]
		if s.Representative().Channel != "" || !isCUDAVariant(s) {
			continue
		}
		k := s.version.String() + "|" + s.Representative().Package
		builds[k]++
		hasDefault[k] = hasDefault[k] || s.Default
	}
	for i := range stacks {
		s := &stacks[i]
		v := s.version.String() + "|" + s.Representative().Package
		if s.Representative().Channel != "" || !isCUDAVariant(s) || builds[v] < 2 || s.Default {
			continue
		}
		plugin := false
		if f, ok := frameworks.Get(s.framework); ok && f.PluginPrefix != "" {
			for name := range s.Packages {
				plugin = plugin || strings.HasPrefix(name, f.PluginPrefix)
			}
		}
		// A CUDA plugin package (jax-cuda12-plugin) names the build itself.
		if s.Install.IndexURL != "" || s.Install.FindLinks != "" || plugin {
			continue
		}
		if hasDefault[v] {
			// PyPI serves another of its builds (onnxruntime-gpu 1.19.0's
			// CUDA 12 one): a bare pin would install that one instead.
			s.gap("PyPI serves another of its CUDA builds, and the package index of this one is not in the data")
		} else {
			s.gap("which of its CUDA builds PyPI serves, and the package index of this one, are not in the data")
		}
	}
}

// side is what the stack brings into a shared environment (see Share).
func (s *Stack) side() Side {
	sd := Side{Label: stackLabel(*s), Name: s.stackName(), CUDAMajor: cudaMajor(*s), CUDA: s.CUDA, Pins: s.pinReqs,
		CUDNN: s.CUDNN, CUDNNKind: s.cudnnKind}
	sd.Unknown = append(sd.Unknown, s.Unknown...)
	return sd
}

// better orders stacks best first: known-good before unknown, then the
// newest release, then the variant plain pip installs, then the newest
// CUDA.
func better(a, b *Stack) bool {
	if (a.Status == StatusUnknown) != (b.Status == StatusUnknown) {
		return b.Status == StatusUnknown
	}
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
// Representative is the build that stands for the stack: its Linux build
// when there is one.
func (s *Stack) Representative() *db.BuildRow {
	for _, b := range s.builds {
		if b.Platform == "linux" {
			return b
		}
	}
	return s.builds[0]
}

// ArchBuild is the build whose GPU architecture list stands for the
// stack, nil when none does; missing then says which list is not known.
//
// An arch list is a statement about one platform's wheels: the Windows
// wheels of a release can carry other kernels than the Linux ones (torch
// 2.7.1+cu128 keeps sm_50 to sm_61 on Windows only; the Linux aarch64
// wheels leave out everything below sm_80). So when a platform other than
// the representative's is asked, only a list stated for that platform (or
// for every platform) counts, and none is unknown: the Linux list is never
// borrowed. With no platform asked, the representative's list stands.
func (s *Stack) ArchBuild() (b *db.BuildRow, missing string) {
	return ArchFor(s.builds, s.platform)
}

// ArchFor applies that rule to the builds of one release and variant (one
// per platform): the build whose arch list answers for platform ("" for
// the representative, Linux), or nil and what is not known. verify judges
// an installed wheel with it too.
func ArchFor(builds []*db.BuildRow, platform string) (b *db.BuildRow, missing string) {
	if len(builds) == 0 {
		return nil, ""
	}
	rep := builds[0]
	for _, b := range builds {
		if b.Platform == "linux" {
			rep = b
			break
		}
	}
	if platform == "" || rep.Platform == platform || rep.Platform == "" {
		if rep.ArchList == "" {
			return nil, ""
		}
		return rep, ""
	}
	for _, b := range builds {
		if (b.Platform == platform || b.Platform == "") && b.ArchList != "" {
			return b, ""
		}
	}
	name := rep.Component
	if rep.Package != "" {
		name = rep.Package
	}
	return nil, fmt.Sprintf("no %s arch list is known for %s %s+%s", platformName(platform), name, rep.Version, rep.Variant)
}

// platformName writes a platform as prose ("Windows", "Linux aarch64").
func platformName(p string) string {
	switch p {
	case "windows":
		return "Windows"
	case "linux":
		return "Linux"
	case "linux-aarch64":
		return "Linux aarch64"
	case "macos":
		return "macOS"
	}
	return p
}

func fill(s *Stack, fam family) {
	sort.Strings(s.Platforms)
	rep := s.Representative()
	name := fam.Name
	if rep.Package != "" {
		name = rep.Package
	}
	pipVersion := rep.PipVersion
	if pipVersion == "" {
		pipVersion = rep.Version
	}
	s.Packages = map[string]string{name: pipVersion}
	s.Status = StatusOK
	s.Unknown = []string{}
	s.cite("version", name+" "+pipVersion, rep.Provenance)
	// "Default" is about the representative (Linux x86-64) wheel: PyPI's
	// default for another platform (aarch64, Windows) is a different
	// question, and marking both would show two defaults for one release.
	s.Default = rep.IsDefault
	s.Python = Range{Min: rep.PythonMin, Max: rep.PythonMax}
	if s.Python.Min != "" || s.Python.Max != "" {
		s.cite("python", s.Python.Min+"-"+s.Python.Max, rep.Provenance)
	}
	for _, c := range fam.Companions {
		// A pin names the exact wheel pip must install (jaxlib's
		// +cuda12.cudnn89 flavour); a pairing names the release.
		if r, ok := rep.Req(c, db.KindPin, db.KindPaired, db.KindTested); ok {
			s.Packages[c] = specVersion(r.Spec)
			s.cite(c, s.Packages[c], r.Provenance)
		}
	}
	// A CUDA plugin released with the framework (jax-cuda12-plugin) is
	// what makes it use the GPU: without it pip installs a CPU-only JAX.
	if fam.PluginPrefix != "" {
		for _, r := range rep.Reqs {
			if strings.HasPrefix(r.Needs, fam.PluginPrefix) && (r.Kind == db.KindPaired || r.Kind == db.KindPin) {
				s.Packages[r.Needs] = specVersion(r.Spec)
				s.cite(r.Needs, s.Packages[r.Needs], r.Provenance)
			}
		}
	}
	if r, ok := cudnnReq(rep); ok {
		s.CUDNN = strings.TrimLeft(r.Spec, "=")
		s.cudnnKind = r.Kind
		s.cite("cudnn", s.CUDNN+" ("+r.Kind+")", r.Provenance)
		// One note per source that states another cuDNN, all its
		// statements in it.
		var says []string
		bySource := map[string][]string{}
		for _, other := range rep.Reqs {
			if other.Needs == "cudnn" && other.Kind != r.Kind && strings.TrimLeft(other.Spec, "=") != s.CUDNN {
				if _, ok := bySource[other.Source]; !ok {
					says = append(says, other.Source)
				}
				bySource[other.Source] = append(bySource[other.Source], other.Spec+" ("+other.Kind+")")
				s.cite("cudnn (other)", other.Spec+" ("+other.Kind+")", other.Provenance)
			}
		}
		for _, src := range says {
			s.Notes = append(s.Notes, fmt.Sprintf("cuDNN: pip installs %s (%s); %s says %s", s.CUDNN, r.Kind, src, strings.Join(bySource[src], ", ")))
		}
	}
	if s.CUDNN == "" && isCUDAVariant(s) && rep.Channel == "" {
		// A conda environment gets its cuDNN from the solver; a wheel
		// brings or pins its own, and the data should say which.
		s.gap("cuDNN not in the data")
	}
	if r, ok := rep.Req("nccl", db.KindPin, db.KindBundled, db.KindTested); ok {
		s.NCCL = strings.TrimLeft(r.Spec, "=")
		s.cite("nccl", s.NCCL, r.Provenance)
	}
	for _, r := range rep.Reqs {
		if r.Kind == db.KindPin && !slices.Contains(fam.Companions, r.Needs) && !slices.Contains(nativeComponents, r.Needs) {
			s.pinReqs = append(s.pinReqs, r)
			s.pinNames = append(s.pinNames, version.NormalizeName(r.Needs))
			pin := r.Needs + r.Spec
			if r.Marker != "" {
				pin += "; " + r.Marker
			}
			s.Pins = append(s.Pins, pin)
		}
	}
	if ab, _ := s.ArchBuild(); ab != nil {
		s.ComputeCapabilities = archToCC(ab.ArchList)
		s.cite("arch_list", ab.ArchList, ab.ArchCite())
	}
	s.Install = install(fam, s, rep, name, pipVersion)
	s.addSource(rep.Provenance)
	for _, r := range rep.Reqs {
		s.addSource(r.Provenance)
	}
	for _, b := range s.builds {
		s.addSource(b.Provenance)
	}
	if ab, _ := s.ArchBuild(); ab != nil {
		s.addSource(ab.ArchCite()) // the arch list's own document (a build script at its commit)
	}
	platformFacts(s, rep)
}

// platformFacts answers for the asked platform: a stack folds the
// platforms of one release and variant, and some facts differ by platform
// (TensorFlow 1.0 on Windows is Python 3.5 only, 1.12 on Windows lists
// CUDA 9.0 / cuDNN 7.2, onnxruntime-gpu has its own Windows cuDNN). The
// Python range, CUDA and cuDNN come from that platform's build; the pins
// stay the wheel metadata's (their markers say where they apply).
func platformFacts(s *Stack, rep *db.BuildRow) {
	if s.platform == "" || rep.Platform == s.platform {
		return
	}
	for _, b := range s.builds {
		if b.Platform != s.platform {
			continue
		}
		if b.PythonMin != "" || b.PythonMax != "" {
			s.Python = Range{Min: b.PythonMin, Max: b.PythonMax}
			s.cite("python ("+b.Platform+")", b.PythonMin+"-"+b.PythonMax, b.Provenance)
		}
		if b.CUDA != "" {
			s.CUDA = b.CUDA
		}
		if r, ok := cudnnReq(b); ok {
			s.CUDNN, s.cudnnKind = strings.TrimLeft(r.Spec, "="), r.Kind
			s.cite("cudnn ("+b.Platform+")", s.CUDNN+" ("+r.Kind+")", r.Provenance)
		}
		return
	}
}

func install(fam family, s *Stack, rep *db.BuildRow, name, pipVersion string) Install {
	in := Install{PyPIDefault: s.Default && pypiDefaultOn(s)}
	if rep.Channel == "conda" {
		in.CondaChannel = frameworks.Must(frameworks.Torch).CondaChannel
		in.Command = fmt.Sprintf("conda install %s==%s -c pytorch", condaName(name), rep.Version)
		return in
	}
	// The extra its CUDA wheels come with (tensorflow[and-cuda]), as the
	// wheel's own pins say.
	extra := ""
	for _, r := range rep.Reqs {
		if e := markerExtra(r.Marker); r.Kind == db.KindPin && e != "" {
			extra = "[" + e + "]"
			break
		}
	}
	pkgs := []string{shellWord(name + extra + "==" + pipVersion)}
	for _, c := range fam.Companions {
		if v, ok := s.Packages[c]; ok {
			pkgs = append(pkgs, shellWord(Requirement(c, v)))
		}
	}
	for _, c := range slices.Sorted(maps.Keys(s.Packages)) {
		if fam.PluginPrefix != "" && strings.HasPrefix(c, fam.PluginPrefix) {
			pkgs = append(pkgs, shellWord(Requirement(c, s.Packages[c])))
		}
	}
	switch {
	case strings.HasSuffix(rep.IndexURL, ".html"):
		in.FindLinks = rep.IndexURL
		in.Command = "pip install " + strings.Join(pkgs, " ") + " -f " + rep.IndexURL
	case rep.IndexURL != "" && !in.PyPIDefault:
		in.IndexURL = rep.IndexURL
		in.Command = "pip install " + strings.Join(pkgs, " ") + " --index-url " + rep.IndexURL
		if f, ok := frameworks.Get(s.framework); ok && f.FeedLacksDeps {
			// The feed first, so that its wheel wins over PyPI's build of
			// the same version; PyPI after it for the dependencies.
			in.Command += " --extra-index-url " + PyPISimple
		}
	default:
		in.IndexURL = rep.IndexURL
		// The PyPI wheel is this variant: plain pip, no local label.
		pkgs[0] = shellWord(name + extra + "==" + rep.Version)
		in.Command = "pip install " + strings.Join(pkgs, " ")
	}
	return in
}

// pypiDefaultOn reports whether the build plain pip installs on the
// asked platform is this variant. Default is stated for the Linux x86-64
// wheel; on another platform the data says so per build (PyPI's torch for
// Windows is a CPU-only wheel, so the CUDA build comes from its index).
func pypiDefaultOn(s *Stack) bool {
	pb := s.platformBuild()
	if pb == s.Representative() {
		return true
	}
	return pb.IsDefault
}

// shellWord quotes a requirement with extras (a shell would glob them) or
// a range (a shell would read < and > as redirections).
func shellWord(req string) string {
	if strings.ContainsAny(req, "[<>") {
		return `"` + req + `"`
	}
	return req
}

// markerExtra is the extra a marker's `extra == "x"` clause names.
func markerExtra(marker string) string {
	for _, c := range strings.Split(marker, " and ") {
		if e, ok := strings.CutPrefix(strings.ReplaceAll(c, " ", ""), "extra=="); ok {
			return strings.Trim(e, `"'`)
		}
	}
	return ""
}

// condaName is a pip package's name on conda channels.
func condaName(n string) string {
	if f, ok := frameworks.Get(n); ok && f.Name == n && f.CondaName != "" {
		return f.CondaName
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

func distinct(stacks []Stack, f func(Stack) string) []string {
	var out []string
	for _, s := range stacks {
		if v := f(s); v != "" && !slices.Contains(out, v) {
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
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}

// PyPISimple is PyPI's package index, named where a pin reads a
// framework's own feed first and PyPI after it.
const PyPISimple = "https://pypi.org/simple"

// Requirement is the pip requirement for a stack's package: name==version,
// or name and its specifier where the evidence gives a range (jax 0.4.37's
// jax[cuda12] asks for jax-cuda12-plugin>=0.4.36,<=0.4.37).
func Requirement(name, v string) string {
	if strings.ContainsAny(v[:min(1, len(v))], "<>=!~") {
		return name + v
	}
	return name + "==" + v
}
