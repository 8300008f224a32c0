// Package findings is the one findings model verify and check share: the
// categories a finding falls in, the severities (most serious first), a
// host finding, the summary that counts them and the verdict it words.
// verify fills it for a host (probed or reported), check for the host a
// project file builds; neither imports the other (internal/layout), and
// the use cases put them together.
package findings

import (
	"sort"

	"github.com/cudb/cudb/query"
)

// Finding categories (docs/verify.md).
const (
	CatDriverTooOld      = "driver_too_old"
	CatCUDNNMismatch     = "cudnn_version_mismatch"
	CatCUDNNMissing      = "cudnn_missing"
	CatToolkitMismatch   = "cuda_toolkit_mismatch"
	CatArchUnsupported   = "gpu_arch_unsupported"
	CatCPUOnlyWheel      = "cpu_only_wheel"
	CatMultipleCUDALibs  = "multiple_cuda_libs_conflict"
	CatPythonUnsupported = "python_unsupported"
	CatNoGPUVisible      = "no_gpu_visible"
	CatUnknownVersion    = "unknown_version"
	CatProbeIncomplete   = "probe_incomplete"
	// CatNotVersion: the error is real but no version choice causes or
	// fixes it (out of memory, a bad index in a kernel).
	CatNotVersion = "not_a_version_problem"
	// CatModelUnsupported: the runtime is older than the model file it is
	// given (an ONNX IR version or opset it does not implement).
	CatModelUnsupported = "model_format_unsupported"
)

// Severities, most serious first.
const (
	SevError   = "error"
	SevWarning = "warning"
	SevInfo    = "info"
)

// Categories lists every host finding category, for documentation and
// metrics (check adds its own about project files).
var Categories = []string{CatDriverTooOld, CatCUDNNMismatch, CatCUDNNMissing, CatToolkitMismatch, CatArchUnsupported,
	CatCPUOnlyWheel, CatMultipleCUDALibs, CatPythonUnsupported, CatNoGPUVisible, CatUnknownVersion, CatProbeIncomplete, CatNotVersion, CatModelUnsupported}

// Severities lists the severities, most serious first.
var Severities = []string{SevError, SevWarning, SevInfo}

// Rank is a severity's place in Severities (0 most serious); an unknown
// one ranks last.
func Rank(severity string) int {
	for i, x := range Severities {
		if x == severity {
			return i
		}
	}
	return len(Severities)
}

// Finding is one judgement about a host.
type Finding struct {
	Category string `json:"category"`
	Severity string `json:"severity"`
	// Status is incompatible (an error: it fails or will), unknown (a
	// fact the judgement needs is missing; Unknown names it) or ok.
	Status  string   `json:"status"`
	Unknown []string `json:"unknown"`
	Message string   `json:"message"`
	// Evidence are the facts the finding rests on, as "what: value".
	Evidence []string `json:"evidence"`
	// Fix is an exact command or pin; empty only for infos that need none.
	Fix     string            `json:"fix,omitempty"`
	Sources []query.SourceRef `json:"sources"`
}

// Sort orders host findings most serious first, keeping the order of
// findings of one severity.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return Rank(fs[i].Severity) < Rank(fs[j].Severity) })
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int  `json:"errors"`
	Warnings int  `json:"warnings"`
	Infos    int  `json:"infos"`
	Healthy  bool `json:"healthy"`
}

// Count adds one finding of severity to s; Healthy stays true while no
// error was counted.
func (s *Summary) Count(severity string) {
	switch severity {
	case SevError:
		s.Errors++
	case SevWarning:
		s.Warnings++
	default:
		s.Infos++
	}
	s.Healthy = s.Errors == 0
}

// Summarize counts host findings.
func Summarize(fs []Finding) Summary {
	s := Summary{Healthy: true}
	for _, f := range fs {
		s.Count(f.Severity)
	}
	return s
}

// NothingWrong is the verdict on input in which nothing failed: no error
// and no warning among what was read (a report lists what was read).
const NothingWrong = "nothing wrong found in what was read"

// Verdict says in words what a summary means: NothingWrong when it has
// no error and no warning, else "".
func Verdict(s Summary) string {
	if s.Errors == 0 && s.Warnings == 0 {
		return NothingWrong
	}
	return ""
}
