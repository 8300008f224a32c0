package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// TestExplainMessages: each error message frameworks and tools print maps
// to its category, severity and a fix drawn from the embedded database.
func TestExplainMessages(t *testing.T) {
	d := querytest.Embedded(t)
	for _, tc := range []struct {
		text     string
		category string
		severity string
		msg, fix []string // substrings
	}{
		{"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver",
			findings.CatDriverTooOld, findings.SevError, []string{"CUDA up to 11.4"}, []string{">= 525.60.13", "cu118", "pip install torch=="}},
		{"RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
			findings.CatDriverTooOld, findings.SevError, []string{"older than the CUDA runtime"}, []string{"cudb resolve torch --driver"}},
		{"RuntimeError: CUDA error: no kernel image is available for execution on the device",
			findings.CatArchUnsupported, findings.SevError, []string{"no kernel"}, []string{"cudb resolve torch --gpu"}},
		{"NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
			findings.CatArchUnsupported, findings.SevError, []string{"sm_120", "the first torch with sm_120 is 2.7.0 (cu128)"}, []string{"pip install torch=="}},
		{"RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 5, 0).",
			findings.CatCUDNNMismatch, findings.SevError, []string{"cuDNN 8.9.2", "8.5.0"}, []string{"unset LD_LIBRARY_PATH", "nvidia-cudnn-cu12==8.9.2.26"}},
		{"E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.",
			findings.CatCUDNNMismatch, findings.SevError, []string{"built with cuDNN 8.6.0", "loaded cuDNN 8.1.0"}, []string{"8.6"}},
		{"W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory",
			findings.CatCUDNNMissing, findings.SevError, []string{"libcudnn.so.8", "cuDNN 8"}, []string{"libcudnn8", "tensorflow[and-cuda]"}},
		{"ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
			findings.CatCUDNNMissing, findings.SevError, []string{"libcudnn.so.9"}, []string{"pip install \"nvidia-cudnn-cu", "==9."}},
		{"ImportError: /venv/lib/python3.11/site-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
			findings.CatMultipleCUDALibs, findings.SevError, []string{"libnvJitLink.so.12", "CUDA 12.1"}, []string{"nvidia-nvjitlink-cu12>=12.1", "unset LD_LIBRARY_PATH"}},
		{"RuntimeError: The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.7). Please make sure to use the same CUDA versions.",
			findings.CatToolkitMismatch, findings.SevError, []string{"12.1", "11.7"}, []string{"CUDA_HOME=/usr/local/cuda-11.7", "pip install torch=="}},
		{"docker: Error response from daemon: failed to create task for container: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version",
			findings.CatDriverTooOld, findings.SevError, []string{"CUDA >= 12.8"}, []string{">= 570.26", "NVIDIA_DISABLE_REQUIRE=1", ">= 525.60.13"}},
		{"AssertionError: Torch not compiled with CUDA enabled",
			findings.CatCPUOnlyWheel, findings.SevError, []string{"CPU-only"}, []string{"pip uninstall -y torch", "pip install torch=="}},
		{"RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.",
			findings.CatNoGPUVisible, findings.SevError, []string{"cannot initialise"}, []string{"modprobe nvidia_uvm"}},
		{"RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation cuInit(0) failed\nOutdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: 8900\nInstalled version: 8600\nThe local installation version must be no lower than 8900.",
			findings.CatCUDNNMismatch, findings.SevError, []string{">= 8.9.0", "8.6.0"}, []string{"nvidia-cudnn-cu12>=8.9"}},
		{"No devices were found", findings.CatNoGPUVisible, findings.SevError, []string{"sees no GPU"}, []string{"nvidia-smi -L"}},
		{"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
			findings.CatNoGPUVisible, findings.SevError, []string{"cannot talk"}, []string{"modprobe nvidia"}},
	} {
		fs, err := Explain(context.Background(), d, tc.text)
		if err != nil {
			t.Errorf("%.50q: %v", tc.text, err)
			continue
		}
		f := fs[0]
		if len(fs) != 1 || f.Category != tc.category || f.Severity != tc.severity {
			t.Errorf("%.50q: got %d findings, first %s/%s, want one %s/%s", tc.text, len(fs), f.Category, f.Severity, tc.category, tc.severity)
			continue
		}
		for _, s := range tc.msg {
			if !strings.Contains(f.Message, s) {
				t.Errorf("%.50q: message %q lacks %q", tc.text, f.Message, s)
			}
		}
		for _, s := range tc.fix {
			if !strings.Contains(f.Fix, s) {
				t.Errorf("%.50q: fix %q lacks %q", tc.text, f.Fix, s)
			}
		}
		if len(f.Evidence) == 0 || !strings.HasPrefix(f.Evidence[0], "message: ") {
			t.Errorf("%.50q: evidence %q", tc.text, f.Evidence)
		}
	}
}

func TestExplainUnknownAndEmpty(t *testing.T) {
	d := querytest.Embedded(t)
	if _, err := Explain(context.Background(), d, "all good"); errs.CodeOf(err) != errs.CodeNotFound {
		t.Errorf("unknown text: %v", err)
	}
	if _, err := Explain(context.Background(), d, "  "); errs.CodeOf(err) != errs.CodeUsage {
		t.Errorf("empty text: %v", err)
	}
}

// TestExplainSpecificBeatsGeneric: the sm_ warning and "no kernel image"
// in one paste are one cause.
func TestExplainSpecificBeatsGeneric(t *testing.T) {
	fs, err := Explain(context.Background(), querytest.Embedded(t), "GPU with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nRuntimeError: CUDA error: no kernel image is available for execution on the device")
	if err != nil || len(fs) != 1 || !strings.Contains(fs[0].Message, "sm_120") {
		t.Fatalf("%v %+v", err, fs)
	}
}

func TestCUDNNFromInt(t *testing.T) {
	for in, want := range map[string]string{"8907": "8.9.7", "90100": "9.1.0", "8500": "8.5.0", "91501": "9.15.1", "7102": "7.1.2"} {
		if got := cudnnFromInt(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
