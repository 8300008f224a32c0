package verify

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
)

const smiCmd = "nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1"

func (e *explainCtx) ptxToolchain(ctx context.Context, m []string) (findings.Finding, error) {
	major, floor := e.newestMajorFloor(ctx)
	fix := "upgrade the NVIDIA driver to one whose CUDA (nvidia-smi's CUDA Version) is at least the CUDA that compiled the code (the framework's, or the nvcc/ptxas on PATH for JIT-compiled kernels), or install a framework build for an older CUDA: cudb resolve torch --driver $(" + smiCmd + ")"
	if floor != "" {
		fix += fmt.Sprintf("; CUDA %s.x needs a driver >= %s", major, floor)
	}
	return findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
		Message: "the driver cannot load PTX built by a newer CUDA toolkit than it supports (the driver is older than the CUDA that compiled the kernels)",
		Fix:     fix, Sources: e.driverSources(ctx, major)}, nil
}

func (e *explainCtx) forwardCompat(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
		Message: "a CUDA forward-compatibility package (cuda-compat) is in use on a GPU that does not support it (forward compatibility is for data-centre GPUs only)",
		Fix:     "remove the cuda-compat libraries from the loader path (unset LD_LIBRARY_PATH entries under /usr/local/cuda/compat, or use an image without them) and upgrade the host driver to the CUDA the build needs"}, nil
}

func (e *explainCtx) fabricManager(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "CUDA is not ready on an NVSwitch system: nvidia-fabricmanager is not running or its version differs from the driver's",
		Fix:     "sudo apt-get install nvidia-fabricmanager-<driver branch> (the same version as the driver) && sudo systemctl enable --now nvidia-fabricmanager"}, nil
}

func (e *explainCtx) noDriver(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "no NVIDIA kernel driver is loaded (none installed, or a container started without GPU access)",
		Fix:     "install the NVIDIA driver (sudo ubuntu-drivers install, or the CUDA repository's cuda-drivers) and reboot; in Docker run with --gpus all; on WSL2 install the Windows driver, not a Linux one"}, nil
}

func (e *explainCtx) nvmlMismatch(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "the loaded kernel module and the user-space driver libraries are different versions (a driver upgrade without a reboot, or two driver packages)",
		Fix:     "reboot (or sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia); if it persists, remove the second driver package (dpkg -l | grep nvidia-driver)"}, nil
}

func (e *explainCtx) nvmlUnknown(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "the container lost access to the GPU devices (cgroup device rules reset, e.g. by systemctl daemon-reload with the systemd cgroup driver)",
		Fix:     "restart the container; for good, set no-cgroups or the cgroupfs driver as nvidia-container-toolkit documents, or pass the /dev/nvidia* devices explicitly"}, nil
}

func (e *explainCtx) dockerNoToolkit(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "Docker has no GPU runtime: the NVIDIA Container Toolkit is not installed or not configured",
		Fix:     "sudo apt-get install nvidia-container-toolkit && sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker"}, nil
}

func (e *explainCtx) noCUDADevice(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "CUDA sees no GPU: CUDA_VISIBLE_DEVICES hides them, the container has none, or the driver does not see the card",
		Fix:     "echo $CUDA_VISIBLE_DEVICES (unset it or name a valid index); nvidia-smi -L; in Docker run with --gpus all"}, nil
}

func (e *explainCtx) cuInitUnknown(ctx context.Context, m []string) (findings.Finding, error) {
	f := findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "cuInit failed with an unknown error: the driver cannot start CUDA (nvidia_uvm not loaded, a driver upgrade without reboot, or under WSL2 a Linux driver installed over the Windows one)",
		Fix:     "sudo modprobe nvidia_uvm && nvidia-smi; on WSL2 remove any Linux nvidia driver package and keep only /usr/lib/wsl/lib; reboot after a driver upgrade"}
	if len(m) > 1 && m[1] != "" {
		f.Evidence = []string{"CUresult: " + m[1]}
	}
	return f, nil
}

func (e *explainCtx) windowsDLL(ctx context.Context, m []string) (findings.Finding, error) {
	name, num := strings.ToLower(m[1]), m[2]
	ver := num
	if len(num) >= 3 && strings.HasPrefix(num, "1") {
		ver = num[:2] + "." + num[2:]
	}
	switch {
	case name == "zlibwapi":
		return findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
			Message: "zlibwapi.dll, which cuDNN 8.3 to 8.9 needs on Windows, is not on PATH",
			Fix:     "install zlib's zlibwapi.dll next to cudnn64_8.dll (or in a directory on PATH), or use cuDNN 9, which does not need it"}, nil
	case strings.HasPrefix(name, "cudnn"):
		// Windows finds DLLs through PATH (and, from Python 3.8,
		// os.add_dll_directory), not a loader path or apt
		major := version.MajorText(ver)
		dll := fmt.Sprintf("%s64_%s.dll", name, major)
		get := fmt.Sprintf("NVIDIA's cuDNN %s for Windows", major)
		if pin := e.cudnnWheelPin(ctx, major); pin != "" {
			get = fmt.Sprintf("pip install %q (its DLLs are in site-packages\\nvidia\\cudnn\\bin)", pin)
		}
		return findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
			Message:  fmt.Sprintf("cuDNN %s's DLLs (%s) are not found: the program needs cuDNN %s and no directory it searches holds them", major, dll, major),
			Evidence: []string{"missing: " + dll},
			Fix:      fmt.Sprintf("install cuDNN %s (%s) and add the directory holding %s to PATH, or os.add_dll_directory() it before the import (cuDNN's installer puts the DLLs in bin\\<CUDA version>)", major, get, dll)}, nil
	case name == "nvcuda":
		return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
			Message: "nvcuda.dll, the driver's CUDA library, is missing: no NVIDIA driver is installed", Fix: "install the NVIDIA Windows driver"}, nil
	}
	f, err := e.missingLib(ctx, []string{m[0], "lib" + name, ver})
	f.Fix = fmt.Sprintf("install the CUDA %s runtime (the toolkit, or the framework's own CUDA wheels) and add its bin directory to PATH; TensorFlow >= 2.11 has no native Windows GPU build: use WSL2", ver)
	return f, err
}

func (e *explainCtx) cudnnUnableAny(ctx context.Context, m []string) (findings.Finding, error) {
	f, err := e.missingLib(ctx, m)
	f.Message += "; often an older cuDNN on LD_LIBRARY_PATH shadows the copy the framework ships"
	f.Fix = "unset LD_LIBRARY_PATH (or drop the system cuDNN directory from it) so the framework loads its own nvidia-cudnn wheel; " + f.Fix
	return f, err
}

func (e *explainCtx) tfDlopen(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message: "TensorFlow found no usable CUDA/cuDNN libraries of the versions it was built with, so it runs on the CPU",
		Fix:     "pip install \"tensorflow[and-cuda]\" (Linux, TensorFlow >= 2.14; cudb pin tensorflow==<version> lists the exact CUDA and cuDNN), and unset LD_LIBRARY_PATH if it points at another toolkit"}, nil
}

func (e *explainCtx) tfNoDNN(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
		Message: "TensorFlow could not load cuDNN (missing, or a version other than the one it was built with)",
		Fix:     "pip install \"tensorflow[and-cuda]\" (brings the matching nvidia-cudnn wheel); cudb pin tensorflow==<version> names the cuDNN it needs"}, nil
}

// xlaDNNInit: XLA (JAX's, or TensorFlow's XLA path) could not create
// its cuDNN handle. The maintainers' answers name three causes, most
// often the first (jax-ml/jax#16901, #15361; jthlab/phlash#31); the line
// above it ("Loaded runtime CuDNN library: X but source was compiled
// with: Y") says which, and explain reads it when it is pasted too.
func (e *explainCtx) xlaDNNInit(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
		Message: "XLA (JAX's GPU compiler, or TensorFlow's XLA path) could not initialise cuDNN: most often the cuDNN it loads is older than the one it was built with (a system or LD_LIBRARY_PATH copy before the pip one); else the GPU's memory was already taken when it started, or the driver is older than its CUDA needs",
		Fix:     `paste the lines above it too (the "Loaded runtime CuDNN library … but source was compiled with …" line names both versions), or run cudb verify; for JAX: pip install -U "jax[cuda12]" (or [cuda13]) in a fresh environment so it brings its own cuDNN, and unset LD_LIBRARY_PATH; out of memory at start: XLA_PYTHON_CLIENT_PREALLOCATE=false`}, nil
}

func (e *explainCtx) ortProvider(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message: "ONNX Runtime's CUDA provider could not load: the CUDA or cuDNN major it was built for is missing (onnxruntime-gpu 1.19+ on PyPI is CUDA 12 with cuDNN 9; earlier ones CUDA 11 with cuDNN 8)",
		Fix:     "pip install \"onnxruntime-gpu[cuda,cudnn]\" (1.19+), or install the CUDA and cuDNN majors of your onnxruntime-gpu (cudb resolve onnxruntime-gpu==<version>); import torch first to reuse its CUDA libraries"}, nil
}

func (e *explainCtx) ortNoCUDA(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message: "this onnxruntime has no CUDA provider: the CPU package (onnxruntime) is installed, or installed alongside onnxruntime-gpu and shadows it",
		Fix:     "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu"}, nil
}

func (e *explainCtx) winError126(ctx context.Context, m []string) (findings.Finding, error) {
	dll := ""
	if len(m) > 1 {
		dll = m[1]
	}
	msg := "Windows could not load a DLL or one of its dependencies"
	if dll != "" {
		msg += " (" + dll + ")"
	}
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message: msg + ": a missing Visual C++ runtime or a CUDA/cuDNN DLL the library needs",
		Fix:     "install the latest Microsoft Visual C++ Redistributable (x64), then reinstall the framework in a fresh environment (pip install --force-reinstall)"}, nil
}

func (e *explainCtx) jaxFoundCUDNN(ctx context.Context, m []string) (findings.Finding, error) {
	have, built := cudnnFromInt(m[1]), cudnnFromInt(m[2])
	mm := strings.Join(strings.Split(built, ".")[:2], ".")
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
		Message:  fmt.Sprintf("JAX was built against cuDNN %s but found %s", built, have),
		Evidence: []string{"installed " + have, "built against " + built},
		Fix:      fmt.Sprintf("pip install \"nvidia-cudnn-cu12>=%s\" (or pip install -U \"jax[cuda12]\"), and unset LD_LIBRARY_PATH if an older copy is on it", mm)}, nil
}

func (e *explainCtx) jaxFoundCUDA(ctx context.Context, m []string) (findings.Finding, error) {
	lib, have, built := m[1], cudaFromInt(atoi(m[2])), cudaFromInt(atoi(m[3]))
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message:  fmt.Sprintf("JAX was built against %s %s but found %s", lib, built, have),
		Evidence: []string{"installed " + have, "built against " + built},
		Fix:      fmt.Sprintf("pip install -U \"jax[cuda%s]\" (brings matching CUDA wheels) and unset LD_LIBRARY_PATH if an older toolkit is on it", version.MajorText(built))}, nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func (e *explainCtx) jaxNoCUDNN(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
		Message: "JAX's CUDA plugin could not load cuDNN",
		Fix:     "pip install -U \"jax[cuda12]\" (brings nvidia-cudnn-cu12), and unset LD_LIBRARY_PATH if another cuDNN is on it"}, nil
}

func (e *explainCtx) cudnnNotInitialized(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
		Message: "cuDNN could not create its handle: most often the GPU is out of memory when cuDNN starts, otherwise the cuDNN loaded does not match the CUDA/driver the framework uses (a second cuDNN on LD_LIBRARY_PATH, or a cuDNN for another CUDA major)",
		Fix:     "check free GPU memory (nvidia-smi) and retry with a smaller batch; then cudb verify (compares the cuDNN copies with the framework's), and unset LD_LIBRARY_PATH so the framework loads its own cuDNN"}, nil
}

func (e *explainCtx) cudnnInternal(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
		Message: "cuDNN failed internally: usually GPU memory exhaustion; otherwise a cuDNN too old for the GPU or mismatched with the framework",
		Fix:     "retry with a smaller batch (TensorFlow: tf.config.experimental.set_memory_growth); if it persists, cudb verify to compare the cuDNN with the framework's build"}, nil
}

func (e *explainCtx) cudnnExecFailed(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
		Message: "a cuDNN kernel failed to run: the cuDNN (or the framework) may lack kernels for this GPU, or the driver is older than the cuDNN's CUDA",
		Fix:     "cudb verify (checks the GPU's architecture and the driver against the build); install the framework's own cuDNN wheel and unset LD_LIBRARY_PATH"}, nil
}

func (e *explainCtx) cudnnArch(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message: "this cuDNN does not support the GPU's compute capability (cuDNN 9 dropped Kepler and Maxwell-era cards; newer GPUs need recent cuDNN)",
		Fix:     "cudb matrix cudnn (the compute capabilities each cuDNN supports), then install a cuDNN and framework build that list your GPU's"}, nil
}

func (e *explainCtx) cudnnVersionMismatch(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
		Message: "cuDNN sub-libraries of different versions are loaded together (two cuDNN copies on the loader path)",
		Fix:     "unset LD_LIBRARY_PATH (or remove one copy) so a single cuDNN is found; pip list | grep cudnn and ldconfig -p | grep cudnn show the copies"}, nil
}

func (e *explainCtx) tfConvAlgorithm(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
		Message: "TensorFlow's cuDNN failed to start: usually the GPU memory is already taken (another process, or TensorFlow's full pre-allocation), otherwise a cuDNN older than TensorFlow's build",
		Fix:     "enable memory growth (tf.config.experimental.set_memory_growth(gpu, True) or TF_FORCE_GPU_ALLOW_GROWTH=true); if it persists, cudb pin tensorflow==<version> for the cuDNN it was built with"}, nil
}

func (e *explainCtx) cudnnSymbol(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s.so.%s comes from a different cuDNN than the other cuDNN libraries loaded (two copies mixed on the loader path)", m[1], m[2]),
		Evidence: []string{"library: " + m[1] + ".so." + m[2]},
		Fix:      "unset LD_LIBRARY_PATH (or remove the system cuDNN directory from it) so all cuDNN libraries come from one copy: the framework's nvidia-cudnn wheel"}, nil
}

func (e *explainCtx) cublasNotInitialized(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "cuBLAS could not create its handle: almost always the GPU is out of memory at that point (or an earlier CUDA error was swallowed); rarely a cuBLAS from another CUDA on the loader path",
		Fix:     "check nvidia-smi for memory in use, reduce the batch size, run with CUDA_LAUNCH_BLOCKING=1 for the real first error; if none, cudb verify for library copies"}, nil
}

func (e *explainCtx) cublasExecFailed(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevWarning,
		Message: "a cuBLAS kernel failed: the cuBLAS loaded may lack kernels for this GPU (a build without its architecture), or an earlier error (out of memory, bad index) surfaced here",
		Fix:     "cudb verify (checks the build's architectures against the GPU); rerun with CUDA_LAUNCH_BLOCKING=1 to see the first failing call"}, nil
}

func (e *explainCtx) cublasArch(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message: "cuBLAS was called for a feature the GPU's compute capability lacks (e.g. half or bfloat16 math on an old GPU)",
		Fix:     "use float32 on this GPU, or a GPU of a newer architecture; cudb matrix gpu lists compute capabilities"}, nil
}

func (e *explainCtx) cublasInvalid(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevWarning,
		Message: "cuBLAS rejected a call: often a cuBLAS from another CUDA version is loaded ahead of the framework's own (LD_LIBRARY_PATH), sometimes a shape or dtype the library does not support",
		Fix:     "unset LD_LIBRARY_PATH and pip install --force-reinstall the framework's nvidia-cublas wheel; cudb verify lists the copies"}, nil
}

func (e *explainCtx) cudaLibSymbol(ctx context.Context, m []string) (findings.Finding, error) {
	lib, major, sym := m[1], m[2], m[3]
	if strings.HasPrefix(sym, "__nvJitLink") {
		return findings.Finding{}, nil // nvjitlink_undefined_symbol says it better
	}
	return findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s.so.%s lacks %s: an older copy of the CUDA %s library is loaded ahead of the one the framework needs", lib, major, sym, major),
		Evidence: []string{"library: " + lib + ".so." + major},
		Fix:      "unset LD_LIBRARY_PATH (an older toolkit's lib64 on it shadows the framework's nvidia-* wheels), or pip install --force-reinstall the framework to restore matching wheels"}, nil
}

func (e *explainCtx) ncclSymbol(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevError,
		Message:  fmt.Sprintf("the NCCL loaded lacks %s: an older libnccl (system or LD_LIBRARY_PATH) shadows the nvidia-nccl wheel the framework needs", m[1]),
		Evidence: []string{"symbol: " + m[1]},
		Fix:      "unset LD_LIBRARY_PATH (or remove the old libnccl2 package's directory from it) and pip install --force-reinstall nvidia-nccl-cu12 at the version the framework pins (cudb pin torch==<version>)"}, nil
}

func (e *explainCtx) ncclError(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevWarning,
		Message: "NCCL failed: ranks may load different NCCL or CUDA versions, or the NCCL is older than the framework expects",
		Fix:     "run with NCCL_DEBUG=INFO to see each rank's NCCL version; make every rank use the framework's own nvidia-nccl wheel (unset LD_LIBRARY_PATH)"}, nil
}

func (e *explainCtx) torchGPUTooOld(ctx context.Context, m []string) (findings.Finding, error) {
	cc := m[2] + "." + m[3]
	f := findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s (compute capability %s) is older than this PyTorch supports", strings.TrimSpace(m[1]), cc),
		Evidence: []string{"GPU compute capability: " + cc}}
	if _, err := nvidia.ParseSMKnown(ctx, e.d, cc); err == nil {
		if cmd, ver := e.newestTorch(ctx, query.ResolveRequest{SM: cc}); cmd != "" {
			f.Message += fmt.Sprintf("; the newest torch with kernels for it is %s", ver)
			f.Fix = cmd
		}
	}
	if f.Fix == "" {
		f.Fix = "cudb resolve torch --sm " + cc + " (the newest torch whose wheels still carry it)"
	}
	return f, nil
}

func (e *explainCtx) nvccArch(ctx context.Context, m []string) (findings.Finding, error) {
	cc, err := nvidia.ParseSM(m[1])
	if err != nil {
		return unparsedSM(m[1], "whether the nvcc on PATH can compile for it")
	}
	f := findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message:  fmt.Sprintf("the nvcc on PATH cannot compile for compute capability %s (compute_%s)", cc, m[1]),
		Evidence: []string{"target compute capability: " + cc},
		Fix:      fmt.Sprintf("install a CUDA toolkit that supports sm_%s (cudb matrix arch) and export CUDA_HOME to it, or set TORCH_CUDA_ARCHITECTURES / TORCH_CUDA_ARCH_LIST to architectures your nvcc knows", m[1])}
	first, last := e.toolkitsFor(ctx, atoi(m[1]))
	switch {
	case first != "" && last != "":
		f.Message += fmt.Sprintf("; only CUDA %s to %s compile for it (newer toolkits dropped it)", first, last)
		f.Fix = fmt.Sprintf("drop compute_%s from the build's architecture list (TORCH_CUDA_ARCH_LIST, CMake's CUDA_ARCHITECTURES, -gencode flags) and build for your GPU's own sm, or build with a CUDA between %s and %s", m[1], first, last)
	case first != "":
		f.Message += fmt.Sprintf("; CUDA %s is the first toolkit that does", first)
		f.Fix = fmt.Sprintf("install CUDA >= %s (e.g. conda install -c nvidia cuda-toolkit=%s, or the toolkit from NVIDIA) and export CUDA_HOME to it; or build for an older architecture your nvcc knows (TORCH_CUDA_ARCH_LIST)", first, first)
	}
	return f, nil
}

// toolkitsFor reads the toolkit table (cudb matrix arch): the oldest CUDA
// minor that compiles for sm, and the newest one when newer minors
// dropped it.
func (e *explainCtx) toolkitsFor(ctx context.Context, sm int) (first, last string) {
	rows, err := nvidia.MatrixArch(ctx, e.d)
	if err != nil {
		return "", ""
	}
	smNum := func(s string) int {
		s = strings.TrimPrefix(s, "sm_")
		s = strings.TrimRight(s, "abf")
		return atoi(s)
	}
	newestHas := false
	for i, r := range rows { // newest first
		lo, hi := smNum(r.SMMin), smNum(r.SMMax)
		if lo == 0 || hi == 0 || sm < lo || sm > hi {
			continue
		}
		first = r.CUDA
		if i == 0 {
			newestHas = true
		}
		if last == "" {
			last = r.CUDA
		}
	}
	if newestHas {
		last = ""
	}
	return first, last
}

// deviceError matches the lines that say CUDA found no device.
var deviceError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)CUDA_ERROR_NO_DEVICE|No CUDA GPUs are available|no CUDA-capable device is detected|cudaErrorNoDevice`)
})

func (e *explainCtx) jaxCPU(ctx context.Context, m []string) (findings.Finding, error) {
	// JAX prints this line whenever its CUDA backend fails, also when the
	// plugin is installed and CUDA found no device: the line above then
	// names the device error, and the cause is the hidden GPU, never a
	// missing plugin (installing one would add a second, wrong plugin).
	for _, l := range e.linesBefore(ctx, 12) {
		if deviceError().MatchString(l) {
			return e.noCUDADevice(ctx, m)
		}
	}
	return findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message: "JAX is installed without its CUDA plugin, so it runs on the CPU",
		Fix:     "pip install -U \"jax[cuda12]\" (needs a driver >= 525 for CUDA 12; cudb resolve jax --driver <your driver>)"}, nil
}

func (e *explainCtx) noDistribution(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatPythonUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("pip found no %s wheel for this Python and platform: the Python is newer (or older) than any %s release supports, or the platform (32-bit, Windows for TensorFlow GPU) has none", m[1], m[1]),
		Evidence: []string{"package: " + m[1]},
		Fix:      fmt.Sprintf("cudb resolve %s --python $(python -c 'import sys;print(\"%%d.%%d\"%%sys.version_info[:2])') (names the release for this Python), or create an environment with a Python %s supports", m[1], m[1])}, nil
}

func (e *explainCtx) outOfMemory(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "the GPU ran out of memory: not a version problem",
		Fix:     "reduce the batch size or model size, free other processes' memory (nvidia-smi), or use mixed precision"}, nil
}

func (e *explainCtx) illegalAccess(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "a kernel read or wrote outside its memory: a bug in the code or a kernel, not a version problem",
		Fix:     "rerun with CUDA_LAUNCH_BLOCKING=1 (and compute-sanitizer) to find the failing operation"}, nil
}

func (e *explainCtx) deviceAssert(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "a device-side assertion failed (usually an index out of range, e.g. a label >= the number of classes): not a version problem",
		Fix:     "rerun on the CPU or with CUDA_LAUNCH_BLOCKING=1 to see the failing index"}, nil
}

func (e *explainCtx) torchCUDNNInt(ctx context.Context, m []string) (findings.Finding, error) {
	want, have := cudnnFromInt(m[1]), cudnnFromInt(m[2])
	return e.torchCUDNN(ctx, []string{m[0], part(want, 0), part(want, 1), part(want, 2), part(have, 0), part(have, 1), part(have, 2)})
}

func part(v string, i int) string {
	p := strings.Split(v, ".")
	if i < len(p) {
		return p[i]
	}
	return "0"
}

func (e *explainCtx) ortWindows126(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
		Message: "Windows could not load ONNX Runtime's CUDA provider because a DLL it depends on is missing from PATH: most often cuDNN's (cudnn64_8.dll for CUDA 11 builds, cudnn64_9.dll for onnxruntime-gpu 1.19+), else the CUDA runtime's",
		Fix:     "install the cuDNN and CUDA majors your onnxruntime-gpu was built for (cudb resolve onnxruntime-gpu==<version>) and add their bin directories to PATH (cuDNN 8.3-8.9 also needs zlibwapi.dll), or import torch first so its bundled CUDA and cuDNN DLLs are loaded"}, nil
}

func (e *explainCtx) jaxBackendFailed(ctx context.Context, m []string) (findings.Finding, error) {
	detail := m[1]
	for _, specific := range []string{"cuDNN", "Found ", "Unable to load", "Outdated"} {
		if strings.Contains(detail, specific) {
			return findings.Finding{}, nil // a signature of its own explains it
		}
	}
	return findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message:  "JAX's CUDA backend did not start, so JAX runs on the CPU: jax, jaxlib and the CUDA plugin must be one release built for the CUDA major installed",
		Evidence: []string{"backend error: " + evidenceLine(detail)},
		Fix:      "pip install -U \"jax[cuda12]\" (one command installs matching jax, jaxlib and jax-cuda12-plugin with their CUDA wheels); nvidia-smi must show a driver for CUDA 12"}, nil
}
