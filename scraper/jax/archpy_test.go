package jax

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// The captured .bazelrc lines give every release tag from 0.4.7 its
// compute capabilities, per CUDA config once the 12/13 split came.
func TestCapsCapture(t *testing.T) {
	recs, err := parseCaps(capsCapture)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, r := range recs {
		by[r.Key] = r.Fields["capabilities"]
	}
	for key, want := range map[string]string{
		"0.4.7/cuda":      "sm_52,sm_60,sm_70,compute_80",
		"0.6.0/cuda":      "sm_50,sm_60,sm_70,sm_80,sm_90,sm_100,compute_120",
		"0.11.0/cuda_v12": "sm_50,sm_60,sm_70,sm_80,sm_90,sm_100,sm_101,compute_120",
		"0.11.0/cuda_v13": "sm_75,sm_80,sm_90,sm_100,sm_110,compute_120",
	} {
		if by[key] != want {
			t.Errorf("%s: %q, want %q", key, by[key], want)
		}
	}
	if _, ok := by["0.11.0/cuda"]; ok {
		t.Error("0.11.0 has no plain cuda config line")
	}
}

func TestArchList(t *testing.T) {
	got, err := archList("sm_50,sm_90,compute_120")
	if err != nil || got != "sm_50 sm_90 sm_120 compute_120" {
		t.Errorf("archList = %q, %v", got, err)
	}
	for _, bad := range []string{"sm_5", "gfx90a", "compute_120,", ""} {
		if _, err := archList(bad); err == nil {
			t.Errorf("archList(%q) accepted", bad)
		}
	}
}

func TestPythonCapture(t *testing.T) {
	recs, err := parsePython(pythonCapture)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][2]string{}
	for _, r := range recs {
		by[r.Key] = [2]string{r.Fields["python_min"], r.Fields["python_max"]}
	}
	for v, want := range map[string][2]string{"0.4.7": {"3.8", "3.11"}, "0.4.30": {"3.9", "3.12"}, "0.6.0": {"3.10", "3.13"}, "0.11.0": {"3.12", "3.14"}} {
		if by[v] != want {
			t.Errorf("%s: %v, want %v", v, by[v], want)
		}
	}
}

// Sad captures: a line of another shape, a release without a floor.
func TestCapturesRefuseOtherLines(t *testing.T) {
	if _, err := parseCaps([]byte("jax-v0.4.0:.bazelrc:259:build:tensorflow_testing_rbe_linux --repo_env=TF_CUDA_COMPUTE_CAPABILITIES=sm_60,sm_75\n")); err == nil {
		t.Error("an rbe testing line was read as a wheel config")
	}
	if _, err := parsePython([]byte("jax-v0.4.7:jaxlib/setup.py:53:        \"Programming Language :: Python :: 3.8\",\n")); err == nil {
		t.Error("a release without python_requires made a range")
	}
	if _, err := parsePython([]byte("jax-v0.4.7:jaxlib/setup.py:48:    install_requires=['numpy'],\n")); err == nil {
		t.Error("another setup.py line was read")
	}
}

// Each CUDA build takes its own config's list (cuda_v13 for cuda13), or
// the single cuda config before the split; a release without builds is
// refused, not dropped.
func TestCapsOntoBuilds(t *testing.T) {
	recs, err := parseCaps(capsCapture)
	if err != nil {
		t.Fatal(err)
	}
	n := &normalizer{f: &db.Facts{}, src: "jax", builds: map[db.BuildKey]int{}, reqs: map[string]int{}, attrs: map[[3]string]bool{}, releases: map[string]bool{}}
	n.build("0.11.0", "cuda13", db.Provenance{Source: "jax"})
	n.build("0.11.0", "cuda12", db.Provenance{Source: "jax"})
	n.build("0.4.20", "cuda11", db.Provenance{Source: "jax"})
	n.caps(recs)
	want := map[string]string{
		"0.11.0 cuda13": "sm_75 sm_80 sm_90 sm_100 sm_110 sm_120 compute_120",
		"0.11.0 cuda12": "sm_50 sm_60 sm_70 sm_80 sm_90 sm_100 sm_101 sm_120 compute_120",
		"0.4.20 cuda11": "sm_52 sm_60 sm_70 sm_80 sm_90 compute_90",
	}
	for _, b := range n.f.Builds {
		if got := want[b.Version+" "+b.Variant]; b.ArchList != got {
			t.Errorf("%s %s: %q, want %q", b.Version, b.Variant, b.ArchList, got)
		}
		if !strings.Contains(b.ArchFrom.URL, "/blob/jax-v"+b.Version+"/.bazelrc#L") {
			t.Errorf("%s %s cites %q", b.Version, b.Variant, b.ArchFrom.URL)
		}
	}
	refused := 0
	for _, c := range n.f.Conflicts {
		if c.Field == "refused" {
			refused++
		}
	}
	if refused == 0 {
		t.Error("releases without builds were dropped silently")
	}
}

// The capture parsers never panic, and a parse that succeeds gives
// records, on any input.
func FuzzCaptureParsers(f *testing.F) {
	f.Add(capsCapture)
	f.Add(pythonCapture)
	f.Add(hostCapture)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, parse := range []func([]byte) ([]scraper.Record, error){parseCaps, parsePython, parseHost} {
			if recs, err := parse(b); err == nil && len(recs) == 0 {
				t.Fatal("no records and no error")
			}
		}
	})
}
