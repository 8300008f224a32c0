package db

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Merge combines facts from several sources. parts is in precedence
// order: when two rows have the same identity, the earlier one is kept,
// empty fields of the kept row are filled from the later one, and every
// field on which both have different non-empty values becomes a Conflict
// (never a silent pick). Conflicts already present in parts are kept.
func Merge(parts ...*Facts) *Facts {
	out := &Facts{}
	m := merger{out: out}
	for _, p := range parts {
		if p == nil {
			continue
		}
		out.Conflicts = append(out.Conflicts, p.Conflicts...)
	}
	mergeSlice(&m, &out.Releases, parts, func(f *Facts) []Release { return f.Releases },
		func(r Release) string { return "release " + r.Component + "==" + r.Version })
	mergeSlice(&m, &out.Builds, parts, func(f *Facts) []Build { return concreteBuilds(f.Builds) },
		func(b Build) string { return "build " + b.Key().String() })
	fillWide(parts, &out.Builds, out.Releases, &out.Conflicts)
	reqParts := expandRelease(parts, out.Builds, &out.Conflicts)
	mergeSlice(&m, &out.Requirements, reqParts, func(f *Facts) []Requirement { return f.Requirements },
		func(r Requirement) string {
			// One pip package is one requirement whatever extras a source
			// spells (cuda-toolkit[cublas,...]): two sources pinning it are
			// the same fact, kept by precedence, their difference recorded.
			name, _, _ := strings.Cut(r.Needs, "[")
			return "requirement " + r.Build.String() + " needs " + name + " (" + r.Kind + ")"
		})
	mergeSlice(&m, &out.CUDADrivers, parts, func(f *Facts) []CUDADriver { return f.CUDADrivers },
		func(c CUDADriver) string { return "cuda_driver " + c.CUDA + " " + c.OS + " " + c.Kind })
	mergeSlice(&m, &out.CUDNN, parts, func(f *Facts) []CUDNNSupport { return f.CUDNN },
		func(c CUDNNSupport) string { return "cudnn " + c.CUDNN + " cuda " + c.CUDAMajor + " " + c.CUDAVersions })
	mergeSlice(&m, &out.GPUs, parts, func(f *Facts) []GPU { return f.GPUs },
		func(g GPU) string { return "gpu " + strings.ToLower(g.Name) })
	mergeSlice(&m, &out.CUDAArches, parts, func(f *Facts) []CUDAArch { return f.CUDAArches },
		func(a CUDAArch) string { return "cuda_arch " + a.CUDA })
	mergeSlice(&m, &out.DriverBranches, parts, func(f *Facts) []DriverBranch { return f.DriverBranches },
		func(d DriverBranch) string { return "driver_branch " + d.Branch })
	mergeSlice(&m, &out.Attributes, parts, func(f *Facts) []Attribute { return f.Attributes },
		func(a Attribute) string { return "attribute " + a.Component + " " + a.Version + " " + a.Key })
	sort.SliceStable(out.Conflicts, func(i, j int) bool {
		a, b := out.Conflicts[i], out.Conflicts[j]
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.Field < b.Field
	})
	return out
}

// String renders a build key for messages and conflict subjects.
func (k BuildKey) String() string {
	s := k.Component + "==" + k.Version
	if k.Variant != "" {
		s += " " + k.Variant
	}
	if k.Platform != "" {
		s += " " + k.Platform
	}
	if k.Channel != "" {
		s += " (" + k.Channel + ")"
	}
	return s
}

type merger struct{ out *Facts }

func mergeSlice[T any](m *merger, dst *[]T, parts []*Facts, get func(*Facts) []T, id func(T) string) {
	index := map[string]int{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		for _, row := range get(p) {
			key := id(row)
			i, seen := index[key]
			if !seen {
				index[key] = len(*dst)
				*dst = append(*dst, row)
				continue
			}
			m.combine(key, &(*dst)[i], row)
		}
	}
}

// combine fills empty fields of *kept from other and records a conflict
// for every field where both hold different values.
func (m *merger) combine(subject string, kept any, other any) {
	kv := reflect.ValueOf(kept).Elem()
	ov := reflect.ValueOf(other)
	keptSrc := kv.FieldByName("Provenance").Interface().(Provenance)
	otherSrc := ov.FieldByName("Provenance").Interface().(Provenance)
	t := kv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Name == "Provenance" || f.Name == "ArchFrom" || !f.IsExported() {
			continue
		}
		if f.Name == "ArchList" {
			// an arch list carries its own citation (Build.FillArch)
			if b, ok := kept.(*Build); ok && b.FillArch(other.(Build)) {
				continue
			}
		}
		kf, of := kv.Field(i), ov.Field(i)
		ks, os := render(kf), render(of)
		switch {
		case os == "" || ks == os:
		case ks == "":
			kf.Set(of)
		default:
			m.out.Conflicts = append(m.out.Conflicts, Conflict{
				Subject: subject, Field: jsonName(f),
				Kept: ks, KeptSource: cite(keptSrc),
				Other: os, OtherSource: cite(otherSrc),
			})
		}
	}
}

func render(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		if v.Bool() {
			return "true"
		}
		return ""
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return strings.Join(parts, ";")
	default:
		return fmt.Sprint(v.Interface())
	}
}

func jsonName(f reflect.StructField) string {
	if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" {
		return tag
	}
	return strings.ToLower(f.Name)
}

func cite(p Provenance) string {
	if p.Ref != "" {
		return p.Source + " (" + p.Ref + ")"
	}
	return p.Source
}

func concreteBuilds(bs []Build) []Build {
	out := bs[:0:0]
	for _, b := range bs {
		if !b.Key().IsWide() {
			out = append(out, b)
		}
	}
	return out
}
