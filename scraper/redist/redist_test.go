package redist

import (
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseManifestCUDA(t *testing.T) {
	r, err := ParseManifest(ProductCUDA, "13.1.1", read(t, "captures/cuda_redistrib_13.1.1.json"), ManifestURL(ProductCUDA, "13.1.1"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"release_label": "13.1.1", "release_date": "2026-01-12", "cudart_version": "13.1.80",
		"driver_version": "590.48.01", "compat_version": "590.48.01", "compat_cuda": "13.1"}
	for k, v := range want {
		if r.Fields[k] != v {
			t.Errorf("%s = %q, want %q", k, r.Fields[k], v)
		}
	}
	// 13.4: the Linux driver is no longer bundled, and no compat package.
	r, err = ParseManifest(ProductCUDA, "13.4.2", read(t, "captures/cuda_redistrib_13.4.2.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Fields["cudart_version"] != "13.4.92" || r.Fields["release_date"] != "2026-09-16" {
		t.Errorf("13.4.2 = %v", r.Fields)
	}
	if _, ok := r.Fields["driver_version"]; ok {
		t.Errorf("13.4.2 has no nvidia_driver component, got %q", r.Fields["driver_version"])
	}
}

func TestParseManifestCUDNN(t *testing.T) {
	r, err := ParseManifest(ProductCUDNN, "9.27.0", read(t, "testdata/cudnn_redistrib_9.27.0.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Fields["cudnn_version"] != "9.27.0.42" || r.Fields["cuda_majors"] != "12;13" || r.Fields["release_date"] != "2026-09-29" {
		t.Errorf("9.27.0 = %v", r.Fields)
	}
	// An older manifest without cuda_variant names its majors by the
	// platform objects (cuda11, cuda12).
	b := strings.Replace(string(read(t, "testdata/cudnn_redistrib_9.27.0.json")), `"cuda_variant"`, `"not_a_variant"`, 1)
	r, err = ParseManifest(ProductCUDNN, "9.27.0", []byte(b), "")
	if err != nil || r.Fields["cuda_majors"] != "12;13" {
		t.Errorf("majors from platform objects: %v, %v", r.Fields, err)
	}
}

func TestParseManifestRefuses(t *testing.T) {
	cuda := string(read(t, "captures/cuda_redistrib_13.1.1.json"))
	for _, c := range []struct {
		name, product, version, body, why string
	}{
		{"not JSON", ProductCUDA, "13.1.1", "<html>moved</html>", "not a JSON object"},
		{"another release", ProductCUDA, "13.1.2", cuda, `says release_label "13.1.1"`},
		{"another product", ProductCUDNN, "13.1.1", cuda, `release_product is "cuda"`},
		{"no cudart", ProductCUDA, "13.1.1", strings.Replace(cuda, `"cuda_cudart"`, `"cuda_other"`, 1), "no cuda_cudart"},
		{"bad label", ProductCUDA, "", strings.Replace(cuda, `"13.1.1"`, `"13.x"`, 1), "not a X.Y.Z version"},
		{"bad date", ProductCUDA, "13.1.1", strings.Replace(cuda, `"2026-01-12"`, `"January 2026"`, 1), "not a YYYY-MM-DD date"},
		{"cuDNN without variants", ProductCUDNN, "9.27.0", `{"release_label":"9.27.0","cudnn":{"version":"9.27.0.42"}}`, "names no CUDA variant"},
	} {
		if _, err := ParseManifest(c.product, c.version, []byte(c.body), ""); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.why)
		}
	}
}

func TestParseListing(t *testing.T) {
	v, err := ParseListing(read(t, "testdata/cuda-listing.html"))
	if err != nil || strings.Join(v, " ") != "13.1.1 13.4.2" {
		t.Errorf("listing = %v, %v", v, err)
	}
	v, err = ParseListing([]byte(`<a href='cuda_nvcc/'>x</a> <a href='redistrib_13.4.2.json'>x</a> <a href="redistrib_13.1.1.json">x</a>` +
		`<a href='redistrib_13.5.0.json.asc'>sig</a> <a href='redistrib_v2_13.5.0.json'>v2</a> <a href="./redistrib_13.4.2.json">dup</a>`))
	if err != nil || strings.Join(v, " ") != "13.1.1 13.4.2" {
		t.Errorf("quotes, signatures and other schemas: %v, %v", v, err)
	}
	if _, err := ParseListing([]byte("<html><body>nothing</body></html>")); err == nil {
		t.Error("a listing with no manifest link was read")
	}
}

func facts(t *testing.T, recs []scraper.Record) *db.Facts {
	t.Helper()
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNormalize(t *testing.T) {
	var recs []scraper.Record
	for _, c := range []struct{ product, version, file string }{
		{ProductCUDA, "13.1.1", "captures/cuda_redistrib_13.1.1.json"},
		{ProductCUDA, "13.4.2", "captures/cuda_redistrib_13.4.2.json"},
		{ProductCUDNN, "9.27.0", "testdata/cudnn_redistrib_9.27.0.json"},
		{ProductDriver, "620.70.06", "captures/nvidia-driver_redistrib_620.70.06.json"},
		{ProductDriver, "610.57.04", "captures/nvidia-driver_redistrib_610.57.04.json"},
	} {
		r, err := ParseManifest(c.product, c.version, read(t, c.file), "")
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	f := facts(t, recs)
	for _, c := range (Source{}).Canaries() {
		if !c.HeldBy(f) {
			t.Errorf("canary %q does not hold", c.Fact)
		}
	}
	if len(f.CUDADrivers) != 1 || f.CUDADrivers[0].CUDA != "13.1.1" || f.CUDADrivers[0].ReleasedOn != "2026-01-12" {
		t.Errorf("driver rows %+v: want only 13.1.1 (13.4.2 bundles none)", f.CUDADrivers)
	}
	attrs := map[string]string{}
	for _, a := range f.Attributes {
		attrs[a.Component+" "+a.Version+" "+a.Key] = a.Value
	}
	for k, v := range map[string]string{
		"cuda 13.4.2 bundled_linux_driver": NoBundledDriver,
		"cuda 13.4.2 cudart":               "13.4.92",
		"cuda 13.1.1 cuda_compat":          "590.48.01 (for CUDA 13.1)",
		"cudnn 9.27.0 cuda_majors":         "12.x;13.x",
		"cudnn 9.27.0 build_version":       "9.27.0.42",
		"driver 620.70.06 released":        "2026-11-04",
		"driver 620.70.06 cuda_compat":     "620.70.06 (for CUDA 13.5)",
		"cuda 13.5 compat_driver":          "620.70.06 (R620)",
	} {
		if attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs[k], v)
		}
	}
	branches := map[string]string{}
	for _, b := range f.DriverBranches {
		branches[b.Branch] = b.MaxCUDA
	}
	if len(branches) != 2 || branches["620"] != "13.5" || branches["610"] != "13.3" {
		t.Errorf("driver branches %v, want R620 13.5 and R610 13.3 (their compat packages)", branches)
	}
	if _, err := (Source{}).Normalize([]scraper.Record{{Table: "driver", Key: "620.70.06"}}); err == nil {
		t.Error("an unknown record table was accepted")
	}
}

// The snapshot scrape reads the shared raw manifests and the captures;
// without either it fails.
func TestScrapeSnapshots(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/nvidia/raw", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/nvidia/raw/developer.download.nvidia.com_compute_cudnn_redist_redistrib_9.27.0.json", read(t, "testdata/cudnn_redistrib_9.27.0.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := scrapeSnapshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{}
	for _, r := range recs {
		keys = append(keys, r.Table+" "+r.Key+" "+r.Ref)
	}
	got := strings.Join(keys, "\n")
	for _, want := range []string{"cudnn 9.27.0 nvidia/raw/developer.download.nvidia.com_compute_cudnn_redist_redistrib_9.27.0.json",
		"cuda 13.1.1 captures/cuda_redistrib_13.1.1.json (NixOS/nixpkgs", "cuda 13.4.2 captures/"} {
		if !strings.Contains(got, want) {
			t.Errorf("snapshot records lack %q:\n%s", want, got)
		}
	}
	bad := t.TempDir()
	os.MkdirAll(bad+"/nvidia/raw", 0o755)
	os.WriteFile(bad+"/nvidia/raw/developer.download.nvidia.com_compute_cuda_redist_redistrib_13.1.1.json", []byte("{"), 0o644)
	if _, err := scrapeSnapshots(bad); err == nil {
		t.Error("a broken raw manifest was skipped")
	}
}

var livePages = map[string]string{
	ListingURL(ProductCUDA):                 "testdata/cuda-listing.html",
	ListingURL(ProductCUDNN):                "testdata/cudnn-listing.html",
	ManifestURL(ProductCUDA, "13.1.1"):      "captures/cuda_redistrib_13.1.1.json",
	ManifestURL(ProductCUDA, "13.4.2"):      "captures/cuda_redistrib_13.4.2.json",
	ManifestURL(ProductCUDNN, "9.27.0"):     "testdata/cudnn_redistrib_9.27.0.json",
	ListingURL(ProductDriver):               "testdata/nvidia-driver-listing.html",
	ManifestURL(ProductDriver, "610.57.04"): "captures/nvidia-driver_redistrib_610.57.04.json",
	ManifestURL(ProductDriver, "620.70.06"): "captures/nvidia-driver_redistrib_620.70.06.json",
}

// The live refresh end to end: listings and manifests served on loopback,
// read through the fetch client, checked and written by scraper.Refresh.
func TestLiveRefreshHappy(t *testing.T) {
	up := livetest.New(t, livePages)
	up.FailFirst = 1
	snap := up.MustPass(t, Source{}, t.TempDir())
	got := map[string]map[string]string{}
	for _, r := range snap.Records {
		got[r.Table+" "+r.Key] = r.Fields
		if r.URL != ManifestURL(r.Table, r.Key) {
			t.Errorf("%s %s cites %q", r.Table, r.Key, r.URL)
		}
	}
	if len(got) != 5 || got["cuda 13.1.1"]["driver_version"] != "590.48.01" || got["cudnn 9.27.0"]["cuda_majors"] != "12;13" ||
		got["nvidia-driver 620.70.06"]["compat_cuda"] != "13.5" {
		t.Errorf("records = %v", got)
	}
	if n := up.Hits(ManifestURL(ProductCUDA, "13.4.2")); n != 2 {
		t.Errorf("13.4.2 fetched %d times, want 2 (a 500, then the manifest)", n)
	}
}

func TestLiveRefreshSadKeepsPrevious(t *testing.T) {
	for _, c := range []struct {
		name, url, body, why string
	}{
		{"listing without manifests", ListingURL(ProductCUDNN), "<html><pre><a href=\"cudnn/\">cudnn/</a></pre></html>", "links no redistrib"},
		{"manifest of another release", ManifestURL(ProductCUDA, "13.4.2"), string(read(t, "captures/cuda_redistrib_13.1.1.json")), `says release_label "13.1.1"`},
		{"manifest cut short", ManifestURL(ProductCUDNN, "9.27.0"), `{"release_label": "9.27.0", "cudnn": {`, "not a JSON object"},
		{"driver version garbage", ManifestURL(ProductCUDA, "13.1.1"), strings.Replace(string(read(t, "captures/cuda_redistrib_13.1.1.json")), `"version": "590.48.01",
        "linux-x86_64": {
            "relative_path": "nvidia_driver`, `"version": "latest",
        "linux-x86_64": {
            "relative_path": "nvidia_driver`, 1), "driver_version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := livetest.Prime(t, Source{}, livePages)
			up := livetest.New(t, livePages)
			up.Set(t, c.url, []byte(c.body))
			if err := up.MustFail(t, Source{}, dir); !strings.Contains(err, c.why) {
				t.Errorf("error %q does not say %q", err, c.why)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	for _, n := range []string{"captures/cuda_redistrib_13.1.1.json", "captures/cuda_redistrib_13.4.2.json", "testdata/cudnn_redistrib_9.27.0.json"} {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range Products {
			r, err := ParseManifest(p, "", b, "")
			if err == nil && (r.Key == "" || r.Table != p) {
				t.Fatalf("accepted a record without a release: %+v", r)
			}
		}
		ParseListing(b)
	})
}

func TestParseDriverManifest(t *testing.T) {
	r, err := ParseManifest(ProductDriver, "620.70.06", read(t, "captures/nvidia-driver_redistrib_620.70.06.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Fields["release_date"] != "2026-11-04" || r.Fields["compat_version"] != "620.70.06" || r.Fields["compat_cuda"] != "13.5" {
		t.Errorf("620.70.06 = %v", r.Fields)
	}
	for _, c := range []struct{ name, body, why string }{
		{"a CUDA manifest", strings.Replace(string(read(t, "captures/cuda_redistrib_13.1.1.json")), `"13.1.1"`, `"620.70.06"`, 1), `release_product is "cuda"`},
		{"no components", `{"release_label": "620.70.06", "release_product": "nvidia-driver"}`, "not a driver manifest"},
		{"compat without variant", `{"release_label": "620.70.06", "cuda_compat": {"version": "620.70.06"}}`, "no version or CUDA variant"},
	} {
		if _, err := ParseManifest(ProductDriver, "620.70.06", []byte(c.body), ""); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.why)
		}
	}
}

// A driver listing holds every driver since R418: the live scrape reads
// the oldest and the newest release of each branch.
func TestPerBranch(t *testing.T) {
	got := perBranch([]string{"418.226.00", "450.51.06", "450.80.02", "450.248.02", "610.43.02", "610.57.04", "620.70.06"})
	if strings.Join(got, " ") != "418.226.00 450.51.06 450.248.02 610.43.02 610.57.04 620.70.06" {
		t.Errorf("perBranch = %v", got)
	}
}
