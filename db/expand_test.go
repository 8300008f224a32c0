package db

import "testing"

// Wide keys: a requirement for every build of a minor and variant (one
// RELEASE.md row) lands on each matching build; a wide build fills empty
// fields and turns a different value into a conflict; no match is refused.
func TestMergeWideKeys(t *testing.T) {
	p := Provenance{Source: "builds"}
	w := Provenance{Source: "release-md"}
	builds := &Facts{Builds: []Build{
		{Component: "torch", Version: "2.10.0", Variant: "cu130", Platform: "linux", Provenance: p},
		{Component: "torch", Version: "2.10.1", Variant: "cu130", Platform: "linux", ArchList: "sm_90", Provenance: p},
		{Component: "torch", Version: "2.10.0", Variant: "cu126", Platform: "linux", Provenance: p},
		{Component: "torch", Version: "2.1.0", Variant: "cu130", Platform: "linux", Provenance: p},
	}}
	minor := BuildKey{Component: "torch", Version: "2.10.*", Variant: "cu130", Platform: AnyBuild}
	wide := &Facts{
		Builds: []Build{
			{Component: "torch", Version: "2.10.*", Variant: "cu130", Platform: "linux", ArchList: "sm_75 sm_100", Provenance: w},
			{Component: "torch", Version: "2.99.*", Variant: "cu130", Platform: "linux", ArchList: "sm_75", Provenance: w},
		},
		Requirements: []Requirement{{Build: minor, Needs: "cudnn", Spec: "==9.15.1.9", Kind: KindPin, Provenance: w}},
	}
	m := Merge(wide, builds)
	if len(m.Builds) != 4 {
		t.Fatalf("builds %d: a wide build must not become a build", len(m.Builds))
	}
	arch := map[string]string{}
	for _, b := range m.Builds {
		arch[b.Version+" "+b.Variant] = b.ArchList
	}
	if arch["2.10.0 cu130"] != "sm_75 sm_100" || arch["2.10.1 cu130"] != "sm_90" || arch["2.10.0 cu126"] != "" || arch["2.1.0 cu130"] != "" {
		t.Errorf("arch lists %v", arch)
	}
	var got []string
	for _, r := range m.Requirements {
		got = append(got, r.Build.Version+" "+r.Build.Variant)
	}
	if len(got) != 2 || got[0] != "2.10.0 cu130" || got[1] != "2.10.1 cu130" {
		t.Errorf("wide requirement landed on %v", got)
	}
	var disagree, refused bool
	for _, c := range m.Conflicts {
		disagree = disagree || (c.Field == "arch_list" && c.Kept == "sm_90")
		refused = refused || (c.Field == "refused" && c.Subject == "build torch==2.99.* cu130 linux")
	}
	if !disagree || !refused {
		t.Errorf("conflicts %+v", m.Conflicts)
	}
}
