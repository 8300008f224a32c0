package check

// Kind is the format of a project file.
type Kind string

// File kinds, detected by Detect.
const (
	KindDockerfile   Kind = "dockerfile"
	KindCompose      Kind = "compose"
	KindRequirements Kind = "requirements" // requirements*.txt, constraints, pip freeze
	KindPyproject    Kind = "pyproject"
	KindUVLock       Kind = "uv.lock"
	KindPoetryLock   Kind = "poetry.lock"
	KindCondaEnv     Kind = "conda-environment"
)

// Kinds lists every file kind, for documentation and errors.
var Kinds = []Kind{KindDockerfile, KindCompose, KindRequirements, KindPyproject, KindUVLock, KindPoetryLock, KindCondaEnv}

// Installers name what installs a requirement.
const (
	InstallerPip   = "pip"
	InstallerUV    = "uv"
	InstallerConda = "conda"
	InstallerLock  = "lock"
)

// Requirement is one package a file asks for.
type Requirement struct {
	// Name is the PEP 503 normalised name (conda names as written).
	Name string `json:"name"`
	// Spec is the version specifier as written ("==2.1.0", ">=2"), or
	// "" when the file names no version.
	Spec   string   `json:"spec,omitempty"`
	Extras []string `json:"extras,omitempty"`
	Marker string   `json:"marker,omitempty"`
	Line   int      `json:"line"`
	// IndexURL is the index the requirement is installed from, when the
	// file says (--index-url, a uv index, a lock's registry, a conda
	// channel); "" is PyPI's default. For a framework, check replaces it
	// with the index that serves it among IndexURL, ExtraIndexURLs and
	// FindLinks (servingIndex), as pip and uv choose.
	IndexURL string `json:"index_url,omitempty"`
	// ExtraIndexURLs are the --extra-index-url (and uv's non-explicit
	// indexes after the first) that apply to the requirement.
	ExtraIndexURLs []string `json:"extra_index_urls,omitempty"`
	// FindLinks are the -f/--find-links locations that apply to it.
	FindLinks []string `json:"find_links,omitempty"`
	// Source names the uv source (its index name) that routes it.
	Source string `json:"source,omitempty"`
	// Scenario is the alternative the requirement belongs to: a
	// project extra or dependency group ("extra cu128"), one branch of a
	// shell conditional ("line 7: then"), a lock's index. Requirements
	// of different scenarios are judged apart (judgeScenarios); "" is
	// what every scenario installs.
	Scenario string `json:"scenario,omitempty"`
	// Unseen is a source the requirement may come from that cudb cannot
	// read (a local wheelhouse, a private index): a build it does not know
	// may be served there.
	Unseen string `json:"unseen_source,omitempty"`
	// Wheel is the file a direct wheel reference names.
	Wheel *Wheel `json:"wheel,omitempty"`
	// Installer is pip, uv, conda or lock.
	Installer string `json:"installer"`
	// Constraint is true for a constraints file's lines (-c): they limit
	// versions but install nothing.
	Constraint bool `json:"constraint,omitempty"`
	// File is the file that names it, when it is not the unit's own.
	File string `json:"file,omitempty"`
	// Package is the name as the file wrote it when check judges it as
	// another (tensorflow-cpu is judged as tensorflow's CPU build).
	Package string `json:"package,omitempty"`
}

// Pinned reports whether the requirement names exactly one version.
func (r Requirement) Pinned() bool {
	return len(r.Spec) > 2 && r.Spec[:2] == "==" && !containsAny(r.Spec[2:], ",*<>!~")
}

// Image is a container base image reference, classified.
type Image struct {
	Ref  string `json:"ref"`
	Line int    `json:"line"`
	// Family is nvidia-cuda, pytorch/pytorch, tensorflow/tensorflow, ngc-pytorch, python or
	// other.
	Family string `json:"family"`
	Tag    string `json:"tag,omitempty"`
	// CUDA is the CUDA runtime the image carries ("12.1.0"); CUDNN the
	// cuDNN major of a cudnn flavour ("8"); Flavour is base, runtime or
	// devel for nvidia/cuda.
	CUDA    string `json:"cuda,omitempty"`
	CUDNN   string `json:"cudnn,omitempty"`
	Flavour string `json:"flavour,omitempty"`
	OS      string `json:"os,omitempty"`
	// Python is the interpreter the image's OS or tag provides, when
	// known.
	Python string `json:"python,omitempty"`
	// Framework and FrameworkVersion name a framework the image ships
	// (pytorch/pytorch, tensorflow/tensorflow).
	Framework        string `json:"framework,omitempty"`
	FrameworkVersion string `json:"framework_version,omitempty"`
	// Unknown names what cannot be read from the tag.
	Unknown string `json:"unknown,omitempty"`
}

// Package is a system package an apt line installs.
type Package struct {
	Name string `json:"name"`
	Line int    `json:"line"`
	// Text is the instruction it was read from, for fixes that edit it.
	Text string `json:"-"`
}

// EnvVar is an environment variable a file sets.
type EnvVar struct {
	Value string `json:"value"`
	Line  int    `json:"line"`
}

// GPUAccess is how a compose service asks for GPUs.
type GPUAccess struct {
	// How is "deploy.devices", "runtime", "gpus" or "" (none asked).
	How  string `json:"how,omitempty"`
	Line int    `json:"line"`
	// Driver is the device driver of a reservation ("nvidia", "amd").
	Driver       string   `json:"driver,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// BuildRef is a compose service's build, to follow into its Dockerfile.
type BuildRef struct {
	Context    string `json:"context"`
	Dockerfile string `json:"dockerfile,omitempty"`
	Line       int    `json:"line"`
}

// Unit is one environment a file describes: a Dockerfile's final stage,
// a compose service, a dependency file.
type Unit struct {
	File string `json:"file"`
	// Name is the stage or service name; "" for a dependency file.
	Name       string            `json:"name,omitempty"`
	Image      *Image            `json:"image,omitempty"`
	Reqs       []Requirement     `json:"requirements,omitempty"`
	Apt        []Package         `json:"apt,omitempty"`
	Env        map[string]EnvVar `json:"env,omitempty"`
	Python     string            `json:"python,omitempty"`
	PythonLine int               `json:"python_line,omitempty"`
	// Conda is true when the frameworks come from conda channels.
	Conda    bool     `json:"conda,omitempty"`
	Channels []string `json:"channels,omitempty"`
	// Compose-only.
	GPU   *GPUAccess `json:"gpu,omitempty"`
	Build *BuildRef  `json:"build,omitempty"`
	// Includes are files the unit installs from (-r, -c, COPY'd
	// requirement files) that the caller may read and merge.
	Includes []Include `json:"includes,omitempty"`
	// Syncs are installs from the project's own files (poetry install,
	// uv sync): they read the lock or pyproject COPY'd before them.
	Syncs []Sync `json:"syncs,omitempty"`
	// Notes are what the parser could not follow.
	Notes []Note `json:"notes,omitempty"`
	// Extensions are steps that compile CUDA extensions.
	Extensions []ExtBuild `json:"extensions,omitempty"`
	// Copies are COPY/ADD instructions (source in the build context,
	// destination in the image), to map a local install back to the
	// context; Workdir is the WORKDIR at each RUN that installs a path.
	Copies []Copy `json:"-"`
	// built is the Dockerfile a compose service builds from.
	built *Unit
	// context is the build context a compose service builds this
	// Dockerfile from ("" : the Dockerfile's own folder).
	context string
	// alt: the unit is one scenario of several (judgeScenarios).
	alt bool
	// gpuPeer: another framework of the unit is a CUDA build, so a line
	// that asks for a CPU build explicitly is a choice, not a mistake.
	gpuPeer bool
}

// Sync is a poetry install or uv sync.
type Sync struct {
	Tool string `json:"tool"`
	Line int    `json:"line"`
	// Extras are the --extra values (or "all" for --all-extras).
	Extras []string `json:"extras,omitempty"`
}

// ExtBuild is a step that compiles CUDA code against the installed
// framework (an apex --cuda_ext build, flash-attn from source, a
// TORCH_CUDA_ARCH_LIST build): torch.utils.cpp_extension compiles it
// with the image's nvcc and refuses a CUDA major other than torch's.
type ExtBuild struct {
	Line int    `json:"line"`
	What string `json:"what"`
}

// Copy is one COPY or ADD from the build context.
type Copy struct {
	Src, Dest string
	Line      int
}

// Include is a file a unit installs from.
type Include struct {
	Path       string `json:"path"`
	Line       int    `json:"line"`
	Constraint bool   `json:"constraint,omitempty"`
	IndexURL   string `json:"index_url,omitempty"`
	Installer  string `json:"installer"`
	// ExtraIndexURLs and FindLinks are the install's other sources.
	ExtraIndexURLs []string `json:"extra_index_urls,omitempty"`
	FindLinks      []string `json:"find_links,omitempty"`
	// Scenario is the branch the install is in.
	Scenario string `json:"scenario,omitempty"`
	// Extras are a local project's extras (pip install ".[gpu]").
	Extras []string `json:"extras,omitempty"`
	// Workdir is the WORKDIR a relative local path is read from.
	Workdir string `json:"workdir,omitempty"`
}

// Note is something a parser saw but could not resolve (an ARG without a
// value, a COPY --from an external image).
type Note struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func containsAny(s, chars string) bool {
	for _, c := range s {
		for _, d := range chars {
			if c == d {
				return true
			}
		}
	}
	return false
}
