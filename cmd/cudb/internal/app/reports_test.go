package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The acceptance of "logs are answers" and of the report readers, through
// the real command tree. Each input is trimmed from the public thread
// named beside it.

func writeReport(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerifyTFPluginLogIsHealthy: a TensorFlow start-up log of a working
// host, pasted alone, is read and answered "nothing wrong found", exit 0.
func TestVerifyTFPluginLogIsHealthy(t *testing.T) {
	// kr-colab/ReLERNN#63
	p := writeReport(t, `2025-02-09 09:37:32.334610: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered
2025-02-09 09:37:32.334667: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered
2025-02-09 09:37:32.335925: E external/local_xla/xla/stream_executor/cuda/cuda_blas.cc:1515] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered
2025-02-09 09:37:32.343117: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
To enable the following instructions: AVX2 AVX512F FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2025-02-09 09:37:33.337631: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT
`)
	code, out, stderr := run(t, false, "verify", "--from", p)
	if code != 0 || !strings.Contains(out, "nothing wrong found in what was read") || !strings.Contains(out, "read: "+p) {
		t.Fatalf("exit %d, stderr %q:\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "seen: log: Unable to register cuDNN factory") {
		t.Errorf("the lines read are not listed:\n%s", out)
	}
	// a log that holds an error line is still judged
	p2 := writeReport(t, "2025-02-09 09:37:33.337631: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n")
	if code, out, _ := run(t, false, "verify", "--from", p2); code != 3 || strings.Contains(out, "nothing wrong found") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// text in which nothing is recognised is still refused
	p3 := writeReport(t, "hello there\nthis is a poem about spring\n")
	if code, _, stderr := run(t, false, "verify", "--from", p3); code != 2 || !strings.Contains(stderr, "nothing recognisable") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestExplainNCCLSystemError: NCCL's "unhandled system error" names a
// cause and a fix, exit 0.
func TestExplainNCCLSystemError(t *testing.T) {
	code, out, stderr := run(t, false, "explain", "NCCL error: unhandled system error")
	if code != 0 || !strings.Contains(out, "not_a_version_problem") || !strings.Contains(out, "fix:") || !strings.Contains(out, "NCCL_DEBUG=INFO") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, stderr, out)
	}
}

// TestVerifyORTBothPackages: a pip list with onnxruntime and
// onnxruntime-gpu names the conflict and the uninstall line.
func TestVerifyORTBothPackages(t *testing.T) {
	// microsoft/onnxruntime#23736
	p := writeReport(t, `UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'
Package                  Version
------------------------ --------------
numpy                    1.26.4
nvidia-cudnn-cu12        9.1.0.70
onnx                     1.17.0
onnxruntime              1.19.0
onnxruntime-gpu          1.19.0
`)
	code, out, stderr := run(t, false, "verify", "--from", p)
	if code != 3 || !strings.Contains(out, "[multiple_cuda_libs_conflict] onnxruntime 1.19.0 and onnxruntime-gpu 1.19.0 are both installed") ||
		!strings.Contains(out, "fix:  pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu==1.19.0") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, stderr, out)
	}
}

// TestExplainONNXIRVersion: the real line of an ONNX Runtime 1.30 host
// (shared fixtures, faults/ort_cuda.stderr.txt) is explained from ONNX
// Runtime's published IR table.
func TestExplainONNXIRVersion(t *testing.T) {
	code, out, stderr := run(t, false, "explain", "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Unsupported model IR version: 14, max supported IR version: 13")
	if code != 0 || !strings.Contains(out, "model_format_unsupported") || !strings.Contains(out, "IR version 14") || !strings.Contains(out, "fix:") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, stderr, out)
	}
}
