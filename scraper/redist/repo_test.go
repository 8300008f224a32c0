package redist

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

func TestParseRepoVersion(t *testing.T) {
	for file, want := range map[string][2]string{
		"captures/cuda-repo_windows_x86_64_version_13.5.0.json": {"13.5.0", "13.5.37"},
		"captures/cuda-repo_windows_x86_64_version_13.4.3.json": {"13.4.3", "13.4.92"},
	} {
		r, err := ParseRepoVersion("windows/x86_64", want[0], read(t, file), "u")
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if r.Table != TableRepo || r.Fields["release_label"] != want[0] || r.Fields["cudart_version"] != want[1] || r.Fields["repo"] != "windows/x86_64" {
			t.Errorf("%s: %+v", file, r)
		}
	}
	good := string(read(t, "captures/cuda-repo_windows_x86_64_version_13.4.3.json"))
	for _, c := range []struct{ name, version, body, why string }{
		{"not JSON", "13.4.3", "<html>", "not a JSON object"},
		{"another release", "13.4.2", good, `says cuda "13.4.3"`},
		{"no toolkit", "13.4.3", strings.Replace(good, `"cuda" :`, `"cudax" :`, 1), "no cuda component"},
		{"no cudart", "13.4.3", strings.Replace(good, `"cuda_cudart"`, `"cuda_other"`, 1), "no cuda_cudart component"},
		{"bad version", "", strings.Replace(good, `"13.4.3"`, `"13.x"`, 1), "not a X.Y.Z version"},
	} {
		if _, err := ParseRepoVersion("windows/x86_64", c.version, []byte(c.body), ""); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.why)
		}
	}
}

// The 13.5.0 redist manifest was seen only up to its first component: read
// as a partial capture it gives the release and its date, and its missing
// nvidia_driver is unknown (no "bundles no driver" claim); read as a whole
// manifest (the live path) it is refused for lacking cuda_cudart.
func TestPartialCaptureAndRepoVersions(t *testing.T) {
	b := read(t, "captures/cuda_redistrib_13.5.0.json")
	if _, err := ParseManifest(ProductCUDA, "13.5.0", b, ""); err == nil || !strings.Contains(err.Error(), "no cuda_cudart") {
		t.Errorf("a whole manifest without cuda_cudart was read: %v", err)
	}
	dir := t.TempDir()
	os.MkdirAll(dir+"/nvidia/raw", 0o755)
	recs, err := scrapeSnapshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, r := range recs {
		refs = append(refs, r.Table+" "+r.Key+" "+r.Ref)
	}
	for _, want := range []string{"cuda 13.5.0 captures/cuda_redistrib_13.5.0.json (stored copy of https://developer.download.nvidia.com/compute/cuda/redist/redistrib_13.5.0.json",
		"cuda-repo 13.5.0 windows/x86_64 captures/cuda-repo_windows_x86_64_version_13.5.0.json",
		"cuda-repo 13.4.3 windows/x86_64 captures/cuda-repo_windows_x86_64_version_13.4.3.json"} {
		if !strings.Contains(strings.Join(refs, "\n"), want) {
			t.Errorf("snapshot records lack %q:\n%s", want, strings.Join(refs, "\n"))
		}
	}
	f := facts(t, recs)
	rel := map[string]db.Release{}
	for _, r := range f.Releases {
		if r.Component == "cuda" {
			rel[r.Version] = r
		}
	}
	if r := rel["13.5.0"]; r.ReleasedOn != "2026-11-04" || !strings.Contains(r.Provenance.URL, "redistrib_13.5.0.json") {
		t.Errorf("13.5.0 release = %+v", r)
	}
	if r, ok := rel["13.4.3"]; !ok || r.ReleasedOn != "" || !strings.Contains(r.Provenance.URL, "/repos/windows/x86_64/version_13.4.3.json") {
		t.Errorf("13.4.3 release = %+v (found %v)", r, ok)
	}
	attr := map[string]string{}
	for _, a := range f.Attributes {
		if a.Component == "cuda" {
			attr[a.Version+" "+a.Key] = a.Value
		}
	}
	if attr["13.5.0 cudart"] != "13.5.37" || attr["13.4.3 cudart"] != "13.4.92" || attr["13.4.2 cudart"] != "13.4.92" {
		t.Errorf("cudart: 13.5.0 %q, 13.4.3 %q, 13.4.2 %q", attr["13.5.0 cudart"], attr["13.4.3 cudart"], attr["13.4.2 cudart"])
	}
	if v, ok := attr["13.5.0 bundled_linux_driver"]; ok {
		t.Errorf("the partial capture claims a bundled driver: %q", v)
	}
	if attr["13.4.2 bundled_linux_driver"] != NoBundledDriver {
		t.Errorf("the whole 13.4.2 manifest's missing driver is no longer stated: %q", attr["13.4.2 bundled_linux_driver"])
	}
	// A repository file naming another cudart than the release's manifest
	// is a conflict, the manifest kept.
	other := scraper.Record{Table: TableRepo, Key: "13.4.2 windows/x86_64", Ref: "version_13.4.2.json (windows/x86_64)",
		Fields: map[string]string{"release_label": "13.4.2", "cudart_version": "13.4.91", "repo": "windows/x86_64"}}
	f = facts(t, append(recs, other))
	n := 0
	for _, c := range f.Conflicts {
		if c.Subject == "cuda 13.4.2" && c.Kept == "13.4.92" && c.Other == "13.4.91" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("want one cudart conflict for 13.4.2, got %+v", f.Conflicts)
	}
}

func FuzzParseRepoVersion(f *testing.F) {
	b, err := os.ReadFile("captures/cuda-repo_windows_x86_64_version_13.4.3.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"cuda":{"version":"1.2.3"},"cuda_cudart":{"version":""}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		r, err := ParseRepoVersion("windows/x86_64", "", b, "u")
		if err == nil && (r.Fields["release_label"] == "" || r.Fields["cudart_version"] == "") {
			t.Errorf("accepted a file without a toolkit or cudart version: %+v", r)
		}
	})
}
