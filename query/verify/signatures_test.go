package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// signatureCases holds, per signature, a message as frameworks and tools
// print it (from public issues; the thread is named where the text comes
// from one).
var signatureCases = map[string]string{
	// Tencent-Hunyuan/HunyuanVideo#114
	"nccl_system_error": "[rank0]: RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)",
	// fanq15/FewX#74
	"nccl_unhandled_cuda_error": "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, unhandled cuda error, NCCL version 2.4.8",
	// NVIDIA/nccl#934
	"nccl_remote_process_exited": "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1347, remote process exited or there was a network error, NCCL version 2.18.5",
	// tensorflow/tensorflow#97387 (title)
	"tf_no_kernel_binaries": "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0 CUDA_ERROR_INVALID_HANDLE",
	// tensorflow/tensorflow#99592
	"cuda_invalid_ptx": "W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'",
	// tensorflow/tensorflow#17445
	"tf_ignoring_gpu_capability": "2018-03-05 13:43:54.533246: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1283] Ignoring visible gpu device (device: 0, name: Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
	// shared/fixtures/gpu-h100-2026-11/faults/ort_cuda.stderr.txt (onnxruntime 1.30.0 on an H100 host)
	"ort_ir_version_unsupported": "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : /onnxruntime_src/onnxruntime/core/graph/model.cc:202 onnxruntime::Model::Model(onnx::ModelProto&&, const onnxruntime::PathString&, const onnxruntime::IOnnxRuntimeOpSchemaRegistryList*, const onnxruntime::logging::Logger&, const onnxruntime::ModelOptions&) Unsupported model IR version: 14, max supported IR version: 13",
	// vespa-engine/vespa#28161 (title)
	"ort_opset_unsupported": `bge-small-en ONNX component fails to load with "Opset 19 is under development"`,
	// commaai/openpilot#31708
	"ort_create_cuda_provider_failed": "2024-03-05 11:40:14.847815005 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:861 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirementsto ensure all dependencies are met.",
	// jax-ml/jax#19821
	"xla_driver_older_than_ptxas": "2024-02-15 14:18:20.201828: W external/xla/xla/service/gpu/nvptx_compiler.cc:744] The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version (12.3.107). Because the driver is older than the ptxas version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.",
	// jax-ml/jax#6799
	"ptxas_unsupported_version": "ptx to sass: 'Internal: ptxas exited with non-zero error code 65280, output: ptxas /tmp/tempfile-kinsler-56b28778-3690660-5c2bf4b9c1e23, line 5; fatal   : Unsupported .version 6.0; current version is '5.0'",
	// openxla/xla#5932
	"xla_ptxas_too_old": "2023-09-26 23:49:25.317533: W external/xla/xla/stream_executor/gpu/redzone_allocator.cc:322] UNIMPLEMENTED: ptxas ptxas too old. Falling back to the driver to compile.",
	// talmolab/sleap-nn#479 (merged: the marker gained AMD64)
	"uv_cuda_index_linux_only": `{ index = "pytorch-cu128", extra = "torch-cuda128", marker = "platform_machine == 'x86_64' and sys_platform != 'darwin'" }`,
	// google-research/maxim#32 (fixed by installing the right JAX release)
	"jax_backend_cuda_unable": "I1025 08:07:07.369699 139768635004736 xla_bridge.py:357] Unable to initialize backend 'cuda': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'",
	// shared/fixtures/gpu-h100-2026-11/onnxruntime-info.txt (version, providers, device)
	"ort_providers_without_cuda": "1.30.0 ['AzureExecutionProvider', 'CPUExecutionProvider'] CPU",
	// tensorflow/tensorflow#64809
	"tf_factory_registration": "2024-03-30 14:29:58.691384: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
	// kr-colab/ReLERNN#63
	"tf_trt_not_found":     "2025-02-09 09:37:33.337631: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
	"tf_numa_node":         "2025-02-09 09:37:34.496341: I external/local_xla/xla/stream_executor/cuda/cuda_executor.cc:901] successful NUMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero.",
	"tf_cpu_feature_guard": "2025-02-09 09:37:32.343117: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.",
	// billwuhao/ComfyUI_StepAudioTTS#28
	"ort_memcpy_nodes": "2025-05-07 09:14:14.906816010 [W:onnxruntime:, transformer_memcpy.cc:83 ApplyImpl] 10 Memcpy nodes are added to the graph main_graph for CUDAExecutionProvider. It might have negative impact on performance (including unable to run CUDA graph). Set session_options.log_severity_level=1 to see the detail logs before this message.",
	// jax-ml/jax#12335 (the plain jax.default_backend() returned gpu)
	"jax_other_backend_missing": `RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: "rocm". Available platform names are: Interpreter CUDA Host`,
	// lllyasviel/Fooocus#1313
	"torch_driver_too_old_found": "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",
	// rikdz/GraphWriter#6 (title)
	"torch_driver_too_old": "ERROR:The NVIDIA driver on your system is too old",
	// NVIDIA/nvidia-docker#1442
	"container_cli_cuda_requirement": "stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.0, please update your driver to a newer version, or use an earlier cuda container: unknown.",
	// Chia-Network/bladebit#431
	"cuda_driver_insufficient":   " CUDA error: 35 (0x23) cudaErrorInsufficientDriver : CUDA driver version is insufficient for CUDA runtime version",
	"ptx_unsupported_toolchain":  "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
	"forward_compat_unsupported": "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW",
	"system_not_yet_initialized": "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
	// facebookresearch/detectron2#3107
	"found_no_nvidia_driver": "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
	// lyulyul/shine-cluster#30
	"nvml_driver_library_mismatch": "Failed to initialize NVML: Driver/library version mismatch",
	"nvml_unknown_error":           "Failed to initialize NVML: Unknown Error",
	"docker_no_gpu_driver":         `docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].`,
	"nvidia_smi_failed":            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
	"no_devices_found":             "No devices were found",
	// the real H100 host of shared/fixtures/gpu-h100-2026-11, CUDA_VISIBLE_DEVICES=-1
	"torch_no_cuda_gpus":      "RuntimeError: No CUDA GPUs are available",
	"cuda_no_device":          "RuntimeError: CUDA error: no CUDA-capable device is detected",
	"cuinit_unknown_error":    "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (303)",
	"cuda_unknown_error":      "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.",
	"cuda_driver_init_failed": "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.",
	"dso_could_not_load":      "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory",
	// microsoft/onnxruntime-genai#694
	"shared_object_not_found": "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
	// tensorflow/tensorflow#61437
	"windows_dll_not_found": "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
	// daswer123/xtts-finetune-webui#31
	"cudnn_sublibrary_load":    "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory",
	"cudnn_unable_to_load_any": "Unable to load any of {libcudnn_cnn.so.9.1.0, libcudnn_cnn.so.9.1, libcudnn_cnn.so.9, libcudnn_cnn.so}",
	// tensorflow/tensorflow#5591
	"tf_couldnt_open_cuda_library": "I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH: ",
	"tf_unable_to_load_cudnn_dso":  "I tensorflow/stream_executor/cuda/cuda_dnn.cc:3448] Unable to load cuDNN DSO",
	"tf_cannot_dlopen":             "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU.",
	"tf_dnn_library_not_found":     "FAILED_PRECONDITION: DNN library is not found.",
	// jax-ml/jax#16082 (title)
	"xla_dnn_init_failed": "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.",
	// microsoft/onnxruntime#21684
	"ort_cuda_provider_load": "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory",
	// microsoft/onnxruntime#12488
	"ort_windows_provider_126": `[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load "D:\project\bin\Debug\netcoreapp3.1\runtimes\win-x64\native\onnxruntime_providers_cuda.dll"`,
	// jax-ml/jax#20722
	"jax_cuda_backend_failed": "CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation gpuDeviceGetAttribute( &major, GPU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) failed: CUDA_ERROR_NOT_INITIALIZED (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
	// bytedance/LatentSync#225
	"ort_cuda_provider_missing": "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
	"windows_winerror_126":      `OSError: [WinError 126] The specified module could not be found. Error loading "C:\Users\user\venv\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies.`,
	// RaleLee/Co-GAT#2
	"torch_cudnn_incompatibility": "cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 3, 3). PyTorch already comes bundled with cuDNN.",
	// xingyizhou/CenterNet#119
	"torch_cudnn_int_mismatch": "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7605",
	// jax-ml/jax#15268
	"tf_cudnn_loaded_runtime": "E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor version.",
	// conda-forge/jax-feedstock#149
	"jax_cudnn_outdated": "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:\nOutdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: 9100\nInstalled version: 8907\nThe local installation version must be no lower than 9100.",
	// MIT-REALM/gcbfplus#1
	"jax_cudnn_found_built":    "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is newer.",
	"jax_cuda_found_built":     "CUDA backend failed to initialize: Found cuSPARSE version 12103, but JAX was built against version 12200, which is newer. The copy of cuSPARSE that is installed must be at least as new as the version against which JAX was built.",
	"jax_unable_to_load_cudnn": "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
	// NVIDIA/TensorRT#2911
	"cudnn_status_not_initialized":  "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
	"cudnn_status_internal_error":   "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
	"cudnn_status_execution_failed": "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
	"cudnn_status_arch_mismatch":    "RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH",
	"cudnn_status_version_mismatch": "RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
	"tf_conv_algorithm":             "UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.",
	"cudnn_undefined_symbol":        "Could not load library libcudnn_cnn_infer.so.8. Error: /usr/local/lib/python3.10/dist-packages/nvidia/cudnn/lib/libcudnn_cnn_infer.so.8: undefined symbol: _ZN11nvrtcHelper4loadEb, version libcudnn_ops_infer.so.8",
	// QwenLM/Qwen#120
	"cublas_not_initialized":  "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
	"cublas_alloc_failed":     "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
	"cublas_execution_failed": "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
	"cublas_arch_mismatch":    "RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
	"cublas_invalid_value":    "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
	// pytorch/pytorch#111469
	"nvjitlink_undefined_symbol": "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
	"cuda_lib_undefined_symbol":  "OSError: /usr/local/lib/python3.8/dist-packages/torch/lib/../../nvidia/cublas/lib/libcublas.so.11: undefined symbol: cublasLtGetStatusString, version libcublasLt.so.11",
	"nccl_undefined_symbol":      "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
	// NVIDIA/nccl#1241 (title)
	"nccl_version_error": "NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, invalid usage, NCCL version 2.17.1 ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
	// Hellod035/LeggedLab#26
	"torch_sm_not_compatible": "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
	"torch_gpu_too_old":       "UserWarning: Found GPU0 Tesla K40c which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. The minimum cuda capability supported by this library is 3.7.",
	// shouxieai/tensorRT_Pro#162
	"no_kernel_image":         "[error][simple_yolo.cu:556]:launch failed: no kernel image is available for execution on the device",
	"invalid_device_function": "RuntimeError: CUDA error: invalid device function",
	"nvcc_unsupported_arch":   "nvcc fatal   : Unsupported gpu architecture 'compute_89'",
	// pytorch/pytorch#3717
	"torch_not_compiled_cuda": "AssertionError: Torch not compiled with CUDA enabled",
	// vllm-project/vllm#1453
	"torch_cuda_mismatch_extension": "The detected CUDA version (11.8) mismatches the version that was used to compile\nPyTorch (12.1). Please make sure to use the same CUDA versions.",
	"jax_cpu_fallback":              "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.",
	// tensorflow/tensorflow#62054
	"pip_no_matching_distribution": "ERROR: No matching distribution found for tensorflow",
	"cuda_out_of_memory":           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.83 GiB already allocated)",
	"illegal_memory_access":        "RuntimeError: CUDA error: an illegal memory access was encountered",
	"device_side_assert":           "RuntimeError: CUDA error: device-side assert triggered",
}

// TestSignatures: at least 60 signatures, each with a lookup and a real
// message that explain answers with its category, a message and a fix.
func TestSignatures(t *testing.T) {
	sigs := Signatures()
	if len(sigs) < 60 {
		t.Errorf("%d signatures, want >= 60", len(sigs))
	}
	d := querytest.Embedded(t)
	ids := map[string]bool{}
	for _, s := range sigs {
		if ids[s.ID] {
			t.Errorf("signature %s twice", s.ID)
		}
		ids[s.ID] = true
		if s.Lookup == "" || !contains(findings.Categories, s.Category) {
			t.Errorf("%s: lookup %q, category %q", s.ID, s.Lookup, s.Category)
		}
		text, ok := signatureCases[s.ID]
		if !ok {
			t.Errorf("%s: no test message", s.ID)
			continue
		}
		x, err := ExplainAll(context.Background(), d, text)
		if err != nil {
			t.Errorf("%s: %v", s.ID, err)
			continue
		}
		found := false
		for _, f := range x.Findings {
			if f.Category == s.Category && f.Message != "" && f.Fix != "" && strings.HasPrefix(f.Evidence[0], "message: ") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: %q gave %+v, want a %s finding with a fix", s.ID, text, x.Findings, s.Category)
		}
	}
	for id := range signatureCases {
		if !ids[id] {
			t.Errorf("test message for unknown signature %s", id)
		}
	}
}

// TestExplainBounded: repeated and numerous error lines cost one pass;
// beyond MaxExplainedLines the rest are counted, and a cancelled context
// stops the work.
func TestExplainBounded(t *testing.T) {
	d := querytest.Embedded(t)
	var b strings.Builder
	for i := 0; i < 80; i++ {
		b.WriteString("RuntimeError: CUDA error: no kernel image is available for execution on the device (case ")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString(")\n")
		b.WriteString("RuntimeError: CUDA error: no kernel image is available for execution on the device (case )\n")
	}
	x, err := ExplainAll(context.Background(), d, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if x.Lines != MaxExplainedLines || x.Skipped != 80-MaxExplainedLines || len(x.Findings) != 1 {
		t.Errorf("lines %d skipped %d findings %d", x.Lines, x.Skipped, len(x.Findings))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ExplainAll(ctx, d, b.String()); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("cancelled: %v", err)
	}
}

// TestExplainNormalises: typographic quotes, CRLF and ANSI colours do not
// hide a message, and the evidence keeps the closing quote.
func TestExplainNormalises(t *testing.T) {
	d := querytest.Embedded(t)
	fs, err := Explain(context.Background(), d, "\x1b[31mW dso_loader.cc:64] Could not load dynamic library \u2018libcudnn.so.8\u2019; dlerror: libcudnn.so.8: cannot open shared object file\x1b[0m\r\n")
	if err != nil || len(fs) != 1 || fs[0].Category != findings.CatCUDNNMissing {
		t.Fatalf("%v %+v", err, fs)
	}
	if !strings.Contains(fs[0].Evidence[0], "'libcudnn.so.8';") {
		t.Errorf("evidence %q lost the closing quote", fs[0].Evidence[0])
	}
}

// FuzzExplain: any text is explained without panic, within the line
// limit, with known categories, each finding citing the message it read.
func FuzzExplain(f *testing.F) {
	for _, s := range signatureCases {
		f.Add(s)
	}
	d := querytest.Embedded(f)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 64<<10 {
			return
		}
		x, err := ExplainAll(context.Background(), d, text)
		if err != nil {
			return
		}
		if x.Lines > MaxExplainedLines || x.Skipped < 0 {
			t.Fatalf("lines %d skipped %d", x.Lines, x.Skipped)
		}
		for _, fd := range x.Findings {
			if !contains(findings.Categories, fd.Category) || !strings.HasPrefix(fd.Evidence[0], "message: ") {
				t.Fatalf("finding %+v", fd)
			}
		}
	})
}

// TestSignatureDoc: docs/verify.md lists every signature with its
// category and lookup.
func TestSignatureDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("| signature | category | what makes the answer specific |\n|---|---|---|\n")
	for _, s := range Signatures() {
		b.WriteString("| `" + s.ID + "` | `" + s.Category + "` | " + strings.ReplaceAll(s.Lookup, "|", "\\|") + " |\n")
	}
	checkDocBlock(t, "<!-- signatures:start -->", "<!-- signatures:end -->", b.String())
}

// TestNvccArchLookup: the toolkit table makes the nvcc message specific
// (ztxz16/fastllm#367, pjreddie/darknet#2360).
func TestNvccArchLookup(t *testing.T) {
	d := querytest.Embedded(t)
	for text, want := range map[string]string{
		"nvcc fatal   : Unsupported gpu architecture 'compute_89'": "CUDA 11.8 is the first toolkit",
		"nvcc fatal : Unsupported GPU architecture 'compute_30'":   "only CUDA 8.0 to 10.2 compile for it",
	} {
		fs, err := Explain(context.Background(), d, text)
		if err != nil || len(fs) != 1 || !strings.Contains(fs[0].Message, want) {
			t.Errorf("%q: %v %+v, want %q", text, err, fs, want)
		}
	}
}
