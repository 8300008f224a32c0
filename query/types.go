package query

import (
	"fmt"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
)

// ResolveRequest is what `cudb resolve` and GET /v1/resolve ask.
type ResolveRequest struct {
	Requirements []string // pip syntax: torch==2.1, tensorflow>=2.15, cuda==12.1, cudnn==8.9.*
	CUDA         string   // --cuda: a CUDA version or dotted specifier ("12.1" = any 12.1.x)
	Python       string   // --python 3.11
	Platform     string   // linux | windows | macos | linux-aarch64
	Variant      string   // --variant cu121 | cpu | rocm6.0 (default: CUDA builds)
	Channel      string   // "" (pip wheels) | conda
	Driver       string   // --driver 535.104.05
	// DriverOS says whose numbering Driver uses, "linux" or "windows";
	// empty follows Platform. A WSL2 guest installs Linux wheels on a
	// Windows driver.
	DriverOS string
	GPU      string // --gpu "Tesla T4"
	SM       string // --sm 7.5
	Pre      bool   // include pre-releases
	Explain  bool   // cite the row behind each fact
}

// Query echoes the parsed request.
type Query struct {
	Requirements []QueryRequirement `json:"requirements"`
	CUDA         string             `json:"cuda,omitempty"`
	Python       string             `json:"python,omitempty"`
	Platform     string             `json:"platform,omitempty"`
	Variant      string             `json:"variant,omitempty"`
	Channel      string             `json:"channel,omitempty"`
	Driver       string             `json:"driver,omitempty"`
	GPU          string             `json:"gpu,omitempty"`
	SM           string             `json:"sm,omitempty"`
	Pre          bool               `json:"pre,omitempty"`
}

// QueryRequirement is one parsed requirement.
type QueryRequirement struct {
	Name      string   `json:"name"`
	Specifier string   `json:"specifier"`
	Extras    []string `json:"extras,omitempty"`
}

// Range is an inclusive version range; empty ends are unknown.
type Range struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// SourceRef cites a source.
type SourceRef = nvidia.SourceRef

// Citation ties one fact of a stack to the row it came from (--explain).
type Citation struct {
	Fact   string `json:"fact"`
	Value  string `json:"value"`
	Source string `json:"source"`
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
}

// Install says how to install a stack with pip.
type Install struct {
	IndexURL     string `json:"index_url,omitempty"`
	FindLinks    string `json:"find_links,omitempty"`
	PyPIDefault  bool   `json:"pypi_default"`
	Command      string `json:"command"`
	CondaChannel string `json:"conda_channel,omitempty"`
}

// Stack is one answer: a set of package versions and the native pieces
// (CUDA, cuDNN, NCCL, driver) they go with.
type Stack struct {
	// Status is ok, incompatible or unknown (a fact the answer needs is
	// not in the data); Unknown names each missing fact.
	Status              string            `json:"status"`
	Unknown             []string          `json:"unknown"`
	Packages            map[string]string `json:"packages"`
	Variant             string            `json:"variant"`
	CUDA                string            `json:"cuda"`
	CUDNN               string            `json:"cudnn"`
	NCCL                string            `json:"nccl"`
	Python              Range             `json:"python"`
	Platforms           []string          `json:"platforms"`
	ComputeCapabilities []string          `json:"compute_capabilities"`
	Install             Install           `json:"install"`
	Default             bool              `json:"default"`
	Pins                []string          `json:"pins"`
	Driver              *nvidia.Floors    `json:"driver,omitempty"`
	GPU                 *GPUFit           `json:"gpu,omitempty"`
	Notes               []string          `json:"notes,omitempty"`
	Sources             []SourceRef       `json:"sources"`
	Citations           []Citation        `json:"citations,omitempty"`
	// Parts holds the single-framework stacks a multi-framework stack
	// was combined from.
	Parts []Stack `json:"parts,omitempty"`

	framework string
	// platform is the asked platform (see frameworkReq.platform).
	platform  string
	version   version.Version
	builds    []*db.BuildRow
	pinReqs   []db.Requirement
	pinNames  []string // PEP 503 names of pinReqs, for matching pins across frameworks
	cudnnKind string
	// pending names the matched releases whose facts are pending, for
	// the one note that says so (pendingNote).
	pending []pendingItem
}

// GPUFit says whether a stack carries kernels for the asked GPU.
type GPUFit struct {
	Name              string `json:"name,omitempty"`
	ComputeCapability string `json:"compute_capability"`
	Support           string `json:"support"` // sass | sass_compatible | ptx_jit | none
	Detail            string `json:"detail,omitempty"`
}

// Incompatibility explains why frameworks cannot share one environment.
type Incompatibility struct {
	Kind    string   `json:"kind"` // cuda_major | pin | python | platform | cudnn
	Message string   `json:"message"`
	Between []string `json:"between"`
	Package string   `json:"package,omitempty"`
	Specs   []string `json:"specs,omitempty"`
}

// Suggestion is a nearby combination that would agree.
type Suggestion struct {
	Requirements []string `json:"requirements"`
	Reason       string   `json:"reason"`
}

// Resolution is the answer to a ResolveRequest.
type Resolution struct {
	Query Query `json:"query"`
	// Status is the best stack's: ok, unknown (the best answer rests on a
	// fact the data lacks), or incompatible (conflicts, no stack).
	Status      string            `json:"status"`
	Unknown     []string          `json:"unknown"`
	Stacks      []Stack           `json:"stacks"`
	Conflicts   []Incompatibility `json:"conflicts"`
	Suggestions []Suggestion      `json:"suggestions,omitempty"`
	Components  []ComponentAnswer `json:"components,omitempty"`
}

// ComponentAnswer answers a question about a native component alone
// (`cudb resolve cuda==12.4`, `cudb resolve cudnn==9.1.0`).
type ComponentAnswer struct {
	Component string `json:"component"`
	Version   string `json:"version"`
	Facts     any    `json:"facts"`
}

// HasPython compares major.minor against the inclusive range.
func (r Range) HasPython(py version.Dotted) bool {
	f := py.Fields()
	mm := fmt.Sprintf("%d.%d", f[0], version.Field(f, 1))
	v, _ := version.ParseDotted(mm)
	if r.Min != "" {
		if lo, err := version.ParseDotted(r.Min); err == nil && v.Compare(lo) < 0 {
			return false
		}
	}
	if r.Max != "" {
		if hi, err := version.ParseDotted(r.Max); err == nil && v.Compare(hi) > 0 {
			return false
		}
	}
	return r.Min != "" || r.Max != ""
}
