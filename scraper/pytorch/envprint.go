package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Environment printouts: `python collect_env.py` reports (PyTorch's
// torch.utils.collect_env, or vLLM's copy of it) quoted in public issue
// threads. A report names the installed torch with its local version
// ("PyTorch version: 2.7.1+cu128"), the host ("Python platform: Linux-…-
// x86_64-…") and, under "[pip3]", every installed nvidia-* package. The
// CUDA wheels of download.pytorch.org pin their nvidia-* dependencies
// with ==, so in a working environment the installed version of each
// library torch depends on is the wheel's Requires-Dist pin: this is how
// the pins (and so cuDNN and NCCL) of variants that PyPI does not serve,
// and that no lock file seen records, become known.
//
// Only the CUDA libraries torch's wheels depend on (torchWheelLibs) are
// read, and only under the CUDA major of the printed variant: other nvidia
// packages in the same environment (nvidia-ml-py, nvcomp, dali, …) belong
// to other projects. Snapshot-only, like the arch-list printouts (see
// captures/CAPTURES.md).
var envPrintDocs = []quotedDoc{
	// The collect_env report of vLLM 0.10.1.1's production image: torch
	// 2.7.1+cu128 from download.pytorch.org on Linux x86-64.
	{doc{page: "https://github.com/vllm-project/vllm-ascend/issues/5451", capture: "collect_env@vllm-ascend-issue-5451.md"},
		"the environment printouts", parseEnvPrint},
}

// torchWheelLibs are the NVIDIA libraries (package name without the
// -cuNN suffix) that torch's CUDA wheels pin.
var torchWheelLibs = map[string]bool{
	"nvidia-cublas": true, "nvidia-cuda-cupti": true, "nvidia-cuda-nvrtc": true, "nvidia-cuda-runtime": true,
	"nvidia-cudnn": true, "nvidia-cufft": true, "nvidia-cufile": true, "nvidia-curand": true,
	"nvidia-cusolver": true, "nvidia-cusparse": true, "nvidia-cusparselt": true, "nvidia-nccl": true,
	"nvidia-nvjitlink": true, "nvidia-nvshmem": true, "nvidia-nvtx": true,
}

var (
	reEnvTorch = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^PyTorch version\s*:\s*(\d+\.\d+\.\d+)\+(cu\d+)\s*$`)
	})
	reEnvPlatform = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Python platform\s*:\s*(\S+)\s*$`) })
	reEnvPip      = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[pip3\]\s+(nvidia-[a-z0-9-]+)-cu(\d+)==(\d+(?:\.\d+)+)\s*$`)
	})
)

// scrapeEnvPrints reads the captured reports (snapshot mode only).
func scrapeEnvPrints(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return scrapeQuoted(ctx, in, envPrintDocs)
}

// parseEnvPrint reads one collect_env report: the torch local version and
// the platform, then its "[pip3]" lines. A pin is taken only after a CUDA
// torch version was printed, only for a library of torchWheelLibs and only
// under the variant's CUDA major ("-cu12" for cu128). A second "PyTorch
// version" starts another report.
func parseEnvPrint(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	var version, variant, platform string
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if m := reEnvTorch().FindStringSubmatch(line); m != nil {
			version, variant, platform = m[1], m[2], ""
			continue
		}
		if m := reEnvPlatform().FindStringSubmatch(line); m != nil {
			platform = m[1]
			continue
		}
		m := reEnvPip().FindStringSubmatch(line)
		if m == nil || version == "" || !torchWheelLibs[m[1]] {
			continue
		}
		cuda := cudaOfVariant(variant)
		if major, _, _ := strings.Cut(cuda, "."); m[2] != major {
			continue
		}
		pkg := m[1] + "-cu" + m[2]
		recs = append(recs, scraper.Record{Table: "env_pins", Key: version + "+" + variant + "|" + pkg,
			Ref: fmt.Sprintf("%s:%d (%s installed with torch %s+%s)", ref, i+1, pkg, version, variant),
			Fields: map[string]string{"torch_version": version, "cuda_variant": variant, "python_platform": platform,
				"package": pkg, "pinned_version": m[3], "row": line}})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no torch CUDA local version followed by [pip3] lines of its CUDA libraries")
	}
	return recs, nil
}

// envPin makes an installed library the pin of the Linux x86-64 wheel of
// the printed release and variant. marker is the environment marker the
// release's PyPI wheel states on its nvidia-* pins (every CUDA variant of
// a release is built from the same requirement list); with none known the
// row is refused rather than written without one.
func envPin(f *facts, r scraper.Record, marker string, p db.Provenance) {
	v, variant := r.Fields["torch_version"], r.Fields["cuda_variant"]
	if !reRelease().MatchString(v) || cudaOfVariant(variant) == "" {
		f.refuse(r, "not a released CUDA build: "+v+"+"+variant)
		return
	}
	if plat := r.Fields["python_platform"]; !strings.HasPrefix(plat, "Linux-") || !strings.Contains(plat, "x86_64") {
		f.refuse(r, "the report's platform ("+plat+") is not Linux x86-64: the aarch64 and Windows wheels state their own pins")
		return
	}
	if marker == "" {
		f.refuse(r, "no environment marker known for torch "+v+"'s nvidia-* pins")
		return
	}
	b := db.Build{Component: "torch", Version: v, Variant: variant, Platform: "linux", CUDA: cudaOfVariant(variant), Provenance: p}
	f.release("torch", v, p)
	f.build(b)
	pinRequirements(f, b.Key(), r.Fields["package"], "=="+r.Fields["pinned_version"], marker, p)
}
