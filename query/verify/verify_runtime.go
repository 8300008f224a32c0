package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// torchRuntime is what the environment's interpreter said about torch
// (`--deep`); nil without it or when `import torch` failed.
func (fw *framework) torchRuntime() *host.TorchRuntime {
	if fw.name != frameworks.Torch || fw.py == nil || fw.py.Runtime == nil {
		return nil
	}
	if rt := fw.py.Runtime.Torch; rt != nil && rt.Error == "" {
		return rt
	}
	return nil
}

func (fw *framework) interpreter() string {
	if fw.py != nil && fw.py.Runtime != nil && fw.py.Runtime.Interpreter != "" {
		return fw.py.Runtime.Interpreter
	}
	return "python"
}

// runtime judges what the interpreter reported that files cannot show:
// a failed import, CUDA that does not initialise, a kernel that does not
// launch, a framework that sees no GPU. Each error text is explained and
// folded into a finding the files already gave when it says the same.
func (v *verifier) runtime(ctx context.Context, fw *framework) error {
	if fw.py == nil || fw.py.Runtime == nil {
		return nil
	}
	rt := fw.py.Runtime
	switch {
	case fw.name == frameworks.Torch && rt.Torch != nil:
		return v.torchRuntimeChecks(ctx, fw, rt.Torch)
	case fw.name == frameworks.TensorFlow && rt.TensorFlow != nil:
		t := rt.TensorFlow
		if t.Error != "" {
			return v.importFailed(ctx, fw, frameworks.Must(frameworks.TensorFlow).Module, t.Error)
		}
		if t.IsCUDABuild != nil && *t.IsCUDABuild && t.GPUs != nil && *t.GPUs == 0 {
			v.sees(fw, "tf.config.list_physical_devices('GPU'): []",
				fmt.Sprintf("%s -c \"import tensorflow as tf; tf.get_logger().setLevel('INFO'); print(tf.config.list_physical_devices('GPU'))\" (its log names the library it could not load; then cudb explain \"<that line>\")", fw.interpreter()))
		}
	case fw.name == frameworks.JAX && rt.JAX != nil:
		j := rt.JAX
		if j.Error != "" {
			return v.importFailed(ctx, fw, frameworks.Must(frameworks.JAX).Module, j.Error)
		}
		if len(j.Devices) > 0 && !jaxHasGPU(j.Devices) {
			v.sees(fw, "jax.devices(): "+j.Devices[0].Platform+" only",
				fmt.Sprintf("%s -c \"import jax; print(jax.devices('cuda'))\" (its error names the cause; then cudb explain \"<that line>\")", fw.interpreter()))
		}
	}
	return nil
}

func jaxHasGPU(ds []host.JAXDevice) bool {
	for _, d := range ds {
		if d.Platform == "gpu" || d.Platform == "cuda" {
			return true
		}
	}
	return false
}

func (v *verifier) torchRuntimeChecks(ctx context.Context, fw *framework, t *host.TorchRuntime) error {
	if t.Error != "" {
		return v.importFailed(ctx, fw, frameworks.Must(frameworks.Torch).Module, t.Error)
	}
	if t.CUDNNError != "" && t.CUDNN == "" {
		if _, err := v.explainInto(ctx, "torch.backends.cudnn.version(): "+t.CUDNNError, t.CUDNNError, v.pinTune(fw)); err != nil {
			return err
		}
	}
	if t.CUDAAvailable != nil && !*t.CUDAAvailable && len(v.f.GPUs) > 0 && v.f.Driver != nil {
		ev := "torch.cuda.is_available(): False"
		if t.CUDAError != "" {
			ev += " (" + t.CUDAError + ")"
		}
		n := 0
		if _, hidden := v.hiddenBy(); hidden {
			// the variable is the cause; the runtime error confirms it
			n = -1
			v.sees(fw, ev, "")
		}
		if t.CUDAError != "" && n == 0 {
			var err error
			if n, err = v.explainInto(ctx, ev, t.CUDAError, nil); err != nil {
				return err
			}
		}
		if n == 0 {
			v.sees(fw, ev, fmt.Sprintf("%s -c \"import torch; torch.cuda.init()\" (prints the full error; then cudb explain \"<that error>\")", fw.interpreter()))
		}
	}
	if t.KernelError != "" {
		ev := "a computation on GPU 0: " + t.KernelError
		n, err := v.explainInto(ctx, ev, t.KernelError, nil)
		if err != nil {
			return err
		}
		if n == 0 {
			v.add(findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
				Message:  fmt.Sprintf("%s initialises CUDA but a computation on GPU 0 fails: %s", fw.label, t.KernelError),
				Evidence: []string{ev}, Fix: fmt.Sprintf("%s -c \"import torch; print(torch.ones(1, device='cuda') * 2)\"", fw.interpreter())})
		}
	}
	return nil
}

// pinTune makes a missing-cuDNN finding name the cuDNN wheel this
// framework build pins, not the newest one in the database.
func (v *verifier) pinTune(fw *framework) func(*findings.Finding) {
	return func(f *findings.Finding) {
		if f.Category != findings.CatCUDNNMissing || fw.build == nil {
			return
		}
		if pr, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok {
			f.Fix = fmt.Sprintf("pip install %q (the cuDNN wheel %s pins), and keep other cuDNN copies off LD_LIBRARY_PATH", cudnnWheel(fw.cuda)+pr.Spec, fw.label)
			f.Evidence = append(f.Evidence, fmt.Sprintf("%s: pins %s%s", fw.label, cudnnWheel(fw.cuda), pr.Spec))
		}
	}
}

// importFailed explains an import error; one no pattern knows is still
// reported, since the framework does not work in that environment.
func (v *verifier) importFailed(ctx context.Context, fw *framework, module, text string) error {
	ev := "import " + module + ": " + text
	n, err := v.explainInto(ctx, ev, text, v.pinTune(fw))
	if err != nil || n > 0 {
		return err
	}
	v.add(findings.Finding{Category: findings.CatProbeIncomplete, Severity: findings.SevError,
		Message:  fmt.Sprintf("import %s fails in %s (%s); its runtime checks are skipped", module, envName(fw.py), text),
		Evidence: []string{ev}, Fix: fmt.Sprintf("%s -c \"import %s\" (shows the traceback)", fw.interpreter(), module)})
	return nil
}

// sees reports a framework that runs but sees no GPU on a host where
// one is; when a finding about that framework already explains it, the
// runtime fact joins its evidence instead.
func (v *verifier) sees(fw *framework, ev, fix string) {
	if len(v.f.GPUs) == 0 {
		// No GPU is seen at all: noGPU already said so.
		return
	}
	if h, ok := v.hiddenBy(); ok {
		// The variable is the cause: the runtime confirms it.
		for i := range v.out {
			if v.out[i].Category == findings.CatNoGPUVisible && strings.HasPrefix(v.out[i].Message, h.name+" hides") {
				v.out[i].Evidence = append(v.out[i].Evidence, fw.label+": "+ev)
				v.out[i].Severity, v.out[i].Status = findings.SevError, query.StatusIncompatible
				return
			}
		}
	}
	for i := range v.out {
		if v.out[i].Severity == findings.SevError && strings.Contains(v.out[i].Message, fw.label) {
			v.out[i].Evidence = append(v.out[i].Evidence, ev)
			return
		}
	}
	drv := "?"
	if v.f.Driver != nil {
		drv = v.f.Driver.Version
	}
	v.add(findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: fmt.Sprintf("%s sees no GPU at runtime although driver %s and %d GPU(s) (%s) are present",
			fw.label, drv, len(v.f.GPUs), v.f.GPUs[0].Name),
		Evidence: []string{ev}, Fix: fix})
}
