package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/findings"
)

// activeToolkit is the toolkit extension builds use: CUDA_HOME's, else
// the one whose nvcc is on PATH.
func (v *verifier) activeToolkit() *host.Toolkit {
	if h := strings.TrimRight(v.f.CUDAHome, "/"); h != "" {
		for i := range v.f.Toolkits {
			t := &v.f.Toolkits[i]
			if t.Path == h || slices.Contains(t.Aliases, h) {
				return t
			}
		}
	}
	for i := range v.f.Toolkits {
		if v.f.Toolkits[i].OnPath {
			return &v.f.Toolkits[i]
		}
	}
	return nil
}

func (v *verifier) toolkit(_ context.Context, fw *framework) error {
	if fw.name != frameworks.Torch || fw.cuda == "" {
		return nil
	}
	t := v.activeToolkit()
	if t == nil || t.Version == "" {
		return nil
	}
	if version.MajorText(t.Version) == version.MajorText(fw.cuda) {
		return nil
	}
	fix := fmt.Sprintf("only matters when building CUDA extensions: install CUDA %s (e.g. conda install -c nvidia cuda-toolkit=%s) and export CUDA_HOME to it", fw.cuda, fw.cuda)
	for _, o := range v.f.Toolkits {
		if version.MajorText(o.Version) == version.MajorText(fw.cuda) && o.Path != "" {
			fix = fmt.Sprintf("only matters when building CUDA extensions: export CUDA_HOME=%s PATH=%s/bin:$PATH", o.Path, o.Path)
			break
		}
	}
	v.add(findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevWarning,
		Message:  fmt.Sprintf("the CUDA toolkit at %s is %s, but %s was built with CUDA %s: torch.utils.cpp_extension refuses a different major", t.Path, t.Version, fw.label, fw.cuda),
		Evidence: []string{"toolkit: " + t.Version + " " + t.Path + " (" + t.Source + ")", fmt.Sprintf("%s: CUDA %s", fw.label, fw.cuda)},
		Fix:      fix})
	return nil
}

// toolkits reports CUDA_HOME and PATH naming different toolkits.
func (v *verifier) toolkits() {
	if v.f.CUDAHome == "" || len(v.f.Toolkits) < 2 {
		return
	}
	var home, onPath *host.Toolkit
	h := strings.TrimRight(v.f.CUDAHome, "/")
	for i := range v.f.Toolkits {
		t := &v.f.Toolkits[i]
		if t.Path == h || slices.Contains(t.Aliases, h) {
			home = t
		}
		if t.OnPath {
			onPath = t
		}
	}
	if home == nil || onPath == nil || home == onPath || home.Version == onPath.Version {
		return
	}
	v.add(findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevWarning,
		Message: fmt.Sprintf("CUDA_HOME points at CUDA %s (%s) but nvcc on PATH is CUDA %s (%s): builds mix headers and compilers of two toolkits",
			home.Version, home.Path, onPath.Version, onPath.Path),
		Evidence: []string{"CUDA_HOME: " + v.f.CUDAHome, "nvcc on PATH: " + onPath.Path + "/bin/nvcc"},
		Fix:      fmt.Sprintf("export CUDA_HOME=%s (or PATH=%s/bin:$PATH)", onPath.Path, home.Path)})
}
