package db

// AnyBuild in a requirement's BuildKey Variant and Platform makes it a
// release-wide statement: it applies to every build of that component,
// version and channel that the merged sources define (a torchvision
// pairing is a property of the torch release, not of one wheel).
const AnyBuild = "*"

// IsRelease says whether k names every build of a release (see AnyBuild).
func (k BuildKey) IsRelease() bool { return k.Variant == AnyBuild && k.Platform == AnyBuild }

// expandRelease replaces the release-wide requirements of each part by one
// requirement per matching merged build, in place of the part's own
// position so precedence is unchanged. A release-wide requirement that no
// build matches becomes a conflict: it would otherwise vanish unseen.
func expandRelease(parts []*Facts, builds []Build, conflicts *[]Conflict) []*Facts {
	type rel struct{ component, version, channel string }
	byRel := map[rel][]BuildKey{}
	for _, b := range builds {
		k := rel{b.Component, b.Version, b.Channel}
		byRel[k] = append(byRel[k], b.Key())
	}
	out := make([]*Facts, len(parts))
	for i, p := range parts {
		if p == nil {
			continue
		}
		wide := false
		for _, r := range p.Requirements {
			if r.Build.IsRelease() {
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
			if !r.Build.IsRelease() {
				cp.Requirements = append(cp.Requirements, r)
				continue
			}
			keys := byRel[rel{r.Build.Component, r.Build.Version, r.Build.Channel}]
			if len(keys) == 0 {
				*conflicts = append(*conflicts, Conflict{
					Subject: "requirement " + r.Build.String() + " needs " + r.Needs + " (" + r.Kind + ")",
					Field:   "refused", Other: r.Spec, OtherSource: cite(r.Provenance),
					Note: "release-wide requirement: no build of this release and channel is known",
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
