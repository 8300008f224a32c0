package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// This file holds the answers of the signatures added for ONNX model
// versions, NCCL, Blackwell and PTX messages, old GPUs that a build
// ignores, a stale ptxas, and the normal log lines that frameworks print
// on healthy hosts (which explain names as harmless, so a pasted log of a
// working host is read, not refused).

func (e *explainCtx) ortIRVersion(ctx context.Context, m []string) (findings.Finding, error) {
	model, maxIR := atoi(m[1]), atoi(m[2])
	f := findings.Finding{Category: findings.CatModelUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("the model was saved with ONNX IR version %d and this ONNX Runtime reads IR versions up to %d: the model was exported with a newer onnx than the runtime implements", model, maxIR),
		Evidence: []string{fmt.Sprintf("model IR version: %d; runtime's maximum: %d", model, maxIR)},
		Sources:  ortONNXSources()}
	up := ""
	if r, newest, ok := firstORTFor(model, 0); ok {
		up = fmt.Sprintf("pip install -U \"onnxruntime-gpu>=%s\" (ONNX Runtime %s is the first release that reads IR %d)", r.ORT, r.ORT, model)
	} else if newest.ORT != "" {
		up = fmt.Sprintf("upgrade ONNX Runtime to a release newer than this one (the published table ends at %s, IR %d, so it names none that reads IR %d: pip install -U onnxruntime-gpu)", newest.ORT, newest.IR, model)
	}
	down := fmt.Sprintf("or re-export the model for IR %d", maxIR)
	if r, ok := lastORTWithIR(maxIR); ok && r.IR == maxIR {
		down = fmt.Sprintf("or re-export the model with pip install \"onnx==%s\" (the ONNX release whose IR %d this runtime reads)", r.ONNX, maxIR)
	} else {
		down += " (onnx.save of a model whose ir_version is set to that value, with an opset the runtime implements)"
	}
	f.Fix = up + "; " + down
	if up == "" {
		f.Fix = down[3:]
	}
	return f, nil
}

func (e *explainCtx) ortOpset(ctx context.Context, m []string) (findings.Finding, error) {
	opset := atoi(m[1])
	f := findings.Finding{Category: findings.CatModelUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("the model uses ONNX opset %d, newer than the opsets this ONNX Runtime implements", opset),
		Evidence: []string{fmt.Sprintf("model opset: %d", opset)},
		Sources:  ortONNXSources()}
	if r, newest, ok := firstORTFor(0, opset); ok {
		f.Fix = fmt.Sprintf("pip install -U \"onnxruntime-gpu>=%s\" (the first release implementing opset %d), or export the model with opset_version=%d or lower", r.ORT, opset, newest.Opset)
	} else {
		f.Fix = fmt.Sprintf("export the model with an older opset (torch.onnx.export(..., opset_version=%d) is the newest the published table names, ONNX Runtime %s), or upgrade ONNX Runtime past that table", newest.Opset, newest.ORT)
	}
	return f, nil
}

func ortONNXSources() []query.SourceRef {
	return []query.SourceRef{{Name: "onnxruntime-compatibility", URL: ortONNXURL}}
}

func (e *explainCtx) ncclSystemError(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "a system call inside NCCL failed (shared memory too small in a container, a socket or network-interface problem, a peer that cannot be reached): not a version mismatch",
		Fix:     "rerun with NCCL_DEBUG=INFO and read the NCCL WARN line before the error; in Docker start the container with --ipc=host (or --shm-size=16g); across nodes set NCCL_SOCKET_IFNAME to the interface that reaches the others"}, nil
}

func (e *explainCtx) ncclCUDAError(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "a CUDA call inside NCCL failed: most often peer-to-peer copies between consumer GPUs (IOMMU or PCIe ACS blocks them), otherwise an earlier CUDA error on that rank",
		Fix:     "rerun with NCCL_DEBUG=INFO; try NCCL_P2P_DISABLE=1 (if that works, disable the IOMMU or ACS in the BIOS/kernel for peer-to-peer); check the first CUDA error of each rank"}, nil
}

func (e *explainCtx) ncclRemoteExited(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo,
		Message: "another rank exited or lost its connection first; this rank only reports it: the cause is in the first rank that failed (out of memory, a crash, a kill, a network drop)",
		Fix:     "read the log of the rank that failed first (torchrun prints its exit code); rerun with NCCL_DEBUG=INFO and TORCH_DISTRIBUTED_DEBUG=DETAIL"}, nil
}

func (e *explainCtx) tfNoKernelBinaries(ctx context.Context, m []string) (findings.Finding, error) {
	cc := m[1] + "." + m[2]
	if atoi(m[1]) >= 10 {
		return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
			Message:  fmt.Sprintf("this TensorFlow build has no kernels for compute capability %s (Blackwell), and the PTX it carries does not JIT-compile for it (CUDA_ERROR_INVALID_PTX follows)", cc),
			Evidence: []string{"GPU compute capability: " + cc},
			Fix:      "run TensorFlow from NVIDIA's NGC container (docker run --gpus all nvcr.io/nvidia/tensorflow:<25.xx>-tf2-py3), whose builds carry Blackwell kernels, or use a GPU the pip wheel was built for"}, nil
	}
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevWarning,
		Message:  fmt.Sprintf("this TensorFlow build has no kernels for compute capability %s: they are JIT-compiled from PTX at start, which can take 30 minutes (it works, slowly)", cc),
		Evidence: []string{"GPU compute capability: " + cc},
		Fix:      "keep the JIT cache between runs (export CUDA_CACHE_MAXSIZE=4294967296), or install a TensorFlow release built for this compute capability (cudb matrix tensorflow)"}, nil
}

func (e *explainCtx) invalidPTX(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message: "the driver could not JIT-compile the PTX the build carries: the build has no kernels for this GPU (a Blackwell sm_100/sm_120 GPU with a build older than CUDA 12.8) or its PTX is newer than the driver",
		Fix:     "install a build with kernels for the GPU (torch: cudb resolve torch --gpu \"<GPU name>\"; Blackwell needs a cu128 or newer build), or upgrade the driver to the CUDA the build was compiled with"}, nil
}

func (e *explainCtx) xlaDriverOlderThanPTXAS(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevWarning,
		Message:  fmt.Sprintf("the driver supports CUDA %s, older than the ptxas (CUDA %s) XLA uses: it works, but XLA compiles in one thread", m[1], m[2]),
		Evidence: []string{"driver CUDA: " + m[1], "ptxas: " + m[2]},
		Fix:      fmt.Sprintf("upgrade the NVIDIA driver to one that supports CUDA %s (cudb resolve jax --driver ...), or pin the nvidia-cuda-nvcc-cu12 wheel to the driver's CUDA %s", version2(m[2]), m[1]), Sources: e.driverSources(ctx, version2(m[2]))}, nil
}

// version2 is "12.3" of "12.3.107".
func version2(v string) string {
	n := 0
	for i, c := range v {
		if c == '.' {
			n++
			if n == 2 {
				return v[:i]
			}
		}
	}
	return v
}

func (e *explainCtx) stalePTXAS(ctx context.Context, m []string) (findings.Finding, error) {
	f := findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message: "an older ptxas (a system CUDA toolkit on PATH) is used instead of the one the framework's wheels bring, and it cannot read the PTX the framework writes",
		Fix:     "take the old toolkit's bin directory off PATH (e.g. export PATH without /usr/local/cuda/bin) so JAX finds the ptxas of its nvidia-cuda-nvcc-cu12 wheel, or pip install -U \"jax[cuda12]\" to refresh that wheel"}
	if len(m) > 2 && m[1] != "" {
		f.Evidence = []string{fmt.Sprintf("PTX ISA wanted: %s; ptxas reads up to %s", m[1], m[2])}
	}
	return f, nil
}

func (e *explainCtx) tfIgnoringGPU(ctx context.Context, m []string) (findings.Finding, error) {
	name, cc, need := m[1], m[2], m[3]
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("TensorFlow ignores the %s: its compute capability %s is below the %s this build requires, so TensorFlow runs on the CPU", name, cc, need),
		Evidence: []string{"GPU: " + name + " (compute capability " + cc + ")", "required: " + need},
		Fix:      fmt.Sprintf("use a GPU with compute capability >= %s, or build TensorFlow from source with TF_CUDA_COMPUTE_CAPABILITIES=%s and a CUDA toolkit that still supports it", need, cc)}, nil
}

func (e *explainCtx) ortCreateCUDAEP(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message: "ONNX Runtime could not create its CUDA provider and falls back to the CPU: the CUDA or cuDNN major its build needs is not loadable (onnxruntime-gpu 1.19+ on PyPI needs CUDA 12 and cuDNN 9; 1.18 and earlier CUDA 11 and cuDNN 8)",
		Fix:     "pip install \"onnxruntime-gpu[cuda,cudnn]\" (1.21+ brings the CUDA 12 and cuDNN 9 wheels), or install the CUDA/cuDNN majors of your onnxruntime-gpu (cudb resolve onnxruntime-gpu==<version>); run with log_severity_level=0 to see which library failed"}, nil
}

// harmlessPrefix starts the message of a normal log line's finding.
const harmlessPrefix = "harmless: "

// harmless answers a log line that frameworks print on working hosts.
func harmless(msg string) func(e *explainCtx, ctx context.Context, m []string) (findings.Finding, error) {
	return func(e *explainCtx, ctx context.Context, m []string) (findings.Finding, error) {
		return findings.Finding{Category: findings.CatNotVersion, Severity: findings.SevInfo, Message: harmlessPrefix + msg, Fix: "nothing to do"}, nil
	}
}

// ortProvidersList: a printed providers list without CUDA. Nobody asked
// for the CUDA provider here (a CPU-only host prints the same list), so
// it is a warning; "CUDAExecutionProvider is not in available provider
// names" is the error.
func (e *explainCtx) ortProvidersList(ctx context.Context, m []string) (findings.Finding, error) {
	f, err := e.ortNoCUDA(ctx, m)
	f.Severity = findings.SevWarning
	f.Message = "this onnxruntime lists no CUDA provider, so ONNX models run on the CPU: on a host with a GPU, the CPU package (onnxruntime) is the one installed or it shadows onnxruntime-gpu"
	return f, err
}

// uvIndexLinuxOnly: a uv source that sends torch to a CUDA index only
// under a Linux or x86_64 marker. On Windows platform_machine is AMD64 and
// sys_platform win32, so uv falls back to PyPI, whose Windows torch wheels
// are CPU-only. A marker that already names Windows is fine.
func (e *explainCtx) uvIndexLinuxOnly(ctx context.Context, m []string) (findings.Finding, error) {
	index, marker := m[1], m[2]
	lm := strings.ToLower(marker)
	linuxOnly := strings.Contains(lm, "sys_platform == 'linux'") || strings.Contains(lm, `sys_platform == "linux"`)
	x86Only := strings.Contains(lm, "platform_machine == 'x86_64'") || strings.Contains(lm, `platform_machine == "x86_64"`)
	if (!linuxOnly && !x86Only) || strings.Contains(lm, "win32") || strings.Contains(lm, "amd64") || strings.Contains(lm, "windows") {
		return findings.Finding{}, nil
	}
	why := "sys_platform is win32 on Windows"
	widen := strings.Replace(marker, "sys_platform == 'linux'", "(sys_platform == 'linux' or sys_platform == 'win32')", 1)
	if x86Only {
		why = "platform_machine is AMD64 on Windows, not x86_64"
		widen = strings.Replace(marker, "platform_machine == 'x86_64'", "(platform_machine == 'x86_64' or platform_machine == 'AMD64')", 1)
	}
	return findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevWarning,
		Message:  fmt.Sprintf("the uv source sends torch to the %s index only where %q holds: %s, so on Windows uv falls back to PyPI, whose Windows torch wheels are CPU-only", index, marker, why),
		Evidence: []string{"index: " + index, "marker: " + marker},
		Fix:      fmt.Sprintf("widen the source's marker to Windows: marker = %q (then uv lock && uv sync)", widen)}, nil
}
