package db

import "testing"

// An arch list filled into a build made by another row keeps its own
// citation (ArchCite): across sources (Merge), from a wide statement
// (fillWide), and not when the build states its own list.
func TestArchListKeepsItsCitation(t *testing.T) {
	index := Provenance{Source: "wheel-index", Ref: "index row"}
	script := Provenance{Source: "build-script", URL: "https://github.com/pytorch/builder/blob/abc/windows/cuda121.bat", Ref: "cuda121.bat:3"}
	wide := Provenance{Source: "release-md", Ref: "matrix"}
	first := &Facts{Builds: []Build{
		{Component: "torch", Version: "2.1.0", Variant: "cu121", Platform: "windows", Provenance: index},
		{Component: "torch", Version: "2.1.0", Variant: "cu118", Platform: "linux", Provenance: index},
		{Component: "torch", Version: "2.1.0", Variant: "cu118", Platform: "windows", ArchList: "sm_37", Provenance: index},
	}}
	second := &Facts{Builds: []Build{
		{Component: "torch", Version: "2.1.0", Variant: "cu121", Platform: "windows", ArchList: "sm_50 sm_61", Provenance: script},
		{Component: "torch", Version: "2.1.*", Variant: "cu118", Platform: "linux", ArchList: "sm_50", Provenance: wide},
	}}
	m := Merge(first, second)
	got := map[string]Build{}
	for _, b := range m.Builds {
		got[b.Variant+" "+b.Platform] = b
	}
	if b := got["cu121 windows"]; b.ArchList != "sm_50 sm_61" || b.ArchCite() != script || b.Provenance != index {
		t.Errorf("merged across sources: %+v (cite %+v)", b, b.ArchCite())
	}
	if b := got["cu118 linux"]; b.ArchList != "sm_50" || b.ArchCite() != wide {
		t.Errorf("filled from a wide statement: %+v (cite %+v)", b, b.ArchCite())
	}
	if b := got["cu118 windows"]; b.ArchCite() != index || b.ArchFrom != (Provenance{}) {
		t.Errorf("a build's own list cites the build: %+v", b)
	}
}
