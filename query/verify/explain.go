package verify

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
)

type explainCtx struct {
	d *db.DB
	// table names the framework of a log line (its log markers).
	table frameworks.Table
	// lines and at are the text being explained and the line of the
	// match: a signature may read the lines around it (JAX's CPU
	// fallback after CUDA found no device is not a missing plugin).
	lines []string
	at    int
}

// linesBefore returns up to n lines before the match.
func (e *explainCtx) linesBefore(ctx context.Context, n int) []string {
	if e.at > len(e.lines) {
		return nil
	}
	return e.lines[max(0, e.at-n):e.at]
}

// ExplainResult is `cudb explain --json` and POST /v1/explain's body.
type ExplainResult struct {
	Findings []findings.Finding `json:"findings"`
	// Lines counts the distinct error lines that matched a known cause;
	// Skipped those beyond MaxExplainedLines, left unexplained.
	Lines   int `json:"lines"`
	Skipped int `json:"skipped"`
}

// Explain matches error text (one message or a pasted log) to causes.
// Each recognised cause gives one finding, in the order of the lines
// that state it; text that matches none is a errs.CodeNotFound error.
// ExplainAll also says how many error lines it left unexplained.
func Explain(ctx context.Context, d *db.DB, text string) ([]findings.Finding, error) {
	x, err := ExplainAll(ctx, d, text)
	if err != nil {
		return nil, err
	}
	return x.Findings, nil
}

// driverSources cites the Linux floor rows of cuda that an answer used.
func (e *explainCtx) driverSources(ctx context.Context, cuda string) []query.SourceRef {
	return nvidia.FloorSources(ctx, e.d, cuda, "linux")
}

// cudaFromInt turns cudaDriverGetVersion's 11040 into "11.4".
func cudaFromInt(n int) string { return fmt.Sprintf("%d.%d", n/1000, (n%1000)/10) }

// newestTorch resolves torch under extra constraints and returns the best
// stack's install command and version.
func (e *explainCtx) newestTorch(ctx context.Context, r query.ResolveRequest) (string, string) {
	if len(r.Requirements) == 0 {
		r.Requirements = []string{frameworks.Torch}
	}
	if r.Platform == "" {
		r.Platform = "linux"
	}
	res, err := query.Resolve(ctx, e.d, r)
	if err != nil || len(res.Stacks) == 0 {
		return "", ""
	}
	s := res.Stacks[0]
	return s.Install.Command, s.Packages[frameworks.Torch] + " (" + s.Variant + ")"
}

// toolkitDriver is the Linux toolkit floor of CUDA cuda ("11.4" → the
// 11.4 GA driver), the oldest driver that states that CUDA.
func (e *explainCtx) toolkitDriver(ctx context.Context, cuda string) string {
	fl, err := nvidia.DriverFloors(ctx, e.d, cuda)
	if err != nil {
		return ""
	}
	return fl.LinuxMin
}

// newestMajorFloor is the minor-compatibility floor of the newest CUDA
// major the database knows.
func (e *explainCtx) newestMajorFloor(ctx context.Context) (major, floor string) {
	table, err := e.d.CUDADrivers(ctx)
	if err != nil {
		return "", ""
	}
	for i := len(table) - 1; i >= 0; i-- { // newest CUDA first
		if t := table[i]; t.Kind == "minor_compat" && t.OS == "linux" {
			return t.CUDA, t.MinDriver
		}
	}
	return "", ""
}

func (e *explainCtx) driverFoundVersion(ctx context.Context, m []string) (findings.Finding, error) {
	n, _ := strconv.Atoi(m[1])
	cuda := cudaFromInt(n)
	f := findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
		Message:  fmt.Sprintf("the driver supports CUDA up to %s, older than the CUDA this PyTorch build was compiled with", cuda),
		Evidence: []string{fmt.Sprintf("driver CUDA: %s (found version %s)", cuda, m[1])}, Sources: e.driverSources(ctx, cuda)}
	var fixes []string
	if maj, _ := strconv.Atoi(version.MajorText(cuda)); maj > 0 {
		next := strconv.Itoa(maj + 1)
		if floor, _ := nvidia.MinDriver(ctx, e.d, next, "linux", "minor_compat"); floor != "" {
			fixes = append(fixes, fmt.Sprintf("for a cu%s build (CUDA %s.x) upgrade the driver to >= %s", next, next, floor))
		}
	}
	if drv := e.toolkitDriver(ctx, cuda); drv != "" {
		if cmd, ver := e.newestTorch(ctx, query.ResolveRequest{Driver: drv}); cmd != "" {
			fixes = append(fixes, fmt.Sprintf("or keep the driver (CUDA %s) with torch %s: %s", cuda, ver, cmd))
		}
	}
	if len(fixes) == 0 {
		fixes = append(fixes, "cudb resolve torch --driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)")
	}
	f.Fix = strings.Join(fixes, "; ")
	return f, nil
}

func (e *explainCtx) containerCLI(ctx context.Context, m []string) (findings.Finding, error) {
	cuda := m[1]
	f := findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
		Message:  fmt.Sprintf("the container image requires CUDA >= %s and the host driver is older than that CUDA's floor", cuda),
		Evidence: []string{"image requirement: cuda>=" + cuda}, Sources: e.driverSources(ctx, cuda)}
	fl, err := nvidia.DriverFloors(ctx, e.d, cuda)
	if err != nil {
		if errs.CodeOf(err) != errs.CodeNotFound {
			return f, err
		}
		f.Fix = "upgrade the host's NVIDIA driver (cudb matrix cuda lists each CUDA's floor), or use an image built for an older CUDA"
		return f, nil
	}
	f.Fix = fmt.Sprintf("upgrade the host's NVIDIA driver to >= %s (CUDA %s), or use an image built for the CUDA your driver reports in nvidia-smi", fl.LinuxMin, fl.CUDA)
	if fl.MinorCompatLinuxMin != "" {
		f.Fix += fmt.Sprintf("; with a driver >= %s the image can run via minor-version compatibility: docker run -e NVIDIA_DISABLE_REQUIRE=1 ...", fl.MinorCompatLinuxMin)
	}
	f.Evidence = append(f.Evidence, fmt.Sprintf("CUDA %s Linux driver floor: %s", fl.CUDA, fl.LinuxMin))
	return f, nil
}

func (e *explainCtx) driverInsufficient(ctx context.Context, m []string) (findings.Finding, error) {
	major, floor := e.newestMajorFloor(ctx)
	fix := "cudb verify (compares the driver with the installed framework's CUDA), or cudb resolve torch --driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1) for a build that runs on it"
	if floor != "" {
		fix += fmt.Sprintf("; any CUDA %s.x build runs on a driver >= %s", major, floor)
	}
	return findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
		Message: "the installed driver is older than the CUDA runtime the framework was built with",
		Fix:     fix, Sources: e.driverSources(ctx, major)}, nil
}

// firstTorchWith is the oldest torch release with a wheel carrying SASS
// for cc.
func firstTorchWith(ctx context.Context, d *db.DB, cc string) (ver, variant string, err error) {
	builds, err := d.Builds(ctx, frameworks.Torch, nil)
	if err != nil {
		return "", "", err
	}
	versions, err := d.Versions(ctx, frameworks.Torch)
	if err != nil {
		return "", "", err
	}
	// Versions are newest first: the last hit is the oldest release.
	rank := make(map[string]int, len(versions))
	for i, v := range versions {
		rank[v] = i
	}
	best, bestCUDA := -1, ""
	for _, b := range builds {
		if s, _ := nvidia.GPUSupport(cc, b.ArchList); s != "sass" {
			continue
		}
		if r := rank[b.Version]; r > best || (r == best && version.CompareDottedText(b.CUDA, bestCUDA) < 0) {
			best, bestCUDA, ver, variant = r, b.CUDA, b.Version, b.Variant
		}
	}
	return ver, variant, nil
}

func (e *explainCtx) smNotCompatible(ctx context.Context, m []string) (findings.Finding, error) {
	cc, err := nvidia.ParseSM(m[1])
	if err != nil {
		return unparsedSM(m[1], "whether the installed build carries kernels for it")
	}
	f := findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("the installed PyTorch carries no kernels for compute capability %s (sm_%s)", cc, m[1]),
		Evidence: []string{"GPU compute capability: " + cc}}
	if len(m) > 2 && strings.TrimSpace(m[2]) != "" {
		f.Evidence = append(f.Evidence, "build supports: "+strings.Join(strings.Fields(m[2]), " "))
	}
	first, variant, err := firstTorchWith(ctx, e.d, cc)
	if err != nil {
		return f, err
	}
	if first != "" {
		f.Message += fmt.Sprintf("; the first torch with sm_%s is %s (%s)", m[1], first, variant)
	}
	if _, err := nvidia.ParseSMKnown(ctx, e.d, cc); err == nil {
		if cmd, _ := e.newestTorch(ctx, query.ResolveRequest{SM: cc}); cmd != "" {
			f.Fix = cmd
		}
	}
	if f.Fix == "" {
		f.Fix = "cudb resolve torch --sm " + cc
	}
	return f, nil
}

func (e *explainCtx) noKernelImage(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatArchUnsupported, Severity: findings.SevError,
		Message: "the GPU has no kernel in the framework build: the build's architecture list lacks the GPU's compute capability (or a same-major lower one) and PTX to JIT",
		Fix:     "cudb resolve torch --gpu \"$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)\" (names a build that carries the GPU's sm), or cudb verify"}, nil
}

// cudnnWheelPin is the newest nvidia-cudnn-cu* pin in the database whose
// version starts with prefix ("8.9.2").
func (e *explainCtx) cudnnWheelPin(ctx context.Context, prefix string) string {
	best, bestCUDA := "", ""
	for _, fw := range e.table { // only framework wheels pin nvidia-* packages
		builds, err := e.d.Builds(ctx, fw.Name, nil)
		if err != nil {
			return ""
		}
		for _, b := range builds {
			for _, r := range b.Reqs {
				if r.Kind != db.KindPin || !strings.HasPrefix(r.Needs, "nvidia-cudnn-cu") {
					continue
				}
				if r.Spec != "=="+prefix && !strings.HasPrefix(r.Spec, "=="+prefix+".") {
					continue
				}
				pin := r.Needs + r.Spec
				if c := version.CompareDottedText(b.CUDA, bestCUDA); best == "" || c > 0 || (c == 0 && pin > best) {
					best, bestCUDA = pin, b.CUDA
				}
			}
		}
	}
	return best
}

func (e *explainCtx) torchCUDNN(ctx context.Context, m []string) (findings.Finding, error) {
	want := m[1] + "." + m[2] + "." + m[3]
	have := m[4] + "." + m[5] + "." + m[6]
	sev := findings.SevError
	f := findings.Finding{Category: findings.CatCUDNNMismatch, Severity: sev,
		Message:  fmt.Sprintf("PyTorch was built with cuDNN %s but loaded cuDNN %s, another copy found first (LD_LIBRARY_PATH or the system)", want, have),
		Evidence: []string{"compiled against cuDNN " + want, "runtime cuDNN " + have}}
	fix := "unset LD_LIBRARY_PATH (or remove the directory holding the cuDNN " + have + " copy) so torch loads its own cuDNN"
	if pin := e.cudnnWheelPin(ctx, want); pin != "" {
		fix += fmt.Sprintf("; reinstall the expected copy: pip install %q", pin)
	}
	f.Fix = fix
	return f, nil
}

func (e *explainCtx) tfCUDNN(ctx context.Context, m []string) (findings.Finding, error) {
	have, want := m[1], m[2]
	f := findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
		Message:  fmt.Sprintf("XLA (TensorFlow's or JAX's GPU compiler; the framework line names which) was built with cuDNN %s but loaded cuDNN %s", want, have),
		Evidence: []string{"compiled with cuDNN " + want, "runtime cuDNN " + have}}
	if pin := e.cudnnWheelPin(ctx, want); pin != "" {
		f.Fix = fmt.Sprintf("pip install %q (and unset LD_LIBRARY_PATH if an older copy is on it)", pin)
	} else {
		f.Fix = fmt.Sprintf("load cuDNN >= %s of the same major first: unset LD_LIBRARY_PATH if an older copy is on it, and install the cuDNN the framework release pins (cudb pin tensorflow==<version> or cudb pin jax==<version> names it)", want)
	}
	return f, nil
}

// cudnnFromInt normalises cuDNN integers: 8907 → 8.9.7, 90100 → 9.1.0.
func cudnnFromInt(s string) string {
	n, err := strconv.Atoi(s)
	if err != nil {
		return s
	}
	if n >= 90000 {
		return fmt.Sprintf("%d.%d.%d", n/10000, (n%10000)/100, n%100)
	}
	return fmt.Sprintf("%d.%d.%d", n/1000, (n%1000)/100, n%100)
}

func (e *explainCtx) jaxCUDNN(ctx context.Context, m []string) (findings.Finding, error) {
	built, min, have := cudnnFromInt(m[1]), cudnnFromInt(m[2]), cudnnFromInt(m[3])
	maj := version.MajorText(min)
	minMinor := strings.Join(strings.Split(min, ".")[:2], ".")
	return findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
		Message:  fmt.Sprintf("JAX needs cuDNN >= %s (built against %s) but found %s", min, built, have),
		Evidence: []string{"built against " + built, "minimum " + min, "installed " + have},
		Fix:      fmt.Sprintf("pip install \"nvidia-cudnn-cu12>=%s\" (cuDNN %s.x; or pip install -U \"jax[cuda12]\"), and unset LD_LIBRARY_PATH if an older copy is on it", minMinor, maj)}, nil
}

func (e *explainCtx) missingLib(ctx context.Context, m []string) (findings.Finding, error) {
	lib, ver := m[1], m[2]
	soname := lib + ".so"
	if ver != "" {
		soname += "." + ver
	}
	switch {
	case lib == "libcuda" || lib == "libnvidia_ml" || lib == "libnvidia-ml":
		return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
			Message:  soname + ", the driver's own library, is not on the loader path: no NVIDIA driver in this environment (a container without --gpus, or WSL2 without /usr/lib/wsl/lib on the path)",
			Evidence: []string{"missing: " + soname},
			Fix:      "in Docker run with --gpus all; on WSL2: sudo ldconfig /usr/lib/wsl/lib (or export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH); elsewhere install the NVIDIA driver"}, nil
	case ver == "" && strings.HasPrefix(lib, "libcudnn"):
		return findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
			Message:  soname + " is not on the loader path: the framework finds no cuDNN",
			Evidence: []string{"missing: " + soname},
			Fix:      "install the cuDNN the framework needs (cudb pin <framework>==<version> names it), e.g. pip install nvidia-cudnn-cu12"}, nil
	case ver == "":
		return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
			Message:  soname + " is not on the loader path: a CUDA library the program needs is missing",
			Evidence: []string{"missing: " + soname},
			Fix:      "install the CUDA toolkit (or the framework's nvidia-* wheels) and add its lib64 directory to LD_LIBRARY_PATH"}, nil
	case lib == "libnvinfer" || strings.HasPrefix(lib, "libnvinfer_"):
		return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevWarning,
			Message:  soname + " (TensorRT " + ver + ") is not on the loader path; frameworks use it only for TensorRT features",
			Evidence: []string{"missing: " + soname},
			Fix:      "ignore it unless you use TensorRT; otherwise pip install tensorrt (the major " + version.MajorText(ver) + " the framework expects)"}, nil
	}
	if strings.HasPrefix(lib, "libcudnn") {
		major := version.MajorText(ver)
		f := findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
			Message:  fmt.Sprintf("%s is not on the loader path: the framework needs cuDNN %s and finds none", soname, major),
			Evidence: []string{"missing: " + soname}}
		pin := e.cudnnWheelPin(ctx, major)
		switch {
		case pin != "":
			f.Fix = fmt.Sprintf("pip install %q (pip wheel), or sudo apt-get install libcudnn%s (system copy, for frameworks that load it from the system)", pin, major)
		default:
			f.Fix = fmt.Sprintf("sudo apt-get install libcudnn%s", major)
		}
		if major == "8" {
			f.Fix += "; TensorFlow >= 2.14 can bring its own: pip install \"tensorflow[and-cuda]\""
		}
		return f, nil
	}
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s is not on the loader path: the CUDA %s runtime libraries the framework was built against are missing", soname, ver),
		Evidence: []string{"missing: " + soname},
		Fix:      fmt.Sprintf("install the CUDA %s libraries (the framework's pip extras, e.g. pip install \"tensorflow[and-cuda]\", or the toolkit) and add their lib64 directory to LD_LIBRARY_PATH", version.MajorText(ver))}, nil
}

func (e *explainCtx) nvJitLink(ctx context.Context, m []string) (findings.Finding, error) {
	need := m[2] + "." + m[3]
	return findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevError,
		Message:  fmt.Sprintf("an older libnvJitLink.so.%s (before CUDA %s) is loaded ahead of the one the framework needs (it calls %s_%s_%s)", m[4], need, m[1], m[2], m[3]),
		Evidence: []string{"needs libnvJitLink from CUDA >= " + need},
		Fix:      fmt.Sprintf("pip install \"nvidia-nvjitlink-cu%s>=%s\" and unset LD_LIBRARY_PATH (an older toolkit's lib64 on it shadows the wheel's copy)", m[4], need)}, nil
}

func (e *explainCtx) toolkitMismatch(ctx context.Context, m []string) (findings.Finding, error) {
	detected, built := m[1], m[2]
	sev := findings.SevWarning
	if version.MajorText(detected) != version.MajorText(built) {
		sev = findings.SevError
	}
	fix := fmt.Sprintf("export CUDA_HOME=/usr/local/cuda-%s (install CUDA %s if absent: conda install -c nvidia cuda-toolkit=%s)", built, built, built)
	if cmd, ver := e.newestTorch(ctx, query.ResolveRequest{CUDA: detected}); cmd != "" {
		fix += fmt.Sprintf("; or use torch %s built for CUDA %s: %s", ver, detected, cmd)
	}
	return findings.Finding{Category: findings.CatToolkitMismatch, Severity: sev,
		Message:  fmt.Sprintf("the CUDA toolkit used to build extensions is %s but PyTorch was built with CUDA %s", detected, built),
		Evidence: []string{"CUDA_HOME/nvcc: " + detected, "torch CUDA: " + built}, Fix: fix}, nil
}

func (e *explainCtx) torchCPU(ctx context.Context, m []string) (findings.Finding, error) {
	fix := "cudb pin torch --format pip (names the CUDA build for your driver with --driver)"
	// The message is most often seen on Windows, where PyPI's torch is
	// the CPU-only wheel: the command names the CUDA index, which serves
	// the same build for Linux and Windows.
	if cmd, _ := e.newestTorch(ctx, query.ResolveRequest{Platform: "windows"}); cmd != "" {
		fix = "pip uninstall -y torch && " + cmd + " (or cudb resolve torch --driver <your driver> for a build matched to it)"
	}
	return findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message: "a CPU-only torch is installed (a +cpu wheel, or the macOS/CPU index)",
		Fix:     fix}, nil
}

func (e *explainCtx) cudaUnknown(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "CUDA cannot initialise: usually the kernel driver and its user-space libraries differ (a driver upgrade without a reboot), the nvidia_uvm module is not loaded, or CUDA_VISIBLE_DEVICES names no device",
		Fix:     "sudo modprobe nvidia_uvm && nvidia-smi (if nvidia-smi reports a driver/library version mismatch, reboot); check echo $CUDA_VISIBLE_DEVICES"}, nil
}

func (e *explainCtx) noDevices(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "the driver is loaded but sees no GPU",
		Fix:     "nvidia-smi -L (in a container: docker run --gpus all ...; on a VM: check the GPU is attached; on bare metal: lspci | grep -i nvidia)"}, nil
}

func (e *explainCtx) smiFailed(ctx context.Context, m []string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatNoGPUVisible, Severity: findings.SevError,
		Message: "nvidia-smi cannot talk to the NVIDIA kernel driver (module not loaded, or built for another kernel)",
		Fix:     "sudo modprobe nvidia && nvidia-smi (if it fails, reinstall the driver for the running kernel, e.g. sudo apt-get install --reinstall nvidia-dkms-<branch>, then reboot)"}, nil
}

// unparsedSM is the answer when a message names an sm_/compute_ number
// that is not a compute capability: said, not skipped in silence.
func unparsedSM(sm, skipped string) (findings.Finding, error) {
	return findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
		Message:  query.UnparsedText("the message", "compute capability", "sm_"+sm, skipped),
		Evidence: []string{"named in the message: sm_" + sm}}, nil
}
