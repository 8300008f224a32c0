package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// This file judges CPU-only packages of frameworks that have a GPU
// package, on a host that has a GPU: the setup works, on the CPU, so it
// is a warning that names the GPU package to install, never an error.

// cpuOnlyPackage: a framework's CPU package (onnxruntime) installed
// without its GPU package. Its providers are the CPU's: every model runs
// on the CPU although a GPU is there.
func (v *verifier) cpuOnlyPackage(ctx context.Context, py *host.Python) {
	if len(v.f.GPUs) == 0 || !v.fromListing() {
		return
	}
	for _, fw := range v.opts.Frameworks.Or() {
		if fw.CPUPackage == "" {
			continue
		}
		cpuVer, ok := py.Packages[fw.CPUPackage]
		if !ok {
			continue
		}
		if _, gpu := py.Packages[fw.Packages[0]]; gpu {
			continue // both installed: moduleConflicts
		}
		req := query.ResolveRequest{Requirements: []string{fw.Packages[0] + "==" + cpuVer}, Platform: "linux", Python: pyMinor(py)}
		v.hostConstraints(ctx, &req)
		req.SM = "" // only torch records architecture lists
		install := v.knownGoodInstall(ctx, req)
		if install == "" {
			req.Requirements = []string{fw.Packages[0]}
			install = v.knownGoodInstall(ctx, req)
		}
		fix := fmt.Sprintf("pip uninstall -y %s && pip install %s (one module: remove the CPU package first)", fw.CPUPackage, fw.Packages[0])
		if install != "" {
			fix = fmt.Sprintf("pip uninstall -y %s && %s (one module: remove the CPU package first)", fw.CPUPackage, install)
		}
		v.add(findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevWarning,
			Message: fmt.Sprintf("%s %s in %s is the CPU-only package of %s on a host with %s: its providers are the CPU's, so every model runs on the CPU; the GPU package is %s",
				fw.CPUPackage, cpuVer, envName(py), fw.Label, v.f.GPUs[0].Name, fw.Packages[0]),
			Evidence: []string{fmt.Sprintf("%s: %s (%s)", fw.CPUPackage, cpuVer, envName(py)), fw.Packages[0] + ": not installed", "GPU 0: " + v.f.GPUs[0].Name},
			Fix:      fix})
	}
}

// tfWithoutCUDAWheels: a Linux TensorFlow whose release has the
// [and-cuda] extra, installed without it (no nvidia-cudnn wheel in the
// environment) and with no system cuDNN of the major it loads: it finds
// no GPU libraries and runs on the CPU. The probe's own check of the
// system copies (cudnn_missing) speaks for a probed host.
func (v *verifier) tfWithoutCUDAWheels(ctx context.Context, fw *framework) {
	if len(v.f.GPUs) == 0 || fw.build == nil || fw.cuda == "" || !v.fromListing() || v.f.Origin == host.OriginHost || v.hostPlatform() == "windows" {
		return
	}
	for name := range fw.py.NvidiaWheels {
		if strings.HasPrefix(name, "nvidia-cudnn-cu") {
			return
		}
	}
	if !v.tfHasAndCUDA(ctx, fw.version) {
		return
	}
	if r, ok := fw.build.Req("cudnn", "tested"); ok {
		if want, err := version.ParseDotted(strings.TrimLeft(r.Spec, "=>~ ")); err == nil && v.hasCUDNNMajor(want.Major()) {
			return // a system cuDNN of its major is there
		}
	}
	extra := frameworks.Must(frameworks.TensorFlow).GPUExtra
	v.add(findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevWarning,
		Message: fmt.Sprintf("%s in %s was installed without its [%s] extra (no nvidia-cudnn wheel beside it) on a host with %s: unless CUDA and cuDNN are installed system-wide, it finds no GPU libraries and runs on the CPU",
			fw.label, envName(fw.py), extra, v.f.GPUs[0].Name),
		Evidence: []string{fmt.Sprintf("%s: %s (%s)", frameworks.TensorFlow, fw.version, envName(fw.py)), "nvidia-cudnn wheel: none", "GPU 0: " + v.f.GPUs[0].Name},
		Fix:      fmt.Sprintf("pip install \"%s[%s]==%s\"", frameworks.TensorFlow, extra, fw.version), Sources: fw.sources()})
}

// knownGoodInstall is the install command of the best stack resolve
// vouches for (status ok), or "" when it vouches for none.
func (v *verifier) knownGoodInstall(ctx context.Context, req query.ResolveRequest) string {
	for _, r := range []query.ResolveRequest{req, withoutPython(req)} {
		res, err := query.Resolve(ctx, v.d, r)
		if err != nil {
			continue
		}
		for _, s := range res.Stacks {
			if s.Status == query.StatusOK {
				return s.Install.Command
			}
		}
	}
	return ""
}
