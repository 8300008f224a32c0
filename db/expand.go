package db

import "strings"

// AnyBuild in a requirement's BuildKey Variant and Platform makes it a
// release-wide statement: it applies to every build of that component,
// version and channel that the merged sources define (a torchvision
// pairing is a property of the torch release, not of one wheel).
const AnyBuild = "*"

// IsRelease says whether k names every build of a release (see AnyBuild).
func (k BuildKey) IsRelease() bool { return k.Variant == AnyBuild && k.Platform == AnyBuild }

// IsWide says whether k names a set of builds rather than one: a variant
// or platform of AnyBuild, or a version "X.Y.*" (every release of a minor,
// as RELEASE.md's per-minor rows state facts). A wide requirement applies
// to every merged build it matches; a wide build only fills the empty
// fields of the merged builds it matches (it never makes a build).
func (k BuildKey) IsWide() bool {
	return k.Variant == AnyBuild || k.Platform == AnyBuild || strings.HasSuffix(k.Version, ".*")
}

// Matches says whether the wide key k names the concrete build key b.
func (k BuildKey) Matches(b BuildKey) bool {
	if k.Component != b.Component || k.Channel != b.Channel {
		return false
	}
	if pre, ok := strings.CutSuffix(k.Version, "*"); ok {
		if !strings.HasPrefix(b.Version, pre) {
			return false
		}
	} else if k.Version != b.Version {
		return false
	}
	return (k.Variant == AnyBuild || k.Variant == b.Variant) && (k.Platform == AnyBuild || k.Platform == b.Platform)
}

// expandRelease replaces the release-wide requirements of each part by one
// requirement per matching merged build, in place of the part's own
// position so precedence is unchanged. A release-wide requirement that no
// build matches becomes a conflict: it would otherwise vanish unseen.
func expandRelease(parts []*Facts, builds []Build, conflicts *[]Conflict) []*Facts {
	type rel struct{ component, channel string }
	byRel := map[rel][]BuildKey{}
	for _, b := range builds {
		k := rel{b.Component, b.Channel}
		byRel[k] = append(byRel[k], b.Key())
	}
	out := make([]*Facts, len(parts))
	for i, p := range parts {
		if p == nil {
			continue
		}
		wide := false
		for _, r := range p.Requirements {
			if r.Build.IsWide() {
				wide = true
				break
			}
		}
		if !wide {
			out[i] = p
			continue
		}
		cp := *p
		cp.Requirements = nil
		for _, r := range p.Requirements {
			if !r.Build.IsWide() {
				cp.Requirements = append(cp.Requirements, r)
				continue
			}
			var keys []BuildKey
			for _, k := range byRel[rel{r.Build.Component, r.Build.Channel}] {
				if r.Build.Matches(k) {
					keys = append(keys, k)
				}
			}
			if len(keys) == 0 {
				*conflicts = append(*conflicts, Conflict{
					Subject: "requirement " + r.Build.String() + " needs " + r.Needs + " (" + r.Kind + ")",
					Field:   "refused", Other: r.Spec, OtherSource: cite(r.Provenance),
					Note: "release-wide requirement: no build of this release, variant, platform and channel is known",
				})
				continue
			}
			for _, k := range keys {
				c := r
				c.Build = k
				cp.Requirements = append(cp.Requirements, c)
			}
		}
		out[i] = &cp
	}
	return out
}

// fillWide applies the wide builds of parts (see BuildKey.IsWide) to the
// merged builds: each empty field of a matching build is filled (ArchList,
// CUDA, Python range); a different non-empty value is a conflict, the
// build's own value kept. A wide build that matches nothing is refused.
func fillWide(parts []*Facts, builds *[]Build, releases []Release, conflicts *[]Conflict) {
	for _, p := range parts {
		if p == nil {
			continue
		}
		for _, w := range p.Builds {
			if w.EachRelease && w.Key().IsWide() {
				makeEach(w, builds, releases)
			}
		}
	}
	fill(parts, *builds, conflicts)
}

// makeEach adds the build w states for every known release of its minor
// that has no build of that variant, platform and channel yet.
func makeEach(w Build, builds *[]Build, releases []Release) {
	have := map[BuildKey]bool{}
	for _, b := range *builds {
		have[b.Key()] = true
	}
	for _, r := range releases {
		k := BuildKey{Component: r.Component, Version: r.Version, Variant: w.Variant, Platform: w.Platform, Channel: w.Channel}
		if r.Component != w.Component || !w.Key().Matches(k) || have[k] || strings.ContainsAny(r.Version, "abcdefghijklmnopqrstuvwxyz") {
			continue
		}
		b := w
		b.Version, b.EachRelease = r.Version, false
		if b.IndexURL != "" {
			b.PipVersion = r.Version + "+" + w.Variant
		}
		*builds = append(*builds, b)
		have[k] = true
	}
}

func fill(parts []*Facts, builds []Build, conflicts *[]Conflict) {
	for _, p := range parts {
		if p == nil {
			continue
		}
		for _, w := range p.Builds {
			if !w.Key().IsWide() {
				continue
			}
			hit := false
			for i := range builds {
				b := &builds[i]
				if !w.Key().Matches(b.Key()) {
					continue
				}
				hit = true
				b.FillArch(w) // the list keeps its own citation
				// A wide Python range is a default for the builds that
				// have none (RELEASE.md's per-minor range): a build's own
				// range is not contradicted by it. Arch lists and CUDA are
				// statements about each build: a difference is a conflict.
				for _, f := range []struct {
					name     string
					dst, src *string
					dflt     bool
				}{{"arch_list", &b.ArchList, &w.ArchList, false}, {"cuda", &b.CUDA, &w.CUDA, false},
					{"python_min", &b.PythonMin, &w.PythonMin, true}, {"python_max", &b.PythonMax, &w.PythonMax, true}} {
					switch {
					case *f.src == "" || *f.src == *f.dst:
					case *f.dst == "":
						*f.dst = *f.src
					case f.dflt:
					default:
						*conflicts = append(*conflicts, Conflict{Subject: "build " + b.Key().String(), Field: f.name,
							Kept: *f.dst, KeptSource: cite(b.Provenance), Other: *f.src, OtherSource: cite(w.Provenance),
							Note: "a statement about several builds (" + w.Key().String() + ") disagrees with this build's own"})
					}
				}
			}
			if !hit {
				*conflicts = append(*conflicts, Conflict{Subject: "build " + w.Key().String(), Field: "refused",
					OtherSource: cite(w.Provenance), Note: "statement about several builds: no merged build matches it"})
			}
		}
	}
}
