package db

// Provenance says where a fact came from: the source (as listed in
// scraper/all.Sources), the page URL, and where useful the row or section.
type Provenance struct {
	Source string `json:"source"`
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
}

// Release is one published version of a component.
type Release struct {
	Component  string `json:"component"`
	Version    string `json:"version"`
	ReleasedOn string `json:"released_on,omitempty"`
	Provenance
}

// Build is one installable flavour of a release: torch 2.1.0 cu121 for
// linux-x86_64, tensorflow 2.15.0 for windows, ...
type Build struct {
	Component string `json:"component"`
	Version   string `json:"version"` // public version, no local label
	Variant   string `json:"variant"` // cu121, cpu, rocm5.6, cuda12, ...
	// Platform is "linux", "windows", "macos" or a finer tag such as
	// "linux-aarch64"; empty means every platform the release ships for.
	Platform   string `json:"platform,omitempty"`
	Package    string `json:"package,omitempty"`     // pip name when it differs from component (tensorflow-gpu)
	PipVersion string `json:"pip_version,omitempty"` // exact pip version: 2.1.0+cu121
	CUDA       string `json:"cuda,omitempty"`        // CUDA the build targets: "12.1"
	PythonMin  string `json:"python_min,omitempty"`
	PythonMax  string `json:"python_max,omitempty"`
	IndexURL   string `json:"index_url,omitempty"`
	// ArchList is space-separated: "sm_50 sm_60 sm_70 sm_80 sm_90 compute_90"
	// (compute_XY = PTX for XY).
	ArchList string `json:"arch_list,omitempty"`
	// ArchFrom cites ArchList when another row than the build's own
	// stated it (a build script at its commit filling a build the wheel
	// index made); empty when Provenance states it. See (Build).ArchCite.
	ArchFrom  Provenance `json:"arch_from,omitzero"`
	IsDefault bool       `json:"is_default,omitempty"` // the variant plain `pip install` gets
	Channel   string     `json:"channel,omitempty"`    // "" = pip; "conda"
	// EachRelease, on a wide build (version "X.Y.*", concrete variant and
	// platform), states that the variant shipped for every release of the
	// minor: db.Merge makes the build for each known release that lacks
	// it (pip version <release>+<variant>). A statement per minor such as
	// RELEASE.md's "Stable CUDA" cell; never stored.
	EachRelease bool `json:"-"`
	Provenance
}

// ArchCite is the citation of the build's arch list: ArchFrom when set,
// else the build's own provenance.
func (b Build) ArchCite() Provenance {
	if b.ArchFrom.Source != "" || b.ArchFrom.Ref != "" {
		return b.ArchFrom
	}
	return b.Provenance
}

// FillArch gives b the arch list of other (with its citation) when b has
// none; it reports whether it did.
func (b *Build) FillArch(other Build) bool {
	if b.ArchList != "" || other.ArchList == "" {
		return false
	}
	b.ArchList, b.ArchFrom = other.ArchList, other.ArchCite()
	return true
}

// BuildKey names a build inside Facts (requirements point at builds).
type BuildKey struct {
	Component string `json:"component"`
	Version   string `json:"version"`
	Variant   string `json:"variant"`
	Platform  string `json:"platform,omitempty"`
	Channel   string `json:"channel,omitempty"`
}

// Key returns the identity of b.
func (b Build) Key() BuildKey {
	return BuildKey{b.Component, b.Version, b.Variant, b.Platform, b.Channel}
}

// Requirement kinds.
const (
	KindBundled = "bundled" // shipped inside the wheel/package
	KindPin     = "pin"     // pip Requires-Dist pin of a runtime wheel
	KindTested  = "tested"  // documented tested build configuration
	KindMinimum = "minimum" // a floor
	KindMaximum = "maximum" // a ceiling
	KindPaired  = "paired"  // companion release (torchvision for torch)
)

// Requirement is an edge from a build to what it needs.
type Requirement struct {
	Build BuildKey `json:"build"`
	// Needs is a canonical component (cudnn, nccl, cuda, python, driver,
	// torchvision) or a pip package name (nvidia-cudnn-cu12).
	Needs  string `json:"needs"`
	Spec   string `json:"spec"` // "==8.9.2.26", ">=525.60.13", "0.16.0"
	Kind   string `json:"kind"`
	Marker string `json:"marker,omitempty"` // PEP 508 environment marker
	Provenance
}

// CUDADriver is a minimum driver for a CUDA toolkit release (Kind
// "toolkit") or for a whole major line under minor-version compatibility
// (Kind "minor_compat", CUDA = "12").
type CUDADriver struct {
	CUDA       string `json:"cuda"`
	Label      string `json:"label,omitempty"`
	OS         string `json:"os"`
	Kind       string `json:"kind"`
	MinDriver  string `json:"min_driver"`
	ReleasedOn string `json:"released_on,omitempty"`
	Provenance
}

// CUDNNSupport is one row of the cuDNN support matrix.
type CUDNNSupport struct {
	CUDNN            string `json:"cudnn"`
	CUDAMajor        string `json:"cuda_major,omitempty"`    // "12"
	CUDAVersions     string `json:"cuda_versions,omitempty"` // "12.0;12.1;12.2" as printed
	CUDAMin          string `json:"cuda_min,omitempty"`
	CUDAMax          string `json:"cuda_max,omitempty"`
	MinDriverLinux   string `json:"min_driver_linux,omitempty"`
	MinDriverWindows string `json:"min_driver_windows,omitempty"`
	CCList           string `json:"cc_list,omitempty"` // "5.0;6.0;7.0"
	// CCMin is the floor a matrix states instead of a list ("SM 3.5 and
	// later" → "3.5"); CCList is then empty.
	CCMin      string `json:"cc_min,omitempty"`
	ReleasedOn string `json:"released_on,omitempty"`
	Provenance
}

// GPU maps a model to its compute capability.
type GPU struct {
	Name              string   `json:"name"`
	Aliases           []string `json:"aliases,omitempty"`
	ComputeCapability string   `json:"compute_capability"`
	Architecture      string   `json:"architecture,omitempty"`
	Segment           string   `json:"segment,omitempty"`
	Provenance
}

// CUDAArch is what a CUDA toolkit minor can compile for.
type CUDAArch struct {
	CUDA       string `json:"cuda"`
	SMMin      string `json:"sm_min,omitempty"`
	SMMax      string `json:"sm_max,omitempty"`
	Added      string `json:"added,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	Dropped    string `json:"dropped,omitempty"`
	Provenance
}

// DriverBranch is a driver branch (R535) and the newest CUDA it runs
// without a forward-compatibility package.
type DriverBranch struct {
	Branch     string `json:"branch"` // "535"
	MaxCUDA    string `json:"max_cuda,omitempty"`
	BranchType string `json:"branch_type,omitempty"`
	EndOfLife  string `json:"end_of_life,omitempty"`
	Provenance
}

// Attribute is a fact that fits no other table.
type Attribute struct {
	Component string `json:"component"`
	Version   string `json:"version,omitempty"`
	Key       string `json:"key"`
	Value     string `json:"value"`
	Provenance
}

// Conflict records a disagreement: the value kept (higher precedence) and
// the one refused.
type Conflict struct {
	Subject     string `json:"subject"`
	Field       string `json:"field"`
	Kept        string `json:"kept"`
	KeptSource  string `json:"kept_source"`
	Other       string `json:"other"`
	OtherSource string `json:"other_source"`
	Note        string `json:"note,omitempty"`
}

// SourceInfo describes one source in the built database.
type SourceInfo struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	FetchedAt string `json:"fetched_at,omitempty"`
	SHA256    string `json:"sha256"`
	Rows      int    `json:"rows"`
}

// Facts is everything one or more sources say. Sources' Normalize returns
// one; the builder merges them in precedence order.
type Facts struct {
	Releases       []Release      `json:"releases,omitempty"`
	Builds         []Build        `json:"builds,omitempty"`
	Requirements   []Requirement  `json:"requirements,omitempty"`
	CUDADrivers    []CUDADriver   `json:"cuda_drivers,omitempty"`
	CUDNN          []CUDNNSupport `json:"cudnn,omitempty"`
	GPUs           []GPU          `json:"gpus,omitempty"`
	CUDAArches     []CUDAArch     `json:"cuda_arches,omitempty"`
	DriverBranches []DriverBranch `json:"driver_branches,omitempty"`
	Attributes     []Attribute    `json:"attributes,omitempty"`
	Conflicts      []Conflict     `json:"conflicts,omitempty"`
}
