package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
)

func (v *verifier) gpuCC(ctx context.Context, g host.GPU) string {
	if g.ComputeCapability != "" {
		if cc, err := nvidia.ParseSM(g.ComputeCapability); err == nil {
			return cc
		}
	}
	if g.Name == "" {
		return ""
	}
	if row, err := nvidia.LookupGPU(ctx, v.d, g.Name); err == nil {
		return row.ComputeCapability
	}
	return ""
}

// GPUTableSource marks a compute capability verify looked up from the
// GPU's name (host.GPU.ComputeCapabilitySource).
const GPUTableSource = "gpu_table"

// factsWithCC is the facts the report shows: a GPU whose source did not
// state its compute capability carries the one its name maps to in the
// GPU table (the one the judgement used), marked GPUTableSource. The
// caller's facts are not changed.
func (v *verifier) factsWithCC(ctx context.Context) *host.Snapshot {
	f := v.f
	var gpus []host.GPU
	for i, g := range f.GPUs {
		if g.ComputeCapability != "" {
			continue
		}
		cc := v.gpuCC(ctx, g)
		if cc == "" {
			continue
		}
		if gpus == nil {
			gpus = append([]host.GPU(nil), f.GPUs...)
		}
		gpus[i].ComputeCapability, gpus[i].ComputeCapabilitySource = cc, GPUTableSource
	}
	if gpus == nil {
		return f
	}
	cp := *f
	cp.GPUs = gpus
	return &cp
}

func (v *verifier) arch(ctx context.Context, fw *framework) error {
	// The list torch itself reports is the truth; the database's is what
	// the release's wheels were built with.
	archList, archEv, missing := "", "", ""
	if fw.build != nil {
		ab := fw.build
		if plat := v.hostPlatform(); plat != "" {
			// A Windows wheel carries its own kernels: the Linux list
			// is not borrowed (query.ArchFor).
			ab, missing = query.ArchFor(fw.variant, plat)
		}
		if ab != nil && ab.ArchList != "" {
			archList = ab.ArchList
			archEv = fmt.Sprintf("%s: %s", fw.label, archList)
		}
	}
	if rt := fw.torchRuntime(); rt != nil && len(rt.ArchList) > 0 {
		rtList := strings.Join(rt.ArchList, " ")
		if archList != "" && archList != rtList {
			archEv = fmt.Sprintf("%s at runtime (torch.cuda.get_arch_list(), preferred over the database's %s): %s", fw.label, archList, rtList)
		} else {
			archEv = fmt.Sprintf("%s at runtime (torch.cuda.get_arch_list()): %s", fw.label, rtList)
		}
		archList = rtList
	}
	if archList == "" && missing != "" && fw.cuda != "" && len(v.f.GPUs) > 0 {
		v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevInfo,
			Message:  fmt.Sprintf("%s: the architecture check is skipped (cannot tell whether it carries kernels for this GPU)", missing),
			Evidence: []string{"host: " + v.f.OS}, Fix: "python -c \"import torch; print(torch.cuda.get_arch_list())\" (or cudb verify --deep)"})
		return nil
	}
	if archList == "" || fw.cuda == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, g := range v.f.GPUs {
		cc := v.gpuCC(ctx, g)
		if rt := fw.torchRuntime(); cc == "" && rt != nil {
			for _, d := range rt.Devices {
				if d.Index == g.Index && d.ComputeCapability != "" {
					cc = d.ComputeCapability
				}
			}
		}
		key := g.Name + "/" + cc
		if seen[key] {
			continue
		}
		seen[key] = true
		ev := []string{fmt.Sprintf("GPU %d: %s", g.Index, g.Name), archEv}
		if cc == "" {
			v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevInfo,
				Message:  fmt.Sprintf("the compute capability of %q is unknown (not reported, not in the GPU table); the architecture check is skipped", g.Name),
				Evidence: ev[:1], Fix: "nvidia-smi --query-gpu=name,compute_cap --format=csv"})
			continue
		}
		ev[0] += " (compute capability " + cc + ")"
		support, detail := nvidia.GPUSupport(cc, archList)
		switch support {
		case "sass_compatible":
			v.add(findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevInfo,
				Message:  fmt.Sprintf("%s runs on %s through same-major binary compatibility: %s", fw.label, g.Name, detail),
				Evidence: ev, Sources: fw.sources()})
		case "ptx_jit":
			v.add(findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevWarning,
				Message:  fmt.Sprintf("%s has no native kernels for %s: %s (slower first start, kernels cached afterwards)", fw.label, g.Name, detail),
				Evidence: ev, Fix: v.archFix(ctx, fw, cc), Sources: fw.sources()})
		case "none":
			msg := fmt.Sprintf("%s carries no kernels for %s (sm_%s): CUDA calls fail with \"no kernel image is available\"", fw.label, g.Name, strings.ReplaceAll(cc, ".", ""))
			if fw.name == frameworks.Torch {
				first, variant, err := firstTorchWith(ctx, v.d, cc)
				if err != nil {
					return err
				}
				if first != "" {
					msg += fmt.Sprintf("; the first torch with sm_%s is %s (%s)", strings.ReplaceAll(cc, ".", ""), first, variant)
				}
			}
			v.add(findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
				Message:  msg,
				Evidence: ev, Fix: v.archFix(ctx, fw, cc), Sources: fw.sources()})
		}
	}
	return nil
}

// hostPlatform is the wheel platform of the judged host when it is not
// Linux x86-64: "windows" for a report that names native Windows (a WSL2
// guest runs Linux wheels), else "" (the representative build).
func (v *verifier) hostPlatform() string {
	os := strings.ToLower(v.f.OS)
	if strings.Contains(os, "windows") && !strings.Contains(os, "wsl") && (v.f.Driver == nil || !v.f.Driver.WSL) {
		return "windows"
	}
	return ""
}

func (v *verifier) archFix(ctx context.Context, fw *framework, cc string) string {
	plat := v.hostPlatform()
	if plat == "" {
		plat = "linux"
	}
	req := query.ResolveRequest{Requirements: []string{fw.name}, SM: cc, Platform: plat, Python: pyMinor(fw.py)}
	if v.f.Driver != nil {
		if _, err := nvidia.ParseDriver(v.f.Driver.Version); err == nil {
			req.Driver = v.f.Driver.Version
		}
	}
	if cmd := v.resolveCmd(ctx, req); cmd != "" {
		return cmd
	}
	req.Driver = ""
	if cmd := v.resolveCmd(ctx, req); cmd != "" {
		return cmd + " (after upgrading the driver: cudb resolve " + fw.name + " --sm " + cc + ")"
	}
	return "cudb resolve " + fw.name + " --sm " + cc
}
