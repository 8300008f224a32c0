package verify

import (
	"context"
	"regexp"
	"sync"

	"github.com/cudb/cudb/query/findings"
)

// signature is one error message family: how to recognise it (Key, a
// lowercase literal its first line must hold, then re over Span lines),
// what it means (Category, and fn's message), which data makes it
// specific (Lookup, for docs/verify.md) and the fix fn builds from it.
type signature struct {
	ID       string
	Category string
	Lookup   string
	Key      string
	Span     int
	re       *regexp.Regexp
	fn       func(e *explainCtx, ctx context.Context, m []string) (findings.Finding, error)
	// Harmless marks a normal log line of a working host: it is
	// explained, but it does not count against MaxExplainedLines, so a
	// long log of such lines never crowds out the one real error.
	Harmless bool
}

// Signature is the documented face of one signature.
type Signature struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Lookup   string `json:"lookup"`
}

// Signatures lists the error signatures explain knows, for docs and tests.
func Signatures() []Signature {
	var out []Signature
	for _, s := range signatures() {
		out = append(out, Signature{ID: s.ID, Category: s.Category, Lookup: s.Lookup})
	}
	return out
}

func sig(id, cat, lookup, key string, span int, re string, fn func(e *explainCtx, ctx context.Context, m []string) (findings.Finding, error)) signature {
	return signature{ID: id, Category: cat, Lookup: lookup, Key: key, Span: span, re: regexp.MustCompile(re), fn: fn}
}

// harmlessSig is a signature for a normal log line (see signature.Harmless).
func harmlessSig(id, key, re, msg string) signature {
	sg := sig(id, findings.CatNotVersion, lkNone, key, 1, re, harmless(msg))
	sg.Harmless = true
	return sg
}

const (
	lkNone      = "none: the message names no version"
	lkDriverMsg = "the newest CUDA major's minor-compatibility driver floor"
)

// The patterns match the stable core of each message loosely (case,
// spacing, optional quotes), since pastes reflow and shorten them. They
// compile on first use: every cudb command would pay for them at
// start-up otherwise.
var signatures = sync.OnceValue(func() []signature {
	return []signature{
		// --- driver ---------------------------------------------------------
		sig("torch_driver_too_old_found", findings.CatDriverTooOld, "found version N → CUDA N/1000.(N%1000)/10 → next major's driver floor, and the newest torch for the toolkit driver of that CUDA",
			"driver on your system is too old", 1, `(?i)NVIDIA driver on your system is too old \(found version (\d+)\)`, (*explainCtx).driverFoundVersion),
		sig("torch_driver_too_old", findings.CatDriverTooOld, lkDriverMsg,
			"driver on your system is too old", 1, `(?i)NVIDIA driver on your system is too old(?:\s*$|\s*[^\s(])`, (*explainCtx).driverInsufficient),
		sig("container_cli_cuda_requirement", findings.CatDriverTooOld, "cuda>=X.Y → that CUDA's Linux toolkit and minor-compatibility driver floors",
			"unsatisfied condition: cuda", 1, `(?i)(?:nvidia-container-cli: )?requirement error: unsatisfied condition: cuda\s*>=\s*(\d+\.\d+)`, (*explainCtx).containerCLI),
		sig("cuda_driver_insufficient", findings.CatDriverTooOld, lkDriverMsg,
			"insufficient", 1, `(?i)CUDA driver version is insufficient(?: for CUDA runtime version)?|cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER`, (*explainCtx).driverInsufficient),
		sig("ptx_unsupported_toolchain", findings.CatDriverTooOld, lkDriverMsg,
			"ptx", 1, `(?i)provided PTX was compiled with an unsupported toolchain|CUDA_ERROR_UNSUPPORTED_PTX_VERSION`, (*explainCtx).ptxToolchain),
		sig("forward_compat_unsupported", findings.CatDriverTooOld, lkNone,
			"forward compatibility", 1, `(?i)forward compatibility was attempted on non supported HW|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE`, (*explainCtx).forwardCompat),
		sig("system_not_yet_initialized", findings.CatNoGPUVisible, lkNone,
			"system not yet initialized", 1, `(?i)system not yet initialized|CUDA_ERROR_SYSTEM_NOT_READY`, (*explainCtx).fabricManager),
		sig("found_no_nvidia_driver", findings.CatNoGPUVisible, lkNone,
			"found no nvidia driver", 1, `(?i)Found no NVIDIA driver on your system`, (*explainCtx).noDriver),
		sig("nvml_driver_library_mismatch", findings.CatNoGPUVisible, lkNone,
			"driver/library version mismatch", 1, `(?i)Driver/library version mismatch`, (*explainCtx).nvmlMismatch),
		sig("nvml_unknown_error", findings.CatNoGPUVisible, lkNone,
			"failed to initialize nvml: unknown error", 1, `(?i)Failed to initialize NVML: Unknown Error`, (*explainCtx).nvmlUnknown),
		sig("docker_no_gpu_driver", findings.CatNoGPUVisible, lkNone,
			"could not select device driver", 1, `(?i)could not select device driver "[^"]*" with capabilities: \[\[gpu\]\]`, (*explainCtx).dockerNoToolkit),
		sig("nvidia_smi_failed", findings.CatNoGPUVisible, lkNone,
			"nvidia-smi has failed", 1, `(?i)NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver`, (*explainCtx).smiFailed),
		sig("no_devices_found", findings.CatNoGPUVisible, lkNone,
			"no devices were found", 1, `(?i)^(?:.*\s)?No devices were found\b`, (*explainCtx).noDevices),
		sig("torch_no_cuda_gpus", findings.CatNoGPUVisible, lkNone,
			"no cuda gpus are available", 1, `(?i)No CUDA GPUs are available`, (*explainCtx).noCUDADevice),
		sig("cuda_no_device", findings.CatNoGPUVisible, lkNone,
			"device", 1, `(?i)no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice`, (*explainCtx).noCUDADevice),
		sig("cuinit_unknown_error", findings.CatNoGPUVisible, lkNone,
			"cuinit", 1, `(?i)failed call to cuInit: (?:CUDA_ERROR_UNKNOWN|UNKNOWN ERROR)(?:[^(]*\((\d+)\))?`, (*explainCtx).cuInitUnknown),
		sig("cuda_unknown_error", findings.CatNoGPUVisible, lkNone,
			"cuda unknown error", 1, `(?i)CUDA unknown error - this may be due to an incorrectly set up environment`, (*explainCtx).cudaUnknown),
		sig("cuda_driver_init_failed", findings.CatNoGPUVisible, lkNone,
			"cuda driver initialization failed", 1, `(?i)CUDA driver initialization failed`, (*explainCtx).cudaUnknown),

		// --- libraries not found --------------------------------------------
		sig("dso_could_not_load", findings.CatCUDNNMissing, "the library's major → the newest nvidia-cudnn-cu* wheel pin of that cuDNN (cuDNN), or the CUDA major's libraries",
			"could not load dynamic library", 1, `(?i)Could not load dynamic library '?(lib[A-Za-z_]+)\.so(?:\.(\d+(?:\.\d+)*))?'?`, (*explainCtx).missingLib),
		sig("shared_object_not_found", findings.CatCUDNNMissing, "the library's major → the newest nvidia-cudnn-cu* wheel pin of that cuDNN (cuDNN), or the CUDA major's libraries",
			"cannot open shared object file", 1, `(?i)(lib[A-Za-z_]+)\.so(?:\.(\d+(?:\.\d+)*))?: cannot open shared object file`, (*explainCtx).missingLib),
		sig("windows_dll_not_found", findings.CatToolkitMismatch, "cudart64_110 → CUDA 11.0; cudnn64_8 → cuDNN 8 → the wheel pin",
			".dll", 1, `(?i)(?:Could not load dynamic library|Could not load library|Could not locate|Error loading|cannot load|could not find)\s+'?"?(?:[^'"\s]*[\\/])?(cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|cudnn|cudnn_ops_infer|cudnn_cnn_infer|cudnn_ops|cudnn_cnn|nvrtc|nvcuda|zlibwapi)(?:64)?(?:_(\d+))?(?:_0)?\.dll`, (*explainCtx).windowsDLL),
		sig("cudnn_sublibrary_load", findings.CatCUDNNMissing, "the sub-library's major → the newest nvidia-cudnn-cu* pin of it",
			"could not load library libcudnn", 1, `(?i)Could not load library (libcudnn\w*)\.so\.(\d+)`, (*explainCtx).missingLib),
		sig("cudnn_unable_to_load_any", findings.CatCUDNNMissing, "the sub-library's major → the newest nvidia-cudnn-cu* pin of it",
			"unable to load any of", 1, `(?i)Unable to load any of \{(libcudnn\w*)\.so\.(\d+)`, (*explainCtx).cudnnUnableAny),
		sig("tf_couldnt_open_cuda_library", findings.CatCUDNNMissing, "the library's major → the newest nvidia-cudnn-cu* wheel pin of that cuDNN (cuDNN), or the CUDA major's libraries",
			"couldn't open cuda library", 1, `(?i)Couldn't open CUDA library (lib[A-Za-z_]+)\.so(?:\.(\d+(?:\.\d+)*))?`, (*explainCtx).missingLib),
		sig("tf_unable_to_load_cudnn_dso", findings.CatCUDNNMissing, lkNone,
			"unable to load cudnn dso", 1, `(?i)Unable to load cuDNN DSO`, (*explainCtx).tfNoDNN),
		sig("tf_cannot_dlopen", findings.CatToolkitMismatch, "TensorFlow's tested CUDA/cuDNN per release (pip install tensorflow[and-cuda] brings them)",
			"cannot dlopen some gpu libraries", 1, `(?i)Cannot dlopen some GPU libraries`, (*explainCtx).tfDlopen),
		sig("tf_dnn_library_not_found", findings.CatCUDNNMissing, "TensorFlow's tested cuDNN per release",
			"dnn library is not found", 1, `(?i)DNN library is not found`, (*explainCtx).tfNoDNN),
		sig("xla_dnn_init_failed", findings.CatCUDNNMismatch, lkNone,
			"dnn library initialization failed", 1, `(?i)DNN library initialization failed`, (*explainCtx).xlaDNNInit),
		sig("ort_cuda_provider_load", findings.CatToolkitMismatch, "ONNX Runtime's CUDA/cuDNN major per release (one onnxruntime-gpu package per CUDA major)",
			"libonnxruntime_providers_cuda", 1, `(?i)Failed to load library (?:\S*[\\/])?(?:lib)?onnxruntime_providers_cuda\.(?:so|dll)`, (*explainCtx).ortProvider),
		sig("ort_windows_provider_126", findings.CatCUDNNMissing, "ONNX Runtime's CUDA/cuDNN major per release (cudb resolve onnxruntime-gpu==<version>)",
			"loadlibrary failed with error 126", 1, `(?i)LoadLibrary failed with error 126 [^\n]*onnxruntime_providers_cuda\.dll`, (*explainCtx).ortWindows126),
		sig("jax_cuda_backend_failed", findings.CatCPUOnlyWheel, "the jax[cudaN] extra for the driver's CUDA",
			"cuda backend failed to initialize", 1, `(?i)CUDA backend failed to initialize: ([^\n]*)`, (*explainCtx).jaxBackendFailed),
		sig("jax_backend_cuda_unable", findings.CatCPUOnlyWheel, "the jax[cudaN] extra for the driver's CUDA",
			"unable to initialize backend 'cuda'", 1, `(?i)Unable to initialize backend 'cuda':\s*([^\n]*)`, (*explainCtx).jaxBackendFailed),
		sig("ort_cuda_provider_missing", findings.CatCPUOnlyWheel, "none: the message names no version",
			"cudaexecutionprovider", 1, `(?i)CUDAExecutionProvider' is not in available provider names|Specified provider 'CUDAExecutionProvider' is not in available`, (*explainCtx).ortNoCUDA),
		sig("windows_winerror_126", findings.CatToolkitMismatch, lkNone,
			"winerror 126", 1, `(?i)\[WinError 126\][^\n]*?(?:Error loading "?[^"\n]*?([A-Za-z0-9_]+\.dll))?`, (*explainCtx).winError126),

		// --- cuDNN ------------------------------------------------------------
		sig("torch_cudnn_incompatibility", findings.CatCUDNNMismatch, "the compiled-against cuDNN → the newest nvidia-cudnn-cu* pin of it",
			"cudnn version incompatibility", 1, `(?i)cuDNN version incompatibility: PyTorch was compiled\s+against \((\d+),\s*(\d+),\s*(\d+)\) but (?:found runtime version|linked against) \((\d+),\s*(\d+),\s*(\d+)\)`, (*explainCtx).torchCUDNN),
		sig("torch_cudnn_int_mismatch", findings.CatCUDNNMismatch, "7102/7605 integers → cuDNN versions → the nvidia-cudnn-cu* pin of the compiled-against one",
			"pytorch was compiled", 1, `(?i)cuDNN version (?:mismatch|incompatibility): PyTorch was compiled\s+against (\d{4,5}) but linked against (\d{4,5})`, (*explainCtx).torchCUDNNInt),
		sig("tf_cudnn_loaded_runtime", findings.CatCUDNNMismatch, "the compiled-with cuDNN → the newest nvidia-cudnn-cu* pin of it",
			"loaded runtime cudnn library", 1, `(?i)Loaded runtime CuDNN library: (\d+(?:\.\d+)*) but source was compiled with: (\d+(?:\.\d+)*)`, (*explainCtx).tfCUDNN),
		sig("jax_cudnn_outdated", findings.CatCUDNNMismatch, "8907/90100 integers → cuDNN versions; the minimum's major.minor → nvidia-cudnn-cu12 floor",
			"outdated cudnn installation found", 6, `(?is)Outdated cuDNN installation found.*?Version JAX was built against: (\d+).*?Minimum supported: (\d+).*?Installed version: (\d+)`, (*explainCtx).jaxCUDNN),
		sig("jax_cudnn_found_built", findings.CatCUDNNMismatch, "the integers → cuDNN versions → nvidia-cudnn-cu12 floor",
			"found cudnn version", 1, `(?i)Found cuDNN version (\d+), but JAX was built against version (\d+)`, (*explainCtx).jaxFoundCUDNN),
		sig("jax_cuda_found_built", findings.CatToolkitMismatch, "the integers → CUDA versions → the jax[cudaN] extra",
			"but jax was built against version", 1, `(?i)Found (CUDA|cuBLAS|cuSPARSE|cuFFT|cuSOLVER|CUPTI) version (\d+), but JAX was built against version (\d+)`, (*explainCtx).jaxFoundCUDA),
		sig("jax_unable_to_load_cudnn", findings.CatCUDNNMissing, "the nvidia-cudnn-cu12 wheel the jax[cuda12] extra installs",
			"unable to load cudnn", 1, `(?i)Unable to load cuDNN\. Is it installed\?`, (*explainCtx).jaxNoCUDNN),
		sig("cudnn_status_not_initialized", findings.CatCUDNNMismatch, lkNone,
			"cudnn_status_not_initialized", 1, `CUDNN_STATUS_NOT_INITIALIZED`, (*explainCtx).cudnnNotInitialized),
		sig("cudnn_status_internal_error", findings.CatCUDNNMismatch, lkNone,
			"cudnn_status_internal_error", 1, `CUDNN_STATUS_INTERNAL_ERROR`, (*explainCtx).cudnnInternal),
		sig("cudnn_status_execution_failed", findings.CatCUDNNMismatch, lkNone,
			"cudnn_status_execution_failed", 1, `CUDNN_STATUS_EXECUTION_FAILED`, (*explainCtx).cudnnExecFailed),
		sig("cudnn_status_arch_mismatch", findings.CatArchUnsupported, "the GPU's compute capability against cuDNN's supported architectures (cudb matrix cudnn)",
			"cudnn_status_arch_mismatch", 1, `CUDNN_STATUS_ARCH_MISMATCH`, (*explainCtx).cudnnArch),
		sig("cudnn_status_version_mismatch", findings.CatCUDNNMismatch, lkNone,
			"version_mismatch", 1, `CUDNN_STATUS_VERSION_MISMATCH|CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH`, (*explainCtx).cudnnVersionMismatch),
		sig("tf_conv_algorithm", findings.CatCUDNNMismatch, lkNone,
			"failed to get convolution algorithm", 1, `(?i)Failed to get convolution algorithm\. This is probably because cuDNN failed to initialize`, (*explainCtx).tfConvAlgorithm),
		sig("cudnn_undefined_symbol", findings.CatMultipleCUDALibs, lkNone,
			"undefined symbol", 1, `(?i)(libcudnn\w*)\.so\.(\d+): undefined symbol`, (*explainCtx).cudnnSymbol),

		// --- cuBLAS / CUDA libraries ------------------------------------------
		sig("cublas_not_initialized", findings.CatNotVersion, lkNone,
			"cublas_status_not_initialized", 1, `CUBLAS_STATUS_NOT_INITIALIZED`, (*explainCtx).cublasNotInitialized),
		sig("cublas_alloc_failed", findings.CatNotVersion, lkNone,
			"cublas_status_alloc_failed", 1, `CUBLAS_STATUS_ALLOC_FAILED`, (*explainCtx).outOfMemory),
		sig("cublas_execution_failed", findings.CatArchUnsupported, lkNone,
			"cublas_status_execution_failed", 1, `CUBLAS_STATUS_EXECUTION_FAILED`, (*explainCtx).cublasExecFailed),
		sig("cublas_arch_mismatch", findings.CatArchUnsupported, lkNone,
			"cublas_status_arch_mismatch", 1, `CUBLAS_STATUS_ARCH_MISMATCH`, (*explainCtx).cublasArch),
		sig("cublas_invalid_value", findings.CatMultipleCUDALibs, lkNone,
			"cublas_status_invalid_value", 1, `CUBLAS_STATUS_INVALID_VALUE`, (*explainCtx).cublasInvalid),
		sig("nvjitlink_undefined_symbol", findings.CatMultipleCUDALibs, "the symbol's _12_1 suffix → the nvidia-nvjitlink-cu12 floor",
			"undefined symbol", 1, `(?i)undefined symbol: (__nvJitLink\w+?)_(\d+)_(\d+), version libnvJitLink\.so\.(\d+)`, (*explainCtx).nvJitLink),
		sig("cuda_lib_undefined_symbol", findings.CatMultipleCUDALibs, "the library's major → the nvidia-*-cuN wheel",
			"undefined symbol", 1, `(?i)(libcu(?:blas|blasLt|sparse|fft|rand|solver|dart|pti)|libnccl|libnvrtc)\.so\.(\d+)(?:\.\d+)*: undefined symbol: (\w+)`, (*explainCtx).cudaLibSymbol),

		// --- NCCL ---------------------------------------------------------------
		sig("nccl_undefined_symbol", findings.CatMultipleCUDALibs, lkNone,
			"undefined symbol: nccl", 1, `(?i)undefined symbol: (nccl\w+)`, (*explainCtx).ncclSymbol),
		sig("nccl_version_error", findings.CatMultipleCUDALibs, lkNone,
			"nccl", 1, `(?i)NCCL error.*(?:invalid usage|NCCL version mismatch)|ncclInvalidUsage|NCCL version \S+ is too old`, (*explainCtx).ncclError),
		sig("nccl_system_error", findings.CatNotVersion, lkNone,
			"unhandled system error", 1, `(?i)NCCL (?:error|Error \d+)\b.*unhandled system error|ncclSystemError`, (*explainCtx).ncclSystemError),
		sig("nccl_unhandled_cuda_error", findings.CatNotVersion, lkNone,
			"unhandled cuda error", 1, `(?i)NCCL (?:error|Error \d+)\b.*unhandled cuda error|ncclUnhandledCudaError`, (*explainCtx).ncclCUDAError),
		sig("nccl_remote_process_exited", findings.CatNotVersion, lkNone,
			"remote process exited", 1, `(?i)remote process exited or there was a network error|ncclRemoteError`, (*explainCtx).ncclRemoteExited),

		// --- architecture ------------------------------------------------------
		sig("torch_sm_not_compatible", findings.CatArchUnsupported, "sm_NN → compute capability → the first and the newest torch whose wheels carry its SASS",
			"is not compatible with the current pytorch", 3, `(?is)with CUDA capability sm_(\d+)\s+is not compatible with the current PyTorch installation\.?(?:\s*The current PyTorch install supports CUDA capabilities ((?:\s*sm_\d+[af]?)+))?`, (*explainCtx).smNotCompatible),
		sig("torch_gpu_too_old", findings.CatArchUnsupported, "cuda capability X.Y → the newest torch that still carries it",
			"which is of cuda capability", 1, `(?i)Found GPU\d* (.+?) which is of cuda capability (\d+)\.(\d+)`, (*explainCtx).torchGPUTooOld),
		sig("no_kernel_image", findings.CatArchUnsupported, "the GPU's compute capability (from the host facts) against the build's architecture list",
			"no kernel image", 1, `(?i)no kernel image (?:is )?available(?: for execution)?|cudaErrorNoKernelImageForDevice|CUDA_ERROR_NO_BINARY_FOR_GPU`, (*explainCtx).noKernelImage),
		sig("invalid_device_function", findings.CatArchUnsupported, "the GPU's compute capability against the build's architecture list",
			"invalid device function", 1, `(?i)invalid device function|cudaErrorInvalidDeviceFunction`, (*explainCtx).noKernelImage),
		sig("tf_no_kernel_binaries", findings.CatArchUnsupported, "the compute capability in the message: 10.0 and later (Blackwell) cannot JIT the build's PTX (error), older ones JIT slowly (warning)",
			"was not built with cuda kernel binaries", 1, `(?i)TensorFlow was not built with CUDA kernel binaries compatible with compute capability (\d+)\.(\d+)`, (*explainCtx).tfNoKernelBinaries),
		sig("cuda_invalid_ptx", findings.CatArchUnsupported, lkNone,
			"ptx", 1, `(?i)CUDA_ERROR_INVALID_PTX|a PTX JIT compilation failed|cudaErrorInvalidPtx`, (*explainCtx).invalidPTX),
		sig("tf_ignoring_gpu_capability", findings.CatArchUnsupported, "the GPU's compute capability against the build's minimum, both in the message",
			"ignoring", 2, `(?is)Ignoring (?:visible )?gpu device \(device: \d+, name: ([^,]+?),.*?\) with Cuda compute capability (\d+\.\d+)\.\s*The minimum required Cuda capability is (\d+\.\d+)`, (*explainCtx).tfIgnoringGPU),
		sig("nvcc_unsupported_arch", findings.CatToolkitMismatch, "compute_NN → the toolkit table (cudb matrix arch): the first CUDA that compiles for it, or the last one that still did",
			"unsupported gpu architecture", 1, `(?i)Unsupported gpu architecture '?compute_(\d+)`, (*explainCtx).nvccArch),

		// --- builds and installs -----------------------------------------------
		sig("torch_not_compiled_cuda", findings.CatCPUOnlyWheel, "the newest torch CUDA build's install command",
			"not compiled with cuda", 1, `(?i)Torch not compiled with CUDA enabled`, (*explainCtx).torchCPU),
		sig("torch_cuda_mismatch_extension", findings.CatToolkitMismatch, "the detected toolkit → the newest torch built for it",
			"mismatches the version that was used to compile", 2, `(?i)The detected CUDA version \(([\d.]+)\) mismatches the version that was used to compile\s+PyTorch \(([\d.]+)\)`, (*explainCtx).toolkitMismatch),
		sig("jax_cpu_fallback", findings.CatCPUOnlyWheel, "the jax[cudaN] extra for the driver's CUDA",
			"cuda-enabled jaxlib is not installed", 1, `(?i)a CUDA-enabled jaxlib is not installed`, (*explainCtx).jaxCPU),
		sig("pip_no_matching_distribution", findings.CatPythonUnsupported, "the framework's releases and their Python versions",
			"no matching distribution found for", 1, `(?i)No matching distribution found for (torch|tensorflow(?:-gpu)?|jaxlib|jax|onnxruntime-gpu)\b`, (*explainCtx).noDistribution),

		// --- ONNX model versions ------------------------------------------------
		sig("ort_ir_version_unsupported", findings.CatModelUnsupported, "the model's and the runtime's IR versions → ONNX Runtime's published IR/opset table: the first release that reads the model, the onnx release to re-export with",
			"ir version", 1, `(?i)Unsupported model IR version: (\d+), max supported IR version: (\d+)`, (*explainCtx).ortIRVersion),
		sig("ort_opset_unsupported", findings.CatModelUnsupported, "the model's opset → ONNX Runtime's published IR/opset table: the first release implementing it",
			"opset", 1, `(?i)Opset (\d+) is under development`, (*explainCtx).ortOpset),
		sig("ort_create_cuda_provider_failed", findings.CatToolkitMismatch, "ONNX Runtime's CUDA/cuDNN major per release",
			"failed to create cudaexecutionprovider", 1, `(?i)Failed to create CUDAExecutionProvider`, (*explainCtx).ortCreateCUDAEP),

		// --- compilers on PATH ---------------------------------------------------
		sig("xla_driver_older_than_ptxas", findings.CatDriverTooOld, "the driver's CUDA and the ptxas CUDA in the message → the driver floor of the ptxas CUDA",
			"which is older than the", 2, `(?is)The NVIDIA driver's CUDA version is (\d+\.\d+) which is older than the (?:ptxas CUDA version|PTX compiler version) \(?(\d+\.\d+(?:\.\d+)?)`, (*explainCtx).xlaDriverOlderThanPTXAS),
		sig("ptxas_unsupported_version", findings.CatToolkitMismatch, "the PTX ISA the framework writes against the one the ptxas on PATH reads",
			"unsupported .version", 1, `(?i)(?:fatal\s*)?:\s*Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)'`, (*explainCtx).stalePTXAS),
		sig("xla_ptxas_too_old", findings.CatToolkitMismatch, lkNone,
			"ptxas", 1, `(?i)ptxas too old|Invoking ptxas with version \d+\.\d+\.\d+, which corresponds to a CUDA version <=`, (*explainCtx).stalePTXAS),
		sig("ort_providers_without_cuda", findings.CatCPUOnlyWheel, lkNone,
			"executionprovider'", 1, `(?i)(?:available providers:?\s*|^[\w.\-]*\s*)\[\s*'(?:Azure|CPU)ExecutionProvider'(?:\s*,\s*'(?:Azure|CPU)ExecutionProvider')*\s*\]`, (*explainCtx).ortProvidersList),

		// --- project files pasted into a report -----------------------------------
		sig("uv_cuda_index_linux_only", findings.CatCPUOnlyWheel, "the uv source's marker: a CUDA index gated to Linux or to platform_machine x86_64 leaves Windows (AMD64) on PyPI's CPU wheel",
			"index", 1, `(?i)index\s*=\s*"(pytorch-cu\d+)"[^\n]*?marker\s*=\s*"([^"]*)"`, (*explainCtx).uvIndexLinuxOnly),

		// --- normal output of working hosts -------------------------------------
		harmlessSig("tf_factory_registration", "unable to register", `(?i)Unable to register (?:cuDNN|cuFFT|cuBLAS) factory: Attempting to register factory for plugin \w+ when one has already been registered`,
			"TensorFlow registers its cuDNN/cuFFT/cuBLAS plugins twice when another library (JAX, PyTorch, or TensorFlow itself) did first; the GPU is used normally"),
		harmlessSig("tf_trt_not_found", "could not find tensorrt", `(?i)TF-TRT Warning: Could not find TensorRT`,
			"TensorFlow's optional TensorRT integration is not installed; nothing else depends on it"),
		harmlessSig("tf_numa_node", "numa node", `(?i)successful NUMA node read from SysFS had negative value \(-1\)|could not open file to read NUMA node`,
			"the kernel reports no NUMA node for the GPU (common on WSL2 and single-socket machines); TensorFlow assumes node 0"),
		harmlessSig("tf_cpu_feature_guard", "this tensorflow binary is optimized", `(?i)This TensorFlow binary is optimized to use available CPU instructions`,
			"TensorFlow notes which CPU instructions it was built for"),
		harmlessSig("ort_memcpy_nodes", "memcpy nodes are added", `(?i)\d+ Memcpy nodes are added to the graph \S+ for CUDAExecutionProvider`,
			"ONNX Runtime copies some tensors between CPU and GPU (shape ops run on the CPU); the CUDA provider is in use"),
		harmlessSig("jax_other_backend_missing", "unable to initialize backend", `(?i)Unable to initialize backend '(?:rocm|tpu|tpu_driver|METAL|plugin)'`,
			"JAX probes every backend and says which ones are absent; another backend (CUDA or CPU) is used"),

		// --- not a version problem ------------------------------------------------
		sig("cuda_out_of_memory", findings.CatNotVersion, lkNone,
			"out of memory", 1, `(?i)CUDA out of memory|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation|RESOURCE_EXHAUSTED: Out of memory`, (*explainCtx).outOfMemory),
		sig("illegal_memory_access", findings.CatNotVersion, lkNone,
			"illegal memory access", 1, `(?i)an illegal memory access was encountered`, (*explainCtx).illegalAccess),
		sig("device_side_assert", findings.CatNotVersion, lkNone,
			"device-side assert", 1, `(?i)device-side assert triggered`, (*explainCtx).deviceAssert),
	}
})
