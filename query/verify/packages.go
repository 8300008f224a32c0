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

// This file judges what the installed-package listing alone shows: a CPU
// package installed beside the GPU package of the same module, JAX with
// no CUDA plugin, and TensorFlow >= 2.11 on native Windows (no GPU build).

// packages runs the package-listing judgements of every environment.
func (v *verifier) packages(ctx context.Context, fws []*framework) {
	for i := range v.f.Pythons {
		py := &v.f.Pythons[i]
		v.moduleConflicts(py)
		v.cpuOnlyPackage(ctx, py)
		v.jaxWithoutPlugin(py)
		v.condaCPUSolve(ctx, py)
	}
	for _, fw := range fws {
		if fw.name == frameworks.TensorFlow {
			v.tfNativeWindows(ctx, fw)
			v.tfWithoutCUDAWheels(ctx, fw)
		}
	}
}

// moduleConflicts: a framework's CPU package beside its GPU package.
// Both install one module; whichever was installed last owns its files,
// and with the CPU package's the CUDA provider is gone.
func (v *verifier) moduleConflicts(py *host.Python) {
	for _, fw := range v.opts.Frameworks.Or() {
		if fw.CPUPackage == "" {
			continue
		}
		cpuVer, okCPU := py.Packages[fw.CPUPackage]
		if !okCPU {
			cpuVer, okCPU = py.CondaPackages[fw.CPUPackage]
		}
		gpuVer, okGPU := py.Packages[fw.Packages[0]]
		if !okCPU || !okGPU {
			continue
		}
		sev := findings.SevWarning
		msg := fmt.Sprintf("%s %s and %s %s are both installed in %s: they install the same module (%s), so whichever was installed last owns it, and with the CPU package's files %s has no CUDA provider", fw.CPUPackage, cpuVer, fw.Packages[0], gpuVer, envName(py), fw.Module, fw.Label)
		ev := []string{fmt.Sprintf("%s: %s (%s)", fw.CPUPackage, cpuVer, envName(py)), fmt.Sprintf("%s: %s (%s)", fw.Packages[0], gpuVer, envName(py))}
		for _, e := range v.f.Errors {
			if l := strings.ToLower(e); strings.Contains(l, "cudaexecutionprovider") && (strings.Contains(l, "not in available") || strings.Contains(l, "not available")) {
				// the report shows the CPU package won
				sev = findings.SevError
				ev = append(ev, "error: "+e)
				break
			}
		}
		fix := fmt.Sprintf("pip uninstall -y %s %s && pip install %s==%s (uninstall both: removing one leaves the module half-deleted; then install the GPU package alone)", fw.CPUPackage, fw.Packages[0], fw.Packages[0], gpuVer)
		if _, conda := py.CondaPackages[fw.CPUPackage]; conda {
			// the CPU package came from a conda channel: conda removes it
			fix = fmt.Sprintf("conda remove --force %s && pip install --force-reinstall %s==%s (the CPU package is conda's; reinstalling the GPU package restores the module's files)", fw.CPUPackage, fw.Packages[0], gpuVer)
		}
		v.add(findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: sev, Message: msg, Evidence: ev, Fix: fix})
	}
}

// jaxWithoutPlugin: jax and jaxlib without a CUDA plugin run on the CPU
// (jax[cpu], or plain pip install jax) on a host that has a GPU.
func (v *verifier) jaxWithoutPlugin(py *host.Python) {
	j := py.JAX
	if j == nil || len(v.f.GPUs) == 0 {
		return
	}
	for name := range j.Plugins {
		if strings.HasPrefix(name, frameworks.Must(frameworks.JAX).PluginPrefix) {
			return
		}
	}
	if !v.fromListing() {
		// jax.print_environment_info() names jaxlib but not the plugins:
		// only a package listing shows that none is installed.
		return
	}
	lib := py.Packages[frameworks.JAXLib]
	if lib == "" || strings.Contains(lib, "+cuda") || strings.Contains(lib, "+rocm") {
		// jaxlib's own CUDA builds (before the plugins) carry a label
		return
	}
	extra := "cuda12"
	if dc := v.f.DriverCUDA; dc != nil && version.MajorText(dc.Version) == "13" {
		extra = "cuda13"
	}
	jv := j.Version
	if jv == "" {
		jv = lib
	}
	plugin := frameworks.Must(frameworks.JAX).PluginPrefix
	v.add(findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevWarning,
		Message:  fmt.Sprintf("%s %s has no CUDA plugin (%s12-plugin or %s13-plugin) in %s: it runs on the CPU of a host with %s", frameworks.JAX, jv, plugin, plugin, envName(py), v.f.GPUs[0].Name),
		Evidence: []string{fmt.Sprintf("%s: %s (%s)", frameworks.JAXLib, lib, envName(py)), "CUDA plugin: none", "GPU 0: " + v.f.GPUs[0].Name},
		Fix:      fmt.Sprintf("pip install -U \"%s[%s]\" (brings %s%s-plugin and the CUDA wheels)", frameworks.JAX, extra, plugin, strings.TrimPrefix(extra, "cuda"))})
}

// tfNativeWindows: TensorFlow 2.11 and later has no GPU build on native
// Windows; the last one is the release the database names.
func (v *verifier) tfNativeWindows(ctx context.Context, fw *framework) {
	// a GPU, a driver or a CUDA toolkit in the report: GPU use was meant
	if v.hostPlatform() != "windows" || (len(v.f.GPUs) == 0 && v.f.Driver == nil && len(v.f.Toolkits) == 0) {
		return
	}
	last, prov, err := v.d.Attribute(ctx, frameworks.TensorFlow, "", "windows_native_gpu_last")
	if err != nil || last == "" || fw.version == "" {
		return
	}
	if version.CompareDottedText(fw.version, last) <= 0 {
		return
	}
	v.add(findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s runs on the CPU on native Windows: TensorFlow's last native-Windows GPU release is %s", fw.label, last),
		Evidence: tfWindowsEvidence(v.f, fw),
		Fix:      fmt.Sprintf("install TensorFlow in WSL2 (pip install \"tensorflow[and-cuda]==%s\" inside Ubuntu on WSL2), or stay on native Windows with tensorflow==%s and its CUDA 11.2 / cuDNN 8.1 (conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0)", fw.version, last),
		Sources:  []query.SourceRef{{Name: prov.Source, URL: prov.URL}}})
}

// fromListing reports whether the facts hold an installed-package listing
// (a probe, pip list/freeze, conda list): only a listing shows that a
// package is absent.
func (v *verifier) fromListing() bool {
	if v.f.Origin == host.OriginHost {
		return true
	}
	for _, f := range []string{"pip_list", "pip_freeze", "conda_list"} {
		if strings.Contains(v.f.Origin, f) {
			return true
		}
	}
	return false
}

// condaCPUSolve: conda installed torch's CPU build beside a CUDA runtime
// package (cudatoolkit, pytorch-cuda, cuda-version): the user asked for
// CUDA and the solver fell back to the CPU build, usually because the
// channel has no build of that release for that CUDA and Python. The
// runtime package beside it says CUDA was wanted, so no GPU line is
// needed; a host with a GPU is already judged by cpuOnly.
func (v *verifier) condaCPUSolve(ctx context.Context, py *host.Python) {
	t := py.Torch
	if t == nil || t.Variant != "cpu" || t.Source != "conda_list" || len(v.f.GPUs) > 0 {
		return
	}
	rt := ""
	for _, name := range []string{"cudatoolkit", "pytorch-cuda", "cuda-version"} {
		if ver, ok := py.CondaPackages[name]; ok {
			rt = name + " " + ver
			break
		}
	}
	if rt == "" {
		return
	}
	var cudas []string
	if bs, err := v.d.Builds(ctx, frameworks.Torch, func(s string) bool { return s == t.Version }); err == nil {
		for _, b := range bs {
			if b.Channel == "conda" && b.CUDA != "" && !containsStr(cudas, b.CUDA) {
				cudas = append(cudas, b.CUDA)
			}
		}
	}
	fix := fmt.Sprintf("conda install -c %s %s=%s with a CUDA the channel built it for (cudb resolve torch==%s lists them)", frameworks.Must(frameworks.Torch).CondaChannel, frameworks.Must(frameworks.Torch).CondaName, t.Version, t.Version)
	if len(cudas) > 0 {
		c := cudas[len(cudas)-1]
		fix = fmt.Sprintf("conda install -c %s %s=%s cudatoolkit=%s (the channel's CUDA builds of %s: %s)", frameworks.Must(frameworks.Torch).CondaChannel, frameworks.Must(frameworks.Torch).CondaName, t.Version, c, t.Version, strings.Join(cudas, ", "))
	}
	v.add(findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message:  fmt.Sprintf("conda installed the CPU build of %s %s beside %s: the solve fell back to the CPU build (the channel has no CUDA build for that request)", frameworks.Must(frameworks.Torch).CondaName, t.Version, rt),
		Evidence: []string{fmt.Sprintf("%s: %s cpu (conda_list)", frameworks.Must(frameworks.Torch).CondaName, t.Version), rt + " (conda_list)"},
		Fix:      fix})
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func tfWindowsEvidence(f *host.Snapshot, fw *framework) []string {
	ev := []string{fmt.Sprintf("%s: %s (%s)", frameworks.TensorFlow, fw.version, envName(fw.py)), "OS: " + f.OS}
	switch {
	case len(f.GPUs) > 0:
		ev = append(ev, "GPU 0: "+f.GPUs[0].Name)
	case f.Driver != nil:
		ev = append(ev, "driver: "+f.Driver.Version)
	case len(f.Toolkits) > 0:
		ev = append(ev, "CUDA: "+f.Toolkits[0].Version)
	}
	return ev
}
