package query

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// Answers have three states: a judgement is ok, incompatible, or unknown
// when a fact it needs is not in the data. Unknown is never counted as
// agreement nor as conflict; it names what is missing.
const (
	StatusOK           = "ok"
	StatusIncompatible = "incompatible"
	StatusUnknown      = "unknown"
)

// Side is what one installed (or candidate) framework build brings into a
// shared Python environment: the wheels it pins and the cuDNN it loads.
// resolve builds it from a stack, verify from the build it matched on the
// host; both call Share, so they judge the same way.
type Side struct {
	Label     string // "torch==2.5.0+cu124 (cu124)"
	Name      string // "torch 2.5.0 cu124", for unknowns
	CUDAMajor string // "12"; "" for a CPU build or when unknown
	CUDA      string // "12.1", or "12.x" when only the line is known
	// Pins are the wheel's Requires-Dist pins on pip packages.
	Pins []db.Requirement
	// CUDNN is the cuDNN the build needs and how the data knows it: pin
	// (the pip package), bundled (a private copy inside the wheel), or
	// tested/minimum (loaded from wherever the loader finds libcudnn).
	CUDNN     string
	CUDNNKind string
	// Unknown names facts about this build the judgement needs but the
	// data lacks.
	Unknown []string
}

// SideOf describes a build (its representative row) for Share; release
// holds the other builds of its release, to tell pins the data lacks.
func SideOf(label, name string, b *db.BuildRow, companions []string, release []*db.BuildRow) Side {
	s := Side{Label: label, Name: name, CUDAMajor: cudaMajorOf(b.CUDA, b.Variant), CUDA: b.CUDA}
	for _, r := range b.Reqs {
		if r.Kind == db.KindPin && !slices.Contains(companions, r.Needs) && !slices.Contains(nativeComponents, r.Needs) {
			s.Pins = append(s.Pins, r)
		}
	}
	if r, ok := cudnnReq(b); ok {
		s.CUDNN, s.CUDNNKind = strings.TrimLeft(r.Spec, "="), r.Kind
	}
	if s.CUDAMajor != "" && s.CUDNN == "" && b.Channel == "" {
		s.Unknown = append(s.Unknown, name+": cuDNN not in the data")
	}
	if pinsMissing(b, release) {
		s.Unknown = append(s.Unknown, name+": "+pinsGap)
	}
	return s
}

// cudnnReq is what the data says about a build's cuDNN: the cudnn
// component's requirement, or else the wheel's own pin on an
// nvidia-cudnn-cuNN package (the version pip installs).
func cudnnReq(b *db.BuildRow) (db.Requirement, bool) {
	if r, ok := b.Req("cudnn", db.KindPin); ok {
		return r, true
	}
	// What pip installs comes before what a document says was tested.
	for _, r := range b.Reqs {
		if r.Kind == db.KindPin && strings.HasPrefix(version.NormalizeName(r.Needs), "nvidia-cudnn-cu") {
			r.Spec = specVersion(r.Spec)
			return r, true
		}
	}
	return b.Req("cudnn", db.KindBundled, db.KindTested, db.KindMinimum)
}

// Judgement is the answer of Share.
type Judgement struct {
	Status    string
	Conflicts []Incompatibility
	Unknown   []string
}

// Share judges whether two framework builds can live in one environment
// the way pip and the dynamic loader would: their pins on the same pip
// package must admit a common version (package by package), one CUDA
// runtime major serves the process, and the one libcudnn.so.N the process
// loads must satisfy both (soname major and minimum version). A fact
// missing on either side makes the answer unknown, never a yes.
func Share(a, b Side) Judgement {
	var j Judgement
	if x, y := a.CUDAMajor, b.CUDAMajor; x != "" && y != "" && x != y {
		j.Conflicts = append(j.Conflicts, Incompatibility{Kind: "cuda_major", Between: []string{a.Label, b.Label},
			Message: fmt.Sprintf("%s is built for CUDA %s, %s for CUDA %s: no CUDA major in common", a.Label, cudaShown(a), b.Label, cudaShown(b))})
	}
	pinned := map[string]db.Requirement{}
	for _, r := range a.Pins {
		pinned[version.NormalizeName(pipName(r.Needs))] = r
	}
	cudnnPinnedBoth := false
	for _, r := range b.Pins {
		n := version.NormalizeName(pipName(r.Needs))
		ra, ok := pinned[n]
		if !ok {
			continue
		}
		if strings.HasPrefix(n, "nvidia-cudnn") {
			cudnnPinnedBoth = true
		}
		if !specsIntersect(ra.Spec, r.Spec) {
			j.Conflicts = append(j.Conflicts, Incompatibility{Kind: "pin", Package: ra.Needs, Between: []string{a.Label, b.Label},
				Specs:   []string{ra.Needs + ra.Spec, r.Needs + r.Spec},
				Message: fmt.Sprintf("%s pins %s%s and %s pins %s%s: pip cannot install both", a.Label, ra.Needs, ra.Spec, b.Label, r.Needs, r.Spec)})
		}
	}
	j.Unknown = append(j.Unknown, a.Unknown...)
	j.Unknown = append(j.Unknown, b.Unknown...)
	if !cudnnPinnedBoth && a.CUDNNKind != db.KindBundled && b.CUDNNKind != db.KindBundled && a.CUDNN != "" && b.CUDNN != "" {
		sa, sb := cudnnNeed(a), cudnnNeed(b)
		if !specsIntersect(sa, sb) {
			j.Conflicts = append(j.Conflicts, Incompatibility{Kind: "cudnn", Between: []string{a.Label, b.Label},
				Specs: []string{"cudnn" + sa, "cudnn" + sb},
				Message: fmt.Sprintf("%s %s; %s %s: one process loads one libcudnn.so.%s and no cuDNN version satisfies both",
					a.Label, cudnnNeedText(a, sa), b.Label, cudnnNeedText(b, sb), version.MajorText(a.CUDNN))})
		}
	}
	switch {
	case len(j.Conflicts) > 0:
		j.Status = StatusIncompatible
	case len(j.Unknown) > 0:
		j.Status = StatusUnknown
	default:
		j.Status = StatusOK
	}
	return j
}

func cudaShown(s Side) string {
	if s.CUDA != "" {
		return s.CUDA
	}
	return s.CUDAMajor + ".x"
}

// pipName drops extras from a requirement name (cuda-toolkit[cublas]).
func pipName(n string) string {
	name, _, _ := strings.Cut(n, "[")
	return name
}

// cudnnNeed turns what a side knows about its cuDNN into a specifier over
// cuDNN versions: a pip pin is the versions it admits; a tested or
// minimum version loaded from the system needs the same soname major at
// that version or newer (cuDNN runs code built against an older minor of
// its major, not a newer one).
func cudnnNeed(s Side) string {
	spec := strings.TrimSpace(s.CUDNN)
	if spec == "" {
		return ""
	}
	if strings.ContainsAny(spec[:1], "<>=!~") {
		if !strings.Contains(spec, "<") {
			spec += ",<" + nextMajor(strings.TrimLeft(spec, "<>=!~ "))
		}
		return spec
	}
	if s.CUDNNKind == db.KindPin {
		return "==" + spec
	}
	return ">=" + spec + ",<" + nextMajor(spec)
}

func cudnnNeedText(s Side, spec string) string {
	switch s.CUDNNKind {
	case db.KindPin:
		return "pins cuDNN " + strings.TrimPrefix(spec, "==")
	case db.KindTested:
		return fmt.Sprintf("loads libcudnn.so.%s and needs cuDNN %s (tested with %s)", version.MajorText(s.CUDNN), spec, s.CUDNN)
	}
	return fmt.Sprintf("needs cuDNN %s", spec)
}

func nextMajor(v string) string {
	m, err := strconv.Atoi(version.MajorText(v))
	if err != nil {
		return v
	}
	return strconv.Itoa(m + 1)
}

// specsIntersect reports whether two PEP 440 specifier texts admit a
// common version; unreadable text agrees only with itself.
func specsIntersect(a, b string) bool {
	sa, errA := version.ParseSpecifiers(bareAsExact(a))
	sb, errB := version.ParseSpecifiers(bareAsExact(b))
	if errA != nil || errB != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return sa.Intersects(sb)
}

func bareAsExact(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && !strings.ContainsAny(s[:1], "<>=!~") {
		return "==" + s
	}
	return s
}

// cudaMajorOf is a build's CUDA major, from its CUDA version or, when the
// source names only the line, from its variant (cuda12, cu118).
func cudaMajorOf(cuda, variant string) string {
	if cuda != "" {
		return version.MajorText(cuda)
	}
	v := strings.TrimPrefix(strings.TrimPrefix(variant, "cuda"), "cu")
	if v == variant || v == "" {
		return ""
	}
	if _, err := strconv.Atoi(v); err != nil {
		return ""
	}
	if strings.HasPrefix(variant, "cuda") || len(v) <= 2 {
		return version.MajorText(v)
	}
	return v[:len(v)-1] // cu118 → 11
}
