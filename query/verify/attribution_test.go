package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// TestLineFramework: a log line is attributed to the framework that
// printed it; JAX's vendored XLA paths are JAX's, not TensorFlow's.
func TestLineFramework(t *testing.T) {
	cases := map[string]string{
		// jax-ml/jax#6799 (jaxlib 0.1.67 vendored TensorFlow's XLA)
		"2021-05-20 10:09:06.617783: E external/org_tensorflow/tensorflow/stream_executor/gpu/asm_compiler.cc:93] You are using ptxas 8.x, but TF requires ptxas 9.x": "JAX",
		// jax-ml/jax#19821
		"2024-02-15 14:18:20.201828: W external/xla/xla/service/gpu/nvptx_compiler.cc:744] The NVIDIA driver's CUDA version is 12.2": "JAX",
		// tensorflow/tensorflow#64809
		"2024-03-30 14:29:58.691384: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory": "TensorFlow",
		// NVIDIA/nccl#934
		"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1347, remote process exited": "PyTorch",
		// commaai/openpilot#31708
		"[W:onnxruntime:Default, onnxruntime_pybind_state.cc:861 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider.": "ONNX Runtime",
		"RuntimeError: CUDA error: no kernel image is available for execution on the device":                                               "",
		// shared/fixtures/gpu-h100-2026-11/faults/ort_cuda.stderr.txt: a venv under /opt/torch
		"/opt/torch/.venv/lib/python3.12/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py:197: UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.": "ONNX Runtime",
		// jax-ml/jax#20722
		"CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation gpuDeviceGetAttribute failed": "JAX",
	}
	for line, want := range cases {
		if got := lineFramework(frameworks.All, line); got != want {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
}

// TestExplainedFindingsNameTheirFramework: a JAX report's XLA cuDNN line
// is JAX's (jax-ml/jax#15268), not TensorFlow's.
func TestExplainedFindingsNameTheirFramework(t *testing.T) {
	x, err := ExplainAll(context.Background(), querytest.Embedded(t), "E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor version.")
	if err != nil || len(x.Findings) != 1 {
		t.Fatalf("%v %+v", err, x)
	}
	f := x.Findings[0]
	if !contains(f.Evidence, "framework: JAX (its log line)") || strings.Contains(f.Message, "TensorFlow was built") {
		t.Errorf("%+v", f)
	}
}

// TestProvidersListWithoutCUDA: a printed providers list without CUDA is
// read (yakhyo/uniface#77 prints it after "Available providers:"), but a
// providers argument the user chose (onnxruntime.InferenceSession(...,
// providers=['CPUExecutionProvider'])) is code, not a symptom.
func TestProvidersListWithoutCUDA(t *testing.T) {
	d := querytest.Embedded(t)
	x, err := ExplainAll(context.Background(), d, "Available providers: ['AzureExecutionProvider', 'CPUExecutionProvider']")
	if err != nil || len(x.Findings) != 1 || x.Findings[0].Category != findings.CatCPUOnlyWheel {
		t.Errorf("%v %+v", err, x)
	}
	if x, err := ExplainAll(context.Background(), d, "sess = ort.InferenceSession(path, providers=['CPUExecutionProvider'])"); err == nil {
		t.Errorf("a providers argument was explained: %+v", x.Findings)
	}
}

// TestHarmlessLinesDoNotCrowdOut: a long log of a working host's normal
// lines (each distinct by its timestamp) does not use up the explained
// lines, so the real error at its end is still explained.
func TestHarmlessLinesDoNotCrowdOut(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2*MaxExplainedLines; i++ {
		// billwuhao/ComfyUI_StepAudioTTS#22 prints this once per run
		fmt.Fprintf(&b, "2025-03-29 01:50:%02d.%07d [W:onnxruntime:, transformer_memcpy.cc:83 onnxruntime::MemcpyTransformer::ApplyImpl] 10 Memcpy nodes are added to the graph main_graph for CUDAExecutionProvider. It might have negative impact on performance (including unable to run CUDA graph).\n", i%60, i)
	}
	b.WriteString("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
	x, err := ExplainAll(context.Background(), querytest.Embedded(t), b.String())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range x.Findings {
		found = found || f.Category == findings.CatArchUnsupported
	}
	if !found || x.Skipped != 0 {
		t.Errorf("skipped %d, findings %+v", x.Skipped, x.Findings)
	}
}
