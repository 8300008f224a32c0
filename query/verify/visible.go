package verify

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudb/cudb/query/findings"
)

// This file names the environment variables that hide GPUs as the cause
// of no_gpu_visible: CUDA_VISIBLE_DEVICES (read by the CUDA runtime in
// every process; nvidia-smi ignores it, so the GPUs are still listed) and
// NVIDIA_VISIBLE_DEVICES (read by the NVIDIA container runtime when a
// container starts).

// hidingVar is a variable that hides every GPU, with why.
type hidingVar struct {
	name, value, why string
}

func (h hidingVar) evidence() string {
	return fmt.Sprintf("%s=%q (%s)", h.name, h.value, h.why)
}

// hiddenBy returns the variable that hides every GPU from CUDA programs,
// if one does.
func (v *verifier) hiddenBy() (hidingVar, bool) {
	for _, e := range v.f.VisibleDevices {
		val := strings.TrimSpace(e.Value)
		switch e.Name {
		case "CUDA_VISIBLE_DEVICES":
			if why := v.cudaVisibleHidesAll(val); why != "" {
				return hidingVar{e.Name, e.Value, why}, true
			}
		case "NVIDIA_VISIBLE_DEVICES":
			// Only where no GPU is seen: inside a running container the
			// variable no longer changes what the process sees.
			if len(v.f.GPUs) == 0 && (val == "" || val == "void" || val == "none") {
				return hidingVar{e.Name, e.Value, "the NVIDIA container runtime mounts no GPU into the container"}, true
			}
		}
	}
	return hidingVar{}, false
}

// cudaVisibleHidesAll says why a CUDA_VISIBLE_DEVICES value leaves CUDA
// no device, or "" when it leaves one. The CUDA runtime reads the list up
// to its first entry that names no device: an index of a present GPU, or
// a prefix of its UUID (GPU-..., MIG-...).
func (v *verifier) cudaVisibleHidesAll(val string) string {
	if val == "" {
		return "set and empty: CUDA sees no device"
	}
	first := strings.TrimSpace(strings.Split(val, ",")[0])
	if n, err := strconv.Atoi(first); err == nil {
		if n < 0 {
			return "a negative index ends the list: CUDA sees no device"
		}
		if len(v.f.GPUs) > 0 && n >= len(v.f.GPUs) {
			return fmt.Sprintf("index %d names no GPU of the %d present: CUDA sees no device", n, len(v.f.GPUs))
		}
		return ""
	}
	if strings.HasPrefix(first, "GPU-") || strings.HasPrefix(first, "MIG-") {
		// The facts keep no UUIDs to compare with: whether it names a
		// present GPU is unknown, and no cause is named.
		return ""
	}
	return "not an index or a UUID: CUDA sees no device"
}

// hiddenGPUs: GPUs are present but a variable hides every one of them
// from the CUDA frameworks installed. A warning from the files (a CPU
// run may be meant); the runtime's "sees no GPU" makes it an error
// (sees).
func (v *verifier) hiddenGPUs(fws []*framework) {
	h, ok := v.hiddenBy()
	if !ok || len(v.f.GPUs) == 0 {
		return
	}
	var cudaFW []string
	for _, fw := range fws {
		if fw.cuda != "" {
			cudaFW = append(cudaFW, fw.label)
		}
	}
	if len(cudaFW) == 0 {
		return
	}
	v.add(findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevWarning,
		Message: fmt.Sprintf("%s hides every GPU from CUDA programs: %s will see no GPU although %s is present",
			h.name, strings.Join(cudaFW, ", "), v.f.GPUs[0].Name),
		Evidence: []string{h.evidence(), "GPU 0: " + v.f.GPUs[0].Name},
		Fix:      visibleFix(h)})
}

func visibleFix(h hidingVar) string {
	if h.name == "NVIDIA_VISIBLE_DEVICES" {
		return "start the container with the GPU (docker run --gpus all, or NVIDIA_VISIBLE_DEVICES=all); on Kubernetes request nvidia.com/gpu"
	}
	return fmt.Sprintf("unset %s (or set it to the GPUs to use, e.g. %s=0)", h.name, h.name)
}
