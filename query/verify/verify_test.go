package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// verifyCase builds facts for one environment with torch installed.
func torchHost(torch, cuda, variant, py string) *host.Snapshot {
	return &host.Snapshot{Origin: host.OriginHost,
		Driver: &host.Driver{Version: "550.90.07", Source: "sys_module"},
		GPUs:   []host.GPU{{Index: 0, Name: "NVIDIA H100 80GB HBM3", ComputeCapability: "9.0", Source: "nvidia_smi_query"}},
		Pythons: []host.Python{{Prefix: "/venv", Kind: host.KindVenv, Version: py,
			Torch: &host.Torch{Version: torch, CUDA: cuda, Variant: variant, Source: "version_py"}}}}
}

type wantFinding struct {
	category, severity string
	words              []string // in message or fix
}

func checkFindings(t *testing.T, name string, r *Result, want []wantFinding) {
	t.Helper()
	if len(r.Findings) != len(want) {
		t.Errorf("%s: %d findings, want %d: %+v", name, len(r.Findings), len(want), r.Findings)
		return
	}
	for i, w := range want {
		f := r.Findings[i]
		if f.Category != w.category || f.Severity != w.severity {
			t.Errorf("%s: finding %d is %s/%s, want %s/%s (%s)", name, i, f.Category, f.Severity, w.category, w.severity, f.Message)
		}
		for _, word := range w.words {
			if !strings.Contains(f.Message+" | "+f.Fix, word) {
				t.Errorf("%s: finding %d lacks %q: %s | %s", name, i, word, f.Message, f.Fix)
			}
		}
	}
	errs := 0
	for _, w := range want {
		if w.severity == findings.SevError {
			errs++
		}
	}
	if r.Summary.Errors != errs || r.Summary.Healthy != (errs == 0) {
		t.Errorf("%s: summary %+v", name, r.Summary)
	}
}

// TestVerifyRules: one host per rule, judged against the embedded data.
func TestVerifyRules(t *testing.T) {
	d := querytest.Embedded(t)
	for _, tc := range []struct {
		name  string
		facts func() *host.Snapshot
		want  []wantFinding
	}{
		{"healthy", func() *host.Snapshot { return torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9") }, nil},
		{"minor-compat is info, never an error", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Driver.Version = "525.147.05"
			return f
		}, []wantFinding{{findings.CatDriverTooOld, findings.SevInfo, []string{"minor-version compatibility", "530.30.02"}}}},
		{"driver below the minor-compat floor", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Driver.Version = "470.82.01"
			return f
		}, []wantFinding{{findings.CatDriverTooOld, findings.SevError, []string{"525.60.13", "pip install torch==2.4.0+cu118"}}}},
		{"WSL2: a Windows driver judged by the Windows floors (minor-compat info)", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Driver = &host.Driver{Version: "528.33", Source: "nvidia_smi", WSL: true}
			return f
		}, []wantFinding{{findings.CatDriverTooOld, findings.SevInfo, []string{"minor-version compatibility", "531.14"}}}},
		{"WSL2: a Windows driver below the Windows 12.x floor", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Driver = &host.Driver{Version: "516.94", Source: "nvidia_smi", WSL: true}
			return f
		}, []wantFinding{{findings.CatDriverTooOld, findings.SevError, []string{"527.41", "on the Windows host", "pip install torch==2.4.0+cu118"}}}},
		{"driver CUDA from nvidia-smi below the build's major", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Driver = nil
			f.DriverCUDA = &host.DriverCUDA{Version: "11.8", Source: "nvidia_smi_banner"}
			return f
		}, []wantFinding{{findings.CatDriverTooOld, findings.SevError, []string{"up to 11.8", "530.30.02"}}}},
		{"same-major SASS is info", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.GPUs[0] = host.GPU{Name: "NVIDIA L4", ComputeCapability: "8.9"}
			return f
		}, []wantFinding{{findings.CatArchUnsupported, findings.SevInfo, []string{"sm_86"}}}},
		{"PTX JIT is a warning", func() *host.Snapshot {
			f := torchHost("1.0.0", "10.0", "cu100", "3.7.3")
			f.GPUs[0] = host.GPU{Name: "NVIDIA GeForce RTX 3090", ComputeCapability: "8.6"}
			return f
		}, []wantFinding{{findings.CatArchUnsupported, findings.SevWarning, []string{"compute_50", "JIT"}}}},
		{"GPU name mapped through the table", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.GPUs[0] = host.GPU{Name: "NVIDIA GeForce RTX 5090", Source: "proc_gpus"}
			return f
		}, []wantFinding{{findings.CatArchUnsupported, findings.SevError, []string{"sm_120", "2.7.0 (cu128)", "pip install torch=="}}}},
		{"unknown GPU", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.GPUs[0] = host.GPU{Name: "Mystery Accelerator 9000", Source: "proc_gpus"}
			return f
		}, []wantFinding{{findings.CatUnknownVersion, findings.SevInfo, []string{"Mystery Accelerator 9000"}}}},
		{"python outside the build's range", func() *host.Snapshot { return torchHost("2.4.0+cu121", "12.1", "cu121", "3.13.1") },
			[]wantFinding{{findings.CatPythonUnsupported, findings.SevError, []string{"3.8-3.12", "3.13.1", "pip install torch=="}}}},
		{"toolkit of another major", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Toolkits = []host.Toolkit{{Path: "/usr/local/cuda-11.8", Version: "11.8", Source: "version_json", Nvcc: true, OnPath: true}}
			return f
		}, []wantFinding{{findings.CatToolkitMismatch, findings.SevWarning, []string{"11.8", "cuda-toolkit=12.1"}}}},
		{"unknown torch version", func() *host.Snapshot { return torchHost("9.9.9+cu999", "99.9", "cu999", "3.11.9") },
			[]wantFinding{{findings.CatUnknownVersion, findings.SevWarning, []string{"torch 9.9.9+cu999", "not in the database"}},
				{findings.CatUnknownVersion, findings.SevInfo, []string{"no driver floor is known for CUDA 99.9"}}}},
		{"no GPU with a CUDA build", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.GPUs = nil
			f.Notes = []host.Note{{Probe: "nvidia-smi", Message: "nvidia-smi exited with status 6: No devices were found"}}
			return f
		}, []wantFinding{{findings.CatNoGPUVisible, findings.SevError, []string{"No devices were found", "torch 2.4.0+cu121"}}}},
		{"newer cuDNN minor of the same major first is a warning", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.LDLibraryPath = []string{"/opt/cudnn/lib"}
			f.CUDNN = []host.CUDNN{{Path: "/opt/cudnn/lib/libcudnn.so.9.3.0", Version: "9.3.0", Major: 9, Source: host.CUDNNLDLibraryPath},
				{Path: "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", Version: "9.1.0", Major: 9, Source: host.CUDNNPip, Env: "/venv"}}
			return f
		}, []wantFinding{{findings.CatCUDNNMismatch, findings.SevWarning, []string{"9.3.0"}}, {findings.CatMultipleCUDALibs, findings.SevWarning, []string{"/opt/cudnn/lib"}}}},
		// libcudnn.so.8 is not libcudnn.so.9: the system copy is another
		// library; what is wrong is that the pinned wheel is absent.
		{"cuDNN of another major, pinned wheel absent", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.CUDNN = []host.CUDNN{{Path: "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", Version: "8.9.7", Major: 8, Source: host.CUDNNLdconfig}}
			return f
		}, []wantFinding{{findings.CatCUDNNMissing, findings.SevError, []string{"libcudnn.so.9", "another library", "nvidia-cudnn-cu12==9.1.0.70"}}}},
		{"a TF CPU build on a GPU host", func() *host.Snapshot {
			no := false
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Pythons[0].Torch = nil
			f.Pythons[0].TensorFlow = &host.TensorFlow{Version: "2.15.0", IsGPU: &no, Source: "build_info_py"}
			return f
		}, []wantFinding{{findings.CatCPUOnlyWheel, findings.SevError, []string{"tensorflow 2.15.0", `pip install "tensorflow[and-cuda]==2.15.0"`}}}},
		{"a report without hardware judges only the build", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Origin, f.Driver, f.GPUs = "report:pip_freeze", nil, nil
			return f
		}, nil},
		{"error lines fold into findings", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Origin = "report:collect_env+errors"
			f.Errors = []string{"AssertionError: Torch not compiled with CUDA enabled"}
			return f
		}, []wantFinding{{findings.CatCPUOnlyWheel, findings.SevError, []string{"CPU-only"}}}},
		{"probe timeout note", func() *host.Snapshot {
			f := torchHost("2.4.0+cu121", "12.1", "cu121", "3.11.9")
			f.Notes = []host.Note{{Probe: "nvidia-smi", Message: "nvidia-smi did not answer within 3s (a wedged GPU or driver makes it hang); its facts are missing"}}
			return f
		}, []wantFinding{{findings.CatProbeIncomplete, findings.SevWarning, []string{"did not answer within 3s"}}}},
	} {
		r, err := Verify(context.Background(), d, tc.facts())
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		checkFindings(t, tc.name, r, tc.want)
	}
}

func TestVerifyNilFacts(t *testing.T) {
	r, err := Verify(context.Background(), querytest.Embedded(t), nil)
	if err != nil || !r.Summary.Healthy || r.Findings == nil {
		t.Fatalf("%v %+v", err, r)
	}
}
