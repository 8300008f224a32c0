// Package host is the model of what is installed on one machine, as facts
// read without judging them: the driver, the GPUs, CUDA toolkits, cuDNN
// copies and Python environments. The probe (internal/probe)
// fills it from a live host, package query/report from a pasted report;
// verify.Verify judges it against the database.
//
// Facts is the JSON of `cudb probe --json` and one input of
// `cudb verify --from`, documented in docs/json.md. Consumers ignore
// unknown fields, so fields may be added but never renamed.
package host

// Origin values: a live probe, or a report of the named format(s).
const (
	OriginHost         = "host"
	OriginReportPrefix = "report:"
)

// Snapshot is everything seen on one host. Nil and empty fields mean "not
// seen", never "absent for sure": a report may simply not mention them.
type Snapshot struct {
	// Origin is "host" for a probe, "report:<format>[+<format>...]" for a
	// parsed report.
	Origin     string      `json:"origin"`
	Driver     *Driver     `json:"driver,omitempty"`
	DriverCUDA *DriverCUDA `json:"driver_cuda,omitempty"`
	// Kernel is what the host shows of the NVIDIA kernel driver, whatever
	// it says about GPUs. A probe always sets it; reports leave it nil.
	Kernel   *Kernel   `json:"kernel,omitempty"`
	GPUs     []GPU     `json:"gpus,omitempty"`
	Toolkits []Toolkit `json:"toolkits,omitempty"`
	// CUDAHome is $CUDA_HOME (else $CUDA_PATH) as set in the environment.
	CUDAHome string `json:"cuda_home,omitempty"`
	// CUDNN lists every cuDNN copy found, in the order a process would
	// meet them where that order is known: LD_LIBRARY_PATH directories
	// first (in order), then the loader cache, then headers and wheels.
	CUDNN         []CUDNN  `json:"cudnn,omitempty"`
	LDLibraryPath []string `json:"ld_library_path,omitempty"`
	// LDPreload is $LD_PRELOAD split: libraries the loader maps into
	// every process before anything else.
	LDPreload []string `json:"ld_preload,omitempty"`
	// VisibleDevices are the variables that choose which GPUs a process
	// sees (CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES), each only when
	// set: set and empty is a value ("", which hides every GPU).
	VisibleDevices []EnvVar `json:"visible_devices,omitempty"`
	// Pythons lists environments, the active one first.
	Pythons []Python `json:"pythons,omitempty"`
	// Errors are error lines found in a report, verbatim (trimmed).
	Errors []string `json:"errors,omitempty"`
	// Notes say what a probe could not do (timeouts, missing tools,
	// disagreeing sources).
	Notes []Note `json:"notes,omitempty"`
	// OS is the operating system a report names ("Ubuntu 22.04",
	// "Windows 11", "WSL2"), when it names one.
	OS string `json:"os,omitempty"`
	// Read says, for a parsed report, where each fact was read and how
	// sure the reading is (see Reading).
	Read []Reading `json:"read,omitempty"`
}

// EnvVar is one environment variable as set.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Driver is the NVIDIA kernel driver.
type Driver struct {
	Version string `json:"version"`
	// Source names the method that gave Version (see docs/json.md).
	Source string `json:"source"`
	// KernelModule is "open" or "proprietary" when the module said so.
	KernelModule string `json:"kernel_module,omitempty"`
	// WSL is true when Version is the Windows host's driver seen from
	// WSL2 (its numbers, 516.94, are Windows driver numbers: NVIDIA's
	// Windows floors apply).
	WSL bool `json:"wsl,omitempty"`
}

// Kernel is the NVIDIA kernel driver's presence: its module and its
// device nodes. A host that has either was set up to drive a GPU, so one
// that sees no GPU has lost it; a host with neither (a CPU machine, a
// container started without the GPU) was not.
type Kernel struct {
	// Module lists the module's files found: /proc/driver/nvidia/version,
	// /sys/module/nvidia.
	Module []string `json:"module,omitempty"`
	// DeviceNodes lists the /dev/nvidia* nodes found.
	DeviceNodes []string `json:"device_nodes,omitempty"`
}

// Present reports whether the module or a device node was found.
func (k *Kernel) Present() bool { return k != nil && (len(k.Module) > 0 || len(k.DeviceNodes) > 0) }

// DriverCUDA is the newest CUDA version the driver supports ("12.4").
type DriverCUDA struct {
	Version string `json:"version"`
	Source  string `json:"source"`
}

// GPU is one device. UUIDs are deliberately not kept: they identify a
// machine and say nothing about compatibility.
type GPU struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	// ComputeCapability ("8.6") is empty when the source cannot tell
	// (470-branch nvidia-smi, /proc): map Name through the GPU table.
	ComputeCapability string `json:"compute_capability,omitempty"`
	// ComputeCapabilitySource is "gpu_table" when the source did not
	// state the compute capability and verify looked Name up in cudb's
	// GPU table; empty when the source stated it.
	ComputeCapabilitySource string `json:"compute_capability_source,omitempty"`
	BusID                   string `json:"bus_id,omitempty"`
	MemoryMiB               int    `json:"memory_mib,omitempty"`
	MIG                     bool   `json:"mig,omitempty"`
	Source                  string `json:"source"`
}

// Toolkit is one CUDA toolkit installation.
type Toolkit struct {
	Path string `json:"path,omitempty"`
	// Version is the toolkit version without date stamps ("11.8",
	// "12.1.66"); Raw keeps the text it came from when it differs.
	Version string `json:"version,omitempty"`
	Raw     string `json:"raw,omitempty"`
	Source  string `json:"source"`
	// Nvcc is true when bin/nvcc exists in Path.
	Nvcc bool `json:"nvcc,omitempty"`
	// OnPath is true when this toolkit's nvcc is the first one on PATH.
	OnPath bool `json:"on_path,omitempty"`
	// Aliases are other paths that resolve here (/usr/local/cuda).
	Aliases []string `json:"aliases,omitempty"`
}

// cuDNN sources.
const (
	CUDNNHeader        = "header"
	CUDNNLdconfig      = "ldconfig"
	CUDNNLDLibraryPath = "ld_library_path"
	// CUDNNLDPreload: a copy named in LD_PRELOAD, loaded before any other.
	CUDNNLDPreload = "ld_preload"
	CUDNNPip       = "pip"
	CUDNNConda     = "conda"
	CUDNNLib       = "lib"
)

// CUDNN is one cuDNN copy.
type CUDNN struct {
	Path string `json:"path,omitempty"`
	// Version is "major.minor.patch" when known, else just the major.
	Version string `json:"version,omitempty"`
	Major   int    `json:"major,omitempty"`
	// Raw is the text Version was read from when it differs (a wheel's
	// "9.1.0.70", a library file name, "8902").
	Raw    string `json:"raw,omitempty"`
	Source string `json:"source"`
	// Env is the Python environment prefix for pip and conda copies.
	Env string `json:"env,omitempty"`
}

// Python environment kinds.
const (
	KindVenv   = "venv"
	KindConda  = "conda"
	KindSystem = "system"
	KindPyenv  = "pyenv" // an interpreter under pyenv's versions/
	KindUser   = "user"
	KindReport = "report"
)

// Python is one Python environment and what is installed in it.
type Python struct {
	Prefix string `json:"prefix,omitempty"`
	Kind   string `json:"kind"`
	// Source says how the environment was found: "--python",
	// "VIRTUAL_ENV", "CONDA_PREFIX", "default" or a report format.
	Source string `json:"source,omitempty"`
	// Interpreter is the python3 the shell runs first on PATH when it
	// belongs to this environment ("/home/u/.pyenv/shims/python3 (pyenv
	// 3.11.7)" for a pyenv shim followed to its version).
	Interpreter string `json:"interpreter,omitempty"`
	Version     string `json:"python_version,omitempty"`
	// SitePackages are the directories read, in import order.
	SitePackages []string `json:"site_packages,omitempty"`
	// Packages maps PEP 503 normalized names to versions.
	Packages map[string]string `json:"packages,omitempty"`
	// CondaPackages maps conda package names to versions (conda-meta).
	CondaPackages map[string]string `json:"conda_packages,omitempty"`
	// NvidiaWheels is the nvidia-* subset of Packages.
	NvidiaWheels map[string]string `json:"nvidia_wheels,omitempty"`
	Torch        *Torch            `json:"torch,omitempty"`
	TensorFlow   *TensorFlow       `json:"tensorflow,omitempty"`
	JAX          *JAX              `json:"jax,omitempty"`
	// Frameworks indexes every framework of the framework table found in
	// the environment by its canonical name: the package that installs
	// it, its version and its companions', as the table declares them
	// (DeriveWith). It is derived from Packages and CondaPackages on
	// every read (probe, report), so it is not written to JSON; the typed
	// fields above keep what a framework's own version reader saw.
	Frameworks map[string]*Installed `json:"-"`
	// Runtime is what the environment's interpreter said about itself
	// (`--deep` only); nil when it was not asked.
	Runtime *Runtime `json:"runtime,omitempty"`
}

// RuntimeInterpreter is Runtime.Source for facts printed by the
// environment's own interpreter.
const RuntimeInterpreter = "interpreter"

// Runtime is what importing the frameworks in one environment showed:
// the libraries the process really loaded and the devices it really saw,
// which files can only predict.
type Runtime struct {
	Source string `json:"source"`
	// Interpreter is the program that was run.
	Interpreter string        `json:"interpreter"`
	Python      string        `json:"python_version,omitempty"`
	Torch       *TorchRuntime `json:"torch,omitempty"`
	TensorFlow  *TFRuntime    `json:"tensorflow,omitempty"`
	JAX         *JAXRuntime   `json:"jax,omitempty"`
}

// TorchRuntime is what an imported torch reported. Error alone is set
// when `import torch` failed.
type TorchRuntime struct {
	Version string `json:"version,omitempty"`
	// CUDA is torch.version.cuda; empty for CPU builds.
	CUDA string `json:"cuda,omitempty"`
	// CUDNN is the cuDNN loaded ("8.9.2"), decoded from
	// torch.backends.cudnn.version() (CUDNNRaw) or, when that refused a
	// mismatched copy, from its error text.
	CUDNN      string `json:"cudnn,omitempty"`
	CUDNNRaw   string `json:"cudnn_raw,omitempty"`
	CUDNNError string `json:"cudnn_error,omitempty"`
	// CUDAAvailable is torch.cuda.is_available(); CUDAError is the error
	// torch.cuda.init() raised when it was false.
	CUDAAvailable *bool  `json:"cuda_available,omitempty"`
	CUDAError     string `json:"cuda_error,omitempty"`
	DeviceCount   *int   `json:"device_count,omitempty"`
	// ArchList is torch.cuda.get_arch_list() (empty without CUDA).
	ArchList []string        `json:"arch_list,omitempty"`
	Devices  []RuntimeDevice `json:"devices,omitempty"`
	NCCL     string          `json:"nccl,omitempty"`
	// KernelError is the error of a one-element computation on GPU 0.
	KernelError string `json:"kernel_error,omitempty"`
	Error       string `json:"error,omitempty"`
}

// RuntimeDevice is one device as torch saw it.
type RuntimeDevice struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	ComputeCapability string `json:"compute_capability,omitempty"`
}

// TFRuntime is what an imported TensorFlow reported.
type TFRuntime struct {
	Version     string `json:"version,omitempty"`
	CUDA        string `json:"cuda,omitempty"`
	CUDNN       string `json:"cudnn,omitempty"`
	IsCUDABuild *bool  `json:"is_cuda_build,omitempty"`
	// GPUs is len(tf.config.list_physical_devices('GPU')).
	GPUs  *int   `json:"gpus,omitempty"`
	Error string `json:"error,omitempty"`
}

// JAXRuntime is what an imported JAX reported.
type JAXRuntime struct {
	Version string      `json:"version,omitempty"`
	Devices []JAXDevice `json:"devices,omitempty"`
	Error   string      `json:"error,omitempty"`
}

// JAXDevice is one entry of jax.devices().
type JAXDevice struct {
	Platform string `json:"platform"`
	Kind     string `json:"kind,omitempty"`
}

// Torch is an installed PyTorch build.
type Torch struct {
	// Version is the full version with its local label ("2.1.0+cu121").
	Version string `json:"version"`
	// CUDA is the CUDA it was built with ("12.1"); empty for CPU builds.
	CUDA string `json:"cuda,omitempty"`
	// Variant is "cu121", "cpu", "rocm6.0", "xpu"; empty when unknown.
	Variant string `json:"variant,omitempty"`
	Source  string `json:"source"`
	// Requires are the wheel's nvidia-* Requires-Dist lines.
	Requires []string `json:"requires,omitempty"`
	// CUDNN is the cuDNN the build was compiled against, as
	// torch.__config__.show() states it ("9.19.0"): the build's, not a
	// copy installed on the host.
	CUDNN string `json:"cudnn,omitempty"`
}

// TensorFlow is an installed TensorFlow build.
type TensorFlow struct {
	Version  string   `json:"version,omitempty"`
	Package  string   `json:"package,omitempty"`
	CUDA     string   `json:"cuda,omitempty"`
	CUDNN    string   `json:"cudnn,omitempty"`
	IsGPU    *bool    `json:"is_gpu,omitempty"`
	Source   string   `json:"source"`
	Requires []string `json:"requires,omitempty"`
}

// JAX is an installed JAX with its jaxlib and CUDA plugins.
type JAX struct {
	Version string `json:"version,omitempty"`
	Jaxlib  string `json:"jaxlib,omitempty"`
	// Plugins maps plugin package names (jax-cuda12-plugin,
	// jax-cuda12-pjrt) to versions.
	Plugins  map[string]string `json:"plugins,omitempty"`
	Requires []string          `json:"requires,omitempty"`
}

// Installed is one framework found in an environment.
type Installed struct {
	// Name is the framework's canonical name.
	Name string
	// Package is the pip (or conda) package that installs it.
	Package string
	Version string
	// Companions maps its companions found beside it to their versions.
	Companions map[string]string
	// Source says where the version was read ("metadata", "conda-meta",
	// a report format, or "report key" for a labelled line).
	Source string
}

// Note is something a probe could not do or wants the reader to know.
type Note struct {
	Probe   string `json:"probe"`
	Message string `json:"message"`
}

// How sure a reading is.
const (
	// SureExact: read from a known output format (collect_env,
	// nvidia-smi, pip list, ...), field by field.
	SureExact = "exact"
	// SureText: found in free text (prose, markdown lists, log lines);
	// it never overrides an exact reading.
	SureText = "text"
)

// Reading is one fact of a report and where it came from.
type Reading struct {
	// Fact names what was read: driver, driver_cuda, gpu, cuda, cudnn,
	// python, os, torch, tensorflow, jax, onnxruntime, package,
	// ld_library_path, error.
	Fact  string `json:"fact"`
	Value string `json:"value"`
	// Format is the report format it came from ("nvidia_smi", "text").
	Format string `json:"format"`
	// Line is the 1-based line of the report, when known.
	Line int    `json:"line,omitempty"`
	Sure string `json:"sure"`
}
