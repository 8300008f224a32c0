package jax

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
)

// The real host's capture makes jax 0.11.2's CUDA 13 build: its plugin,
// PJRT and jaxlib paired, the CUDA major only, and no Python range; the
// cuDNN and NCCL wheels that host had are no requirement of the build.
func TestHostCapture(t *testing.T) {
	recs, err := parseHost(hostCapture)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Key != "0.11.2/cuda13" || recs[0].Fields["cudnn"] != "9.19.0.56" || recs[0].Fields["python"] != "3.12" {
		t.Fatalf("records %+v", recs)
	}
	n := &normalizer{f: &db.Facts{}, src: "jax", builds: map[db.BuildKey]int{}, reqs: map[string]int{}, attrs: map[[3]string]bool{}, releases: map[string]bool{}}
	n.host(recs)
	if len(n.f.Builds) != 1 {
		t.Fatalf("builds %+v", n.f.Builds)
	}
	b := n.f.Builds[0]
	if b.Version != "0.11.2" || b.Variant != "cuda13" || b.CUDA != "13" || b.PythonMin != "" || b.ArchList != "" {
		t.Errorf("build %+v", b)
	}
	got := map[string]string{}
	for _, q := range n.f.Requirements {
		got[q.Needs+" "+q.Kind] = q.Spec
	}
	if _, ok := got["cudnn tested"]; ok {
		t.Error("the host's cuDNN wheel became a requirement")
	}
	for k, want := range map[string]string{"jaxlib paired": "==0.11.2", "jax-cuda13-plugin paired": "==0.11.2", "jax-cuda13-pjrt paired": "==0.11.2"} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	// A release the tag evidence already describes keeps that evidence.
	n = &normalizer{f: &db.Facts{}, src: "jax", builds: map[db.BuildKey]int{}, reqs: map[string]int{}, attrs: map[[3]string]bool{}, releases: map[string]bool{"0.11.2": true}}
	n.host(recs)
	if len(n.f.Builds) != 0 || len(n.f.Conflicts) != 1 {
		t.Errorf("described release: builds %d conflicts %+v", len(n.f.Builds), n.f.Conflicts)
	}
}

// Sad captures: JAX saw no GPU, packages of two releases, a stray line.
func TestHostCaptureRefuses(t *testing.T) {
	good := string(hostCapture)
	for name, bad := range map[string]string{
		"no device":      strings.Replace(good, "[CudaDevice(id=0)]", "", 1),
		"two releases":   strings.Replace(good, "jax-cuda13-plugin==0.11.2", "jax-cuda13-plugin==0.11.1", 1),
		"no pjrt":        strings.Replace(good, "jax-cuda13-pjrt==0.11.2\n", "", 1),
		"jaxlib differs": strings.Replace(good, "jaxlib: 0.11.2", "jaxlib: 0.11.0", 1),
		"stray line":     good + "something else\n",
	} {
		if _, err := parseHost([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
