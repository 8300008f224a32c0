// Package frameworks is the one table that declares each machine-learning
// framework cudb knows: its canonical name and aliases, the pip and conda
// packages that install it, the companions released in lockstep, how its
// version is read from an environment and from pasted reports, and the
// indexes, extras and channels pins use. Everything else reads this
// table; adding a framework is one entry here plus its data.
package frameworks

import "strings"

// Canonical names: the component names the data, requirements and JSON use.
const (
	Torch       = "torch"
	TorchVision = "torchvision"
	TorchAudio  = "torchaudio"
	TensorFlow  = "tensorflow"
	JAX         = "jax"
	JAXLib      = "jaxlib"
	ONNXRuntime = "onnxruntime-gpu"
)

// Framework declares one framework.
type Framework struct {
	// Name is the canonical component name.
	Name string
	// Label is the name people write in prose ("PyTorch").
	Label string
	// Matrix names its `cudb matrix` table.
	Matrix string
	// Aliases are other spellings a requirement may use.
	Aliases []string
	// Packages are the pip distributions that install it, the main one
	// first; the others are variants of the same release line.
	Packages []string
	// Filters are aliases that name a distinct pip package: asking for one
	// keeps only that package's builds (tensorflow-gpu).
	Filters []string
	// Companions are released in lockstep and pinned with it.
	Companions []string
	// Module is the Python import name.
	Module string
	// VersionFile is where an installed copy states its version and build,
	// relative to site-packages ("" when only the metadata says).
	VersionFile string
	// PluginPrefix starts the names of its CUDA plugin wheels (jax-cuda).
	PluginPrefix string
	// GPUExtra is the pip extra that brings CUDA libraries as wheels
	// ("and-cuda"); "" when the framework has none or names it per CUDA.
	GPUExtra string
	// CondaName is its package name on conda channels ("pytorch").
	CondaName string
	// CondaChannel is the channel that published its CUDA builds.
	CondaChannel string
	// CondaAliases are other conda packages that install it
	// (conda-forge's pytorch-gpu).
	CondaAliases []string
	// FeedLacksDeps: the indexes of its non-PyPI builds hold its own
	// wheels but not their dependencies (ONNX Runtime's Azure DevOps
	// feeds, which its install page pairs with PyPI), so an install reads
	// the feed first, for its wheel, and PyPI after it, for the rest.
	FeedLacksDeps bool
	// CPUPackage is a CPU-only package that installs the same Python
	// module: installed beside the GPU package, whichever was installed
	// last owns the module ("onnxruntime" beside "onnxruntime-gpu").
	CPUPackage string
	// LogMarkers are lowercase substrings of the framework's own log and
	// traceback lines (source paths of its logging calls, its package
	// directory): a line is the framework's whose marker appears first
	// in it. JAX's list holds the paths of the XLA it vendors, so an XLA
	// line from a JAX process is not taken for TensorFlow's.
	LogMarkers []string
	// IndexHosts are the hosts (with a path prefix where one host serves
	// several projects) of the indexes and wheel pages that publish its
	// non-PyPI builds. Such an index serves this framework's family only:
	// an --extra-index-url to it changes the build pip takes of this
	// framework and of no other.
	IndexHosts []string
	// ReportKeys are the labels a pasted report states the installed
	// version under ("PyTorch version: 2.1.0" in collect_env), read by
	// the report parser's generic reader; the pip and conda names above
	// are read from package lists.
	ReportKeys []string
}

// Table is a list of frameworks, in the order answers show them. All is
// cudb's; a caller that judges with another table (a test adding a
// framework) passes it to the probe, the report parser, verify and check
// through their options.
type Table []Framework

// All lists every framework, in the order answers show them.
var All = Table{
	{Name: Torch, Label: "PyTorch", Matrix: "torch", Aliases: []string{"pytorch"}, Packages: []string{Torch},
		Companions: []string{TorchVision, TorchAudio}, Module: "torch", VersionFile: "torch/version.py",
		CondaName: "pytorch", CondaChannel: "pytorch", CondaAliases: []string{"pytorch-gpu", "pytorch-cpu"}, IndexHosts: []string{"download.pytorch.org"},
		ReportKeys: []string{"PyTorch version"},
		LogMarkers: []string{"packages/torch/", "torch/csrc", "c10d", "processgroupnccl", "torch.distributed", "torch._c"}},
	{Name: TensorFlow, Label: "TensorFlow", Matrix: "tensorflow", Aliases: []string{"tensorflow-gpu", "tf"},
		Packages: []string{TensorFlow, "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel", "tf-nightly"}, Filters: []string{"tensorflow-gpu"},
		Module: "tensorflow", VersionFile: "tensorflow/python/platform/build_info.py",
		GPUExtra: "and-cuda", ReportKeys: []string{"TensorFlow version"}, LogMarkers: []string{"packages/tensorflow/", "tensorflow/core/", "tensorflow/compiler/", "tensorflow/stream_executor/", "tensorflow/python/", "tensorflow.python", "external/local_xla/", "external/local_tsl/"}},
	{Name: JAX, Label: "JAX", Matrix: "jax", Packages: []string{JAX}, Companions: []string{JAXLib}, Module: "jax",
		PluginPrefix: "jax-cuda", IndexHosts: []string{"storage.googleapis.com/jax-releases"}, ReportKeys: []string{"JAX version"},
		LogMarkers: []string{"packages/jax/", "packages/jaxlib/", "jax/_src", "jaxlib/", "jax_plugins", "xla_bridge", "external/org_tensorflow/", "external/xla/"}},
	{Name: ONNXRuntime, Label: "ONNX Runtime", Matrix: "onnxruntime", Aliases: []string{"onnxruntime", "ort"}, Packages: []string{ONNXRuntime},
		Module: "onnxruntime", FeedLacksDeps: true, ReportKeys: []string{"ONNX Runtime version"}, CPUPackage: "onnxruntime", IndexHosts: []string{"aiinfra.pkgs.visualstudio.com"},
		LogMarkers: []string{"packages/onnxruntime/", "onnxruntime_src", ":onnxruntime:", "onnxruntime.capi", "onnxruntime_pybind", "onnxruntime::"}},
}

// Get returns the framework named name (canonical name or alias) in All.
func Get(name string) (Framework, bool) { return All.Get(name) }

// Get returns the framework named name (canonical name or alias).
func (t Table) Get(name string) (Framework, bool) {
	n := strings.ToLower(name)
	for _, f := range t {
		if f.Name == n {
			return f, true
		}
		for _, a := range f.Aliases {
			if a == n {
				return f, true
			}
		}
	}
	return Framework{}, false
}

// Must returns the framework with canonical name name; it panics on a
// name the table does not hold, which is a programming error.
func Must(name string) Framework {
	f, ok := Get(name)
	if !ok {
		panic("frameworks: no framework " + name)
	}
	return f
}

// Of names the framework a pip package belongs to: the framework for its
// own packages and its companions (torchvision → torch); ok is false for
// anything else.
func Of(pkg string) (Framework, bool) { return All.Of(pkg) }

// Of names the framework of the table a pip package belongs to.
func (t Table) Of(pkg string) (Framework, bool) {
	n := strings.ToLower(pkg)
	for _, f := range t {
		if f.Name == n || contains(f.Packages, n) || contains(f.Companions, n) {
			return f, true
		}
	}
	return Framework{}, false
}

// IsMain reports whether pkg installs a framework itself rather than a
// companion.
func IsMain(pkg string) bool { return All.IsMain(pkg) }

// IsMain reports whether pkg installs a framework of the table itself.
func (t Table) IsMain(pkg string) bool {
	n := strings.ReplaceAll(strings.ToLower(pkg), "_", "-")
	f, ok := t.Of(n)
	return ok && (f.Name == n || contains(f.Packages, n))
}

// Or is t, or All when t is nil: options that take a table default to
// cudb's.
func (t Table) Or() Table {
	if t == nil {
		return All
	}
	return t
}

// Names lists every spelling the table knows: canonical names, aliases,
// packages and companions.
func Names() []string {
	var out []string
	for _, f := range All {
		out = append(out, f.Name)
		out = append(out, f.Aliases...)
		out = append(out, f.Packages...)
		out = append(out, f.Companions...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
