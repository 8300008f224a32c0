package pytorch

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// The captured collect_env report of vllm-project/vllm-ascend#5451 (torch
// 2.7.1+cu128 on Linux x86-64) becomes the pins of that variant's Linux
// wheel, with cuDNN 9.7.1.26 and NCCL 2.26.2, under the marker the
// release's PyPI wheel states; packages of other projects are not read.
func TestEnvPrintCapture(t *testing.T) {
	recs, err := scrapeEnvPrints(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 14 {
		t.Fatalf("%d pins, want the 14 CUDA libraries of torch 2.7.1+cu128: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.URL != "https://github.com/vllm-project/vllm-ascend/issues/5451" || !strings.HasPrefix(r.Ref, "collect_env@vllm-ascend-issue-5451.md:") {
			t.Errorf("record cites %q %q", r.URL, r.Ref)
		}
	}
	// The release's PyPI wheel states its marker in the pins table.
	const marker = `platform_system == "Linux" and platform_machine == "x86_64"`
	recs = append(recs, scraper.Record{Table: "pins", Key: "2.7.1|nvidia-cuda-runtime-cu12|12.6.77", Ref: "pins row",
		Fields: map[string]string{"torch_version": "2.7.1", "package": "nvidia-cuda-runtime-cu12", "pinned_version": "12.6.77",
			"platform_marker": marker}})
	f, err := Lockfiles{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	k := db.BuildKey{Component: "torch", Version: "2.7.1", Variant: "cu128", Platform: "linux"}
	got := map[string]db.Requirement{}
	for _, r := range f.Requirements {
		if r.Build == k {
			got[r.Needs] = r
		}
	}
	for needs, spec := range map[string]string{"nccl": "2.26.2", "cudnn": "9.7.1.26", "cuda": "12.8.57",
		"nvidia-nccl-cu12": "==2.26.2", "nvidia-cusparselt-cu12": "==0.6.3", "nvidia-cufile-cu12": "==1.13.0.11"} {
		r, ok := got[needs]
		if !ok || r.Spec != spec || r.Kind != db.KindPin {
			t.Errorf("%s: %+v, want pin %s", needs, r, spec)
			continue
		}
		if r.Marker == "" || r.Provenance.URL != "https://github.com/vllm-project/vllm-ascend/issues/5451" {
			t.Errorf("%s: marker %q provenance %+v", needs, r.Marker, r.Provenance)
		}
	}
	for needs := range got {
		if strings.HasPrefix(needs, "onnxruntime") || strings.HasPrefix(needs, "numpy") || strings.HasPrefix(needs, "torchvision") {
			t.Errorf("%s was read as a pin of torch", needs)
		}
	}
	var built bool
	for _, b := range f.Builds {
		built = built || (b.Key() == k && b.CUDA == "12.8")
	}
	if !built {
		t.Errorf("no build %s with CUDA 12.8 among %+v", k, f.Builds)
	}
}

// Reports that cannot be tied to a released Linux x86-64 wheel, and
// packages outside torch's CUDA libraries or of another CUDA major, give
// nothing.
func TestParseEnvPrintSad(t *testing.T) {
	for name, src := range map[string]string{
		"no torch version":  "[pip3] nvidia-nccl-cu12==2.26.2\n",
		"cpu build":         "PyTorch version : 2.7.1+cpu\n[pip3] nvidia-nccl-cu12==2.26.2\n",
		"other major":       "PyTorch version : 2.7.1+cu118\n[pip3] nvidia-nccl-cu12==2.26.2\n",
		"not a torch lib":   "PyTorch version : 2.9.0+cu130\n[pip3] nvidia-nvcomp-cu13==5.0.0.6\n[pip3] nvidia-ml-py==13.580.82\n",
		"range, not a pin":  "PyTorch version : 2.7.1+cu128\n[pip3] nvidia-nccl-cu12>=2.26\n",
		"empty":             "",
		"conda, not pip":    "PyTorch version : 2.7.1+cu128\n[conda] nvidia-nccl-cu12 2.26.2\n",
		"version in prose":  "PyTorch version 2.7.1+cu128 was used\n[pip3] nvidia-nccl-cu12==2.26.2\n",
		"suffix-less names": "PyTorch version : 2.9.0+cu130\n[pip3] nvidia-cublas==13.0.0.19\n",
	} {
		if recs, err := parseEnvPrint([]byte(src), "x"); err == nil {
			t.Errorf("%s: %+v, want an error", name, recs)
		}
	}
	f := newFacts("pytorch-lockfiles")
	p := f.prov("u", "r")
	for name, r := range map[string]scraper.Record{
		"aarch64":   {Fields: map[string]string{"torch_version": "2.7.1", "cuda_variant": "cu128", "python_platform": "Linux-6.1-aarch64-with-glibc2.35", "package": "nvidia-nccl-cu12", "pinned_version": "2.26.2"}},
		"windows":   {Fields: map[string]string{"torch_version": "2.7.1", "cuda_variant": "cu128", "python_platform": "Windows-10-10.0.19045-SP0", "package": "nvidia-nccl-cu12", "pinned_version": "2.26.2"}},
		"pre-build": {Fields: map[string]string{"torch_version": "2.8.0.dev20250601", "cuda_variant": "cu128", "python_platform": "Linux-x86_64", "package": "nvidia-nccl-cu12", "pinned_version": "2.26.2"}},
	} {
		envPin(f, r, "m", p)
		if res := f.result(); len(res.Requirements) != 0 || len(res.Builds) != 0 {
			t.Errorf("%s: took %+v", name, res)
		}
	}
	envPin(f, scraper.Record{Fields: map[string]string{"torch_version": "2.7.1", "cuda_variant": "cu128",
		"python_platform": "Linux-5.15-x86_64-with-glibc2.35", "package": "nvidia-nccl-cu12", "pinned_version": "2.26.2"}}, "", p)
	if res := f.result(); len(res.Requirements) != 0 {
		t.Errorf("a pin was written without a marker: %+v", res.Requirements)
	}
}

func FuzzParseEnvPrint(f *testing.F) {
	b, err := captures.ReadFile("captures/collect_env@vllm-ascend-issue-5451.md")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("PyTorch version : 2.7.1+cu128\n[pip3] nvidia-nccl-cu12==2.26.2\n")
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := parseEnvPrint([]byte(s), "fuzz")
		if err == nil && len(recs) == 0 {
			t.Fatal("no error and no records")
		}
		for _, r := range recs {
			if r.Fields["torch_version"] == "" || cudaOfVariant(r.Fields["cuda_variant"]) == "" || r.Fields["pinned_version"] == "" {
				t.Fatalf("incomplete record %+v", r)
			}
		}
	})
}
