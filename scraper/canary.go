package scraper

import (
	"fmt"

	"github.com/cudb/cudb/db"
)

// Canary is a fact a source must state after every refresh: one so
// settled (torch 2.1.0 cu121 pins cuDNN 8.9.2.26; CUDA 12.0 GA needs Linux
// driver 525.60.13) that its absence means the page or the parser broke,
// not that upstream changed its mind. A refresh whose facts lose a canary
// the previous snapshot stated fails that source, and its previous file is
// kept.
type Canary struct {
	// Fact says the fact in words; errors name it.
	Fact  string
	holds func(f *db.Facts) bool
}

// HeldBy reports whether f states the canary's fact.
func (c Canary) HeldBy(f *db.Facts) bool { return f != nil && c.holds != nil && c.holds(f) }

// Canaried is implemented by sources that name canary facts; every source
// in scraper/all names a few (a test checks them on the committed data).
type Canaried interface {
	Canaries() []Canary
}

// keyMatches compares a fact's build key with the canary's; a
// release-wide key (db.AnyBuild) in the fact matches any variant or
// platform.
func keyMatches(got, want db.BuildKey) bool {
	eq := func(g, w string) bool { return g == w || g == db.AnyBuild }
	return got.Component == want.Component && got.Version == want.Version &&
		eq(got.Variant, want.Variant) && eq(got.Platform, want.Platform) && got.Channel == want.Channel
}

// ReleaseCanary: the source lists component's release version.
func ReleaseCanary(component, version string) Canary {
	return Canary{Fact: fmt.Sprintf("release %s %s", component, version), holds: func(f *db.Facts) bool {
		for _, r := range f.Releases {
			if r.Component == component && r.Version == version {
				return true
			}
		}
		return false
	}}
}

// BuildCanary: the source lists the build k.
func BuildCanary(k db.BuildKey) Canary {
	return Canary{Fact: "build " + describeKey(k), holds: func(f *db.Facts) bool {
		for _, b := range f.Builds {
			if keyMatches(db.BuildKey{Component: b.Component, Version: b.Version, Variant: b.Variant, Platform: b.Platform, Channel: b.Channel}, k) {
				return true
			}
		}
		return false
	}}
}

// RequirementCanary: build k needs `needs` with this kind and spec.
func RequirementCanary(k db.BuildKey, needs, kind, spec string) Canary {
	return Canary{Fact: fmt.Sprintf("%s needs %s %s (%s)", describeKey(k), needs, spec, kind), holds: func(f *db.Facts) bool {
		for _, r := range f.Requirements {
			if keyMatches(r.Build, k) && r.Needs == needs && r.Kind == kind && r.Spec == spec {
				return true
			}
		}
		return false
	}}
}

// CUDADriverCanary: CUDA cuda (kind toolkit or minor_compat) needs at
// least minDriver on os.
func CUDADriverCanary(cuda, os, kind, minDriver string) Canary {
	return Canary{Fact: fmt.Sprintf("CUDA %s (%s) needs %s driver %s", cuda, kind, os, minDriver), holds: func(f *db.Facts) bool {
		for _, c := range f.CUDADrivers {
			if c.CUDA == cuda && c.OS == os && c.Kind == kind && c.MinDriver == minDriver {
				return true
			}
		}
		return false
	}}
}

// CUDNNCanary: cuDNN cudnn supports CUDA major cudaMajor with a Linux
// driver floor of minDriverLinux ("" when the row states none).
func CUDNNCanary(cudnn, cudaMajor, minDriverLinux string) Canary {
	return Canary{Fact: fmt.Sprintf("cuDNN %s supports CUDA %s with Linux driver %s", cudnn, cudaMajor, minDriverLinux), holds: func(f *db.Facts) bool {
		for _, c := range f.CUDNN {
			if c.CUDNN == cudnn && c.CUDAMajor == cudaMajor && c.MinDriverLinux == minDriverLinux {
				return true
			}
		}
		return false
	}}
}

// GPUCanary: the GPU name has compute capability cc.
func GPUCanary(name, cc string) Canary {
	return Canary{Fact: fmt.Sprintf("GPU %s has compute capability %s", name, cc), holds: func(f *db.Facts) bool {
		for _, g := range f.GPUs {
			if g.Name == name && g.ComputeCapability == cc {
				return true
			}
		}
		return false
	}}
}

// CUDAArchCanary: CUDA cuda compiles for smMin through smMax.
func CUDAArchCanary(cuda, smMin, smMax string) Canary {
	return Canary{Fact: fmt.Sprintf("CUDA %s compiles for %s to %s", cuda, smMin, smMax), holds: func(f *db.Facts) bool {
		for _, a := range f.CUDAArches {
			if a.CUDA == cuda && a.SMMin == smMin && a.SMMax == smMax {
				return true
			}
		}
		return false
	}}
}

// DriverBranchCanary: driver branch runs CUDA up to maxCUDA.
func DriverBranchCanary(branch, maxCUDA string) Canary {
	return Canary{Fact: fmt.Sprintf("driver branch %s runs CUDA up to %s", branch, maxCUDA), holds: func(f *db.Facts) bool {
		for _, b := range f.DriverBranches {
			if b.Branch == branch && b.MaxCUDA == maxCUDA {
				return true
			}
		}
		return false
	}}
}

// AttributeCanary: component version has attribute key = value.
func AttributeCanary(component, version, key, value string) Canary {
	return Canary{Fact: fmt.Sprintf("%s %s %s = %s", component, version, key, value), holds: func(f *db.Facts) bool {
		for _, a := range f.Attributes {
			if a.Component == component && a.Version == version && a.Key == key && a.Value == value {
				return true
			}
		}
		return false
	}}
}

func describeKey(k db.BuildKey) string {
	s := k.Component + " " + k.Version
	if k.Variant != "" && k.Variant != db.AnyBuild {
		s += " " + k.Variant
	}
	if k.Platform != "" && k.Platform != db.AnyBuild {
		s += " " + k.Platform
	}
	if k.Channel != "" {
		s += " (" + k.Channel + ")"
	}
	return s
}
