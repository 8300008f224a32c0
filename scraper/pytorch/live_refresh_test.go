package pytorch

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/livetest"
)

// liveCase drives one source's live refresh end to end on loopback.
type liveCase struct {
	src   scraper.Source
	pages map[string]string // live URL → happy fixture
	// check asserts facts the happy pages must yield, and what became of
	// the garbage rows the happy pages carry.
	check func(t *testing.T, up *livetest.Upstream, f *db.Facts)
	// moved and empty replace pages: the table is gone, or has no rows.
	moved, empty map[string]string
	// garbage, when set, replaces pages with a garbage row the source
	// fails on (the happy pages' garbage rows are refused instead).
	garbage map[string]string
}

const (
	emptyPrev    = "## Commands for Versions >= 1.0.0\n\n### v2.1.0\n\n#### Wheel\n\n##### Linux and Windows\n\n```\n# CUDA 12.1\n```\n"
	emptyRelease = "## Release Compatibility Matrix\n\n| PyTorch version | Python | C++ | Stable CUDA | Experimental CUDA | Stable ROCm |\n| --- | --- | --- | --- | --- | --- |\n"
	emptyMoi90   = "| package | architectures |\n|---|---|\n"
	emptyVision  = "# torchvision\n\n| `torch` | `torchvision` | Python |\n| --- | --- | --- |\n"
	emptyAudio   = "Compatibility Matrix\n--------------------\n\n.. list-table::\n   :header-rows: 1\n\n   * - ``PyTorch``\n     - ``TorchAudio``\n     - ``Python``\n"
)

func readFixture(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pypiPages() map[string]string {
	m := map[string]string{pypiTorchURL: "testdata/live/pypi_torch.json"}
	for _, v := range []string{"1.13.1", "2.1.0", "2.5.1", "2.11.0"} {
		m["https://pypi.org/pypi/torch/"+v+"/json"] = "testdata/live/pypi_torch_" + v + ".json"
	}
	return m
}

func moi90Pages(file string) map[string]string {
	m := map[string]string{}
	for _, d := range moi90Docs {
		m[d.live] = file
	}
	return m
}

func liveCases(t *testing.T) []liveCase {
	return []liveCase{
		{
			src: Lockfiles{}, pages: pypiPages(),
			check: func(t *testing.T, up *livetest.Upstream, f *db.Facts) {
				for v, variant := range map[string]string{"1.13.1": "cu117", "2.1.0": "cu121", "2.5.1": "cu124", "2.11.0": "cu130"} {
					if b := findBuild(f, v, variant, "linux", ""); b == nil || !b.IsDefault {
						t.Errorf("torch %s: PyPI default build %s = %+v", v, variant, b)
					}
				}
				if got := findReq(f, "2.1.0", "cu121", "linux", "", "nvidia-cudnn-cu12", db.KindPin); got != "==8.9.2.26" {
					t.Errorf("2.1.0 cuDNN wheel pin (parenthesised style) = %q", got)
				}
				if got := findReq(f, "2.5.1", "cu124", "linux", "", "cudnn", db.KindPin); got != "9.1.0.70" {
					t.Errorf("2.5.1 cuDNN pin (bare style) = %q", got)
				}
				if got := findReq(f, "2.11.0", "cu130", "linux", "", "cuda", db.KindPin); got != "13.0.2" {
					t.Errorf("2.11.0 cuda-toolkit pin = %q", got)
				}
				for _, r := range f.Requirements {
					if strings.Contains(r.Needs, "einsum") || strings.Contains(r.Needs, "dynamo") || r.Needs == "filelock" {
						t.Errorf("extra or range dependency became a pin: %+v", r)
					}
					if r.Needs == "nvidia-cudnn-cu12" && r.Build.Version == "2.1.0" &&
						(r.Marker != `platform_system == "Linux" and platform_machine == "x86_64"` || !strings.Contains(r.Ref, "/2.1.0/json info.requires_dist[4]")) {
						t.Errorf("marker/ref = %q / %q", r.Marker, r.Ref)
					}
				}
				// only releases the list names, from 1.13 on, with a live file
				for _, v := range []string{"1.12.1", "2.2.0rc1", "2.3.2", "2.4.9", "2.x.garbage"} {
					if n := up.Hits("https://pypi.org/pypi/torch/" + v + "/json"); n != 0 {
						t.Errorf("torch %s's document fetched %d times", v, n)
					}
				}
				if refused(f) != 0 {
					t.Errorf("refused %+v", f.Conflicts)
				}
			},
			moved:   map[string]string{"https://pypi.org/pypi/torch/2.1.0/json": `{"info": {"version": "2.1.0", "requires": []}}`},
			empty:   map[string]string{pypiTorchURL: `{"info": {}, "releases": {}}`},
			garbage: map[string]string{"https://pypi.org/pypi/torch/2.5.1/json": `{"info": {"version": "2.5.1", "requires_dist": ["nvidia-cudnn-cu12 (==9.1.0.70 ; platform_system == \"Linux\""]}}`},
		},
		{
			src: PreviousVersions{}, pages: map[string]string{prevDoc.live: "testdata/previous-versions.md"},
			check: func(t *testing.T, _ *livetest.Upstream, f *db.Facts) {
				if b := findBuild(f, "2.1.0", "cu121", "linux", ""); b == nil || !b.IsDefault {
					t.Errorf("2.1.0 cu121 = %+v", b)
				}
				if refused(f) != 1 {
					t.Errorf("the vgarbage section: want 1 refused row, conflicts %+v", f.Conflicts)
				}
			},
			moved: map[string]string{prevDoc.live: "# nothing here\n"},
			empty: map[string]string{prevDoc.live: emptyPrev},
		},
		{
			src: BuildMatrix{}, pages: map[string]string{publishedVersionsURL: "testdata/live/published_versions.json"},
			check: func(t *testing.T, up *livetest.Upstream, f *db.Facts) {
				for _, c := range []struct{ v, variant, plat, channel string }{
					{"2.1.0", "cu121", "linux", ""}, {"2.1.0", "cu118", "linux", ""}, {"2.1.0", "rocm5.6", "linux", ""},
					{"2.1.0", "cpu", "windows", ""}, {"2.1.0", "cu121", "windows", ""}, {"2.1.0", "cu121", "linux", "conda"},
					{"1.11.0", "cu102", "linux", ""}, {"1.11.0", "cu113", "linux", ""}, {"1.11.0", "rocm4.5.2", "linux", ""},
					{"1.11.0", "cu102", "linux", "conda"}, {"1.11.0", "cpu", "linux", "conda"}, {"1.11.0", "cpu", "macos", ""},
				} {
					if findBuild(f, c.v, c.variant, c.plat, c.channel) == nil {
						t.Errorf("no build %+v", c)
					}
				}
				if b := findBuild(f, "2.1.0", "cu118", "linux", ""); b == nil || b.IndexURL != "https://download.pytorch.org/whl/cu118" ||
					b.URL != publishedVersionsURL || !strings.Contains(b.Ref, `$.versions["2.1.0"]["linux"]["pip"]["cuda.x"]`) {
					t.Errorf("cu118 build provenance = %+v", b)
				}
				// Normalize never marks a Windows build default (PyPI's is CPU)
				if b := findBuild(f, "2.1.0", "cpu", "windows", ""); b == nil || b.IsDefault {
					t.Errorf("windows PyPI wheel = %+v, want the cpu build", b)
				}
				for _, b := range f.Builds {
					if b.Platform == "macos" && b.Variant != "cpu" {
						t.Errorf("macOS CUDA key mapped to %+v", b)
					}
				}
				if refused(f) != 0 {
					t.Errorf("refused %+v", f.Conflicts)
				}
			},
			moved: map[string]string{publishedVersionsURL: `{"latest_stable": "2.1.0", "releases": {}}`},
			empty: map[string]string{publishedVersionsURL: `{"latest_stable": "2.1.0", "versions": {"preview": {"linux": {"pip": {"accnone": {"note": null, "command": "pip3 install --pre torch --index-url https://download.pytorch.org/whl/nightly/cpu"}}}}}}`},
		},
		{
			src: ReleaseMD{}, pages: map[string]string{releaseDoc.live: "testdata/live/release.md"},
			check: func(t *testing.T, _ *livetest.Upstream, f *db.Facts) {
				found := false
				for _, a := range f.Attributes {
					found = found || (a.Version == "2.1" && a.Key == "cudnn.cu121" && a.Value == "8.9.2.26")
				}
				if !found {
					t.Errorf("2.1 cudnn.cu121 missing: %+v", f.Attributes)
				}
				if refused(f) != 0 {
					t.Errorf("refused %+v", f.Conflicts)
				}
			},
			moved: map[string]string{releaseDoc.live: "# nothing here\n"},
			empty: map[string]string{releaseDoc.live: emptyRelease},
			// a version cell of prose ("two") fails the version-field check
			garbage: map[string]string{releaseDoc.live: readFixture(t, "testdata/release.md")},
		},
		{
			src: Moi90{}, pages: moi90Pages("testdata/moi90.md"),
			check: func(t *testing.T, _ *livetest.Upstream, f *db.Facts) {
				if b := findBuild(f, "2.1.0", "cu121", "linux", "conda"); b == nil || !strings.HasPrefix(b.ArchList, "sm_50 sm_60") {
					t.Errorf("conda build = %+v", b)
				}
				if refused(f) != 1 {
					t.Errorf("pytorch-x-garbage: want 1 refused, conflicts %+v", f.Conflicts)
				}
			},
			moved: map[string]string{moi90Docs[0].live: "# nothing here\n"},
			empty: map[string]string{moi90Docs[1].live: emptyMoi90},
		},
		{
			src: Domains{}, pages: map[string]string{visionDoc.live: "testdata/vision_README.md", audioDoc.live: "testdata/audio_installation.rst"},
			check: func(t *testing.T, _ *livetest.Upstream, f *db.Facts) {
				found := false
				for _, r := range f.Requirements {
					found = found || (r.Build == releaseKey("2.0.0") && r.Needs == "torchaudio" && r.Spec == "2.0.1")
				}
				if !found {
					t.Errorf("torch 2.0.0 ↔ torchaudio 2.0.1 missing")
				}
				if refused(f) != 2 {
					t.Errorf("main/nightly rows: want 2 refused, conflicts %+v", f.Conflicts)
				}
			},
			moved: map[string]string{audioDoc.live: "# nothing here\n"},
			empty: map[string]string{visionDoc.live: emptyVision},
		},
	}
}

// serve starts an upstream with c's happy pages, then the overrides.
func serve(t *testing.T, c liveCase, overrides map[string]string) *livetest.Upstream {
	up := livetest.New(t, c.pages)
	for u, body := range overrides {
		up.Set(t, u, []byte(body))
	}
	return up
}

func readSnapshot(t *testing.T, c liveCase, dir string) *db.Facts {
	t.Helper()
	s, err := scraper.ReadSnapshot(dir, c.src.Name())
	if err != nil {
		t.Fatalf("%s: %v", c.src.Name(), err)
	}
	f, err := c.src.Normalize(s.Records)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLiveRefreshHappy(t *testing.T) {
	for _, c := range liveCases(t) {
		t.Run(c.src.Name(), func(t *testing.T) {
			up := serve(t, c, nil)
			dir := t.TempDir()
			rep, err := up.Refresh(c.src, dir)
			if err != nil {
				t.Fatalf("refresh: %v (%+v)", err, rep)
			}
			c.check(t, up, readSnapshot(t, c, dir))
		})
	}
}

func TestLiveRefreshRetries500(t *testing.T) {
	for _, c := range liveCases(t) {
		t.Run(c.src.Name(), func(t *testing.T) {
			up := serve(t, c, nil)
			up.FailFirst = 1
			dir := t.TempDir()
			if _, err := up.Refresh(c.src, dir); err != nil {
				t.Fatalf("refresh after one 500 per page: %v", err)
			}
			for u := range c.pages {
				if n := up.Hits(u); n != 2 {
					t.Errorf("%s: %d requests, want 2 (a 500, then the page)", u, n)
				}
			}
			readSnapshot(t, c, dir)
		})
	}
}

// refreshKeeps refreshes dir from the happy pages, then from the sad
// ones: the second refresh must fail naming the source and leave the
// snapshot file byte-identical.
func refreshKeeps(t *testing.T, c liveCase, sad map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := serve(t, c, nil).Refresh(c.src, dir); err != nil {
		t.Fatal(err)
	}
	path := scraper.SnapshotPath(dir, c.src.Name())
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := serve(t, c, sad).Refresh(c.src, dir)
	if err == nil || !strings.Contains(err.Error(), c.src.Name()) {
		t.Fatalf("sad refresh: err = %v, want a failure naming %s", err, c.src.Name())
	}
	if len(rep.Failed) != 1 || len(rep.Sources) != 1 || rep.Sources[0].Error == "" {
		t.Errorf("report %+v", rep)
	} else {
		t.Logf("%s failed as expected: %s", c.src.Name(), rep.Sources[0].Error)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("previous snapshot replaced or lost (err %v)", err)
	}
}

func TestLiveRefreshTableMoved(t *testing.T) {
	for _, c := range liveCases(t) {
		t.Run(c.src.Name(), func(t *testing.T) { refreshKeeps(t, c, c.moved) })
	}
}

func TestLiveRefreshEmptyTable(t *testing.T) {
	for _, c := range liveCases(t) {
		t.Run(c.src.Name(), func(t *testing.T) { refreshKeeps(t, c, c.empty) })
	}
}

// TestLiveRefreshGarbageRow: the happy pages' garbage rows are refused
// (counted by check); here the sources whose garbage fails the scrape.
func TestLiveRefreshGarbageRow(t *testing.T) {
	for _, c := range liveCases(t) {
		if c.garbage == nil {
			continue
		}
		t.Run(c.src.Name(), func(t *testing.T) { refreshKeeps(t, c, c.garbage) })
	}
	t.Run("pytorch-build-matrix fails on a garbage version", func(t *testing.T) {
		c := liveCases(t)[2]
		body := strings.Replace(readFixture(t, "testdata/live/published_versions.json"), `"2.1.0": {`,
			`"2.one": {"linux": {"pip": {"accnone": {"note": null, "command": "pip3 install torch --index-url https://download.pytorch.org/whl/cpu"}}}},
    "2.1.0": {`, 1)
		up := serve(t, c, map[string]string{publishedVersionsURL: body})
		dir := t.TempDir()
		_, err := up.Refresh(c.src, dir)
		if err == nil {
			t.Fatal("a torch version \"2.one\" was accepted")
		}
		if _, serr := os.Stat(scraper.SnapshotPath(dir, c.src.Name())); !os.IsNotExist(serr) {
			t.Errorf("the failed source wrote its snapshot (%v)", serr)
		}
	})
}

func FuzzPyPIJSON(f *testing.F) {
	for _, p := range []string{"pypi_torch.json", "pypi_torch_1.13.1.json", "pypi_torch_2.1.0.json", "pypi_torch_2.5.1.json", "pypi_torch_2.11.0.json"} {
		b, _ := os.ReadFile("testdata/live/" + p)
		f.Add(b)
	}
	f.Add([]byte(`{"info": {"version": "2.1.0", "requires_dist": ["a[b] (==1) ; extra == 'x'", "c (>=1,<2)", "d==", "e @ https://x"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		vs, err := parsePyPIReleases(b, pypiFirstPinned)
		if err == nil && len(vs) == 0 {
			t.Fatal("no error and no releases")
		}
		recs, err := parsePyPIPins(b, "2.1.0", "u")
		if err != nil {
			return
		}
		if err := scraper.CheckUnique(recs); err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Fields["pinned_version"] == "" || r.Fields["package"] == "" {
				t.Fatalf("empty pin %+v", r)
			}
		}
		Lockfiles{}.Normalize(recs) // must not panic
	})
}

func FuzzRequiresDist(f *testing.F) {
	for _, s := range []string{
		`nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == "Linux" and platform_machine == "x86_64"`,
		`nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux"`,
		`cuda-toolkit[cublas,cudart]==13.0.2; sys_platform == "linux"`,
		`opt-einsum>=3.3; extra == "opt-einsum"`, `filelock`, `x (==1`, `[a]==1`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRequiresDist(s)
		if err != nil {
			return
		}
		if r.Name == "" {
			t.Fatalf("%q: empty name", s)
		}
		if v, ok := r.exactPin(); ok && v == "" {
			t.Fatalf("%q: empty pin", s)
		}
	})
}

func FuzzPublishedVersions(f *testing.F) {
	f.Add([]byte(`{"versions": {"2.1.0": {"linux": {"pip": {"cuda.y": {"note": null, "command": "pip3 install torch", "default": true}, "cuda.x": {"command": "pip3 install torch --index-url https://download.pytorch.org/whl/cu118"}}, "conda": {"cuda.y": {"command": "conda install pytorch pytorch-cuda=12.1 -c pytorch"}}}, "windows": {"pip": {"cuda.y": {"command": "pip3 install torch --index-url https://download.pytorch.org/whl/cu121"}}}}}}`))
	f.Add([]byte(`{"versions": {"preview": {}, "1.0.0": {"linux": {"pip": {"cuda.x": {"command": "pip3 install torch"}}}}}}`))
	f.Add([]byte(`{"versions": {"1.0.0": {"linux": {"pip": {"a": null}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		recs, err := parsePublishedVersions(b, "u")
		if err != nil {
			return
		}
		if len(recs) == 0 {
			t.Fatal("no error and no rows")
		}
		if err := scraper.CheckUnique(recs); err != nil {
			t.Fatal(err)
		}
		BuildMatrix{}.Normalize(recs) // must not panic
	})
}
