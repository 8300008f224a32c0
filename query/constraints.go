package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
)

// constraints are the host-side limits of a request (driver, GPU) turned
// into filter steps over stacks, plus the driver floors every CUDA stack
// is annotated with. Answers are cached per CUDA version: many stacks
// share one.
type constraints struct {
	d       *db.DB
	driver  string
	os      string // whose driver floors apply: windows when asked, else linux
	gpuName string
	cc      string
	floors  map[string]*nvidia.Floors
	verdict map[string]nvidia.DriverVerdict
}

func newConstraints(ctx context.Context, d *db.DB, p *parsedRequest) (*constraints, error) {
	c := &constraints{d: d, floors: map[string]*nvidia.Floors{}, verdict: map[string]nvidia.DriverVerdict{}}
	if p.Driver != "" {
		drv, err := nvidia.ParseDriver(p.Driver)
		if err != nil {
			return nil, err
		}
		c.driver = drv
	}
	switch p.DriverOS {
	case "", "linux", "windows":
		c.os = nvidia.FloorOS(p.Platform, p.DriverOS)
	default:
		return nil, errs.Usage("invalid driver OS %q: expected linux or windows", p.DriverOS)
	}
	if p.GPU != "" && p.SM != "" {
		return nil, errs.Usage("give either --gpu or --sm, not both").WithHint("cudb resolve torch --gpu \"Tesla T4\"")
	}
	if p.GPU != "" {
		g, err := nvidia.LookupGPU(ctx, d, p.GPU)
		if err != nil {
			return nil, err
		}
		c.gpuName, c.cc = g.Name, g.ComputeCapability
	}
	if p.SM != "" {
		cc, err := nvidia.ParseSMKnown(ctx, d, p.SM)
		if err != nil {
			return nil, err
		}
		c.cc = cc
	}
	return c, nil
}

// floorsFor returns the driver floors of a CUDA version, nil when the
// database does not know them.
func (c *constraints) floorsFor(ctx context.Context, cuda string) *nvidia.Floors {
	if cuda == "" {
		return nil
	}
	if f, ok := c.floors[cuda]; ok {
		return f
	}
	var out *nvidia.Floors
	if f, err := nvidia.DriverFloors(ctx, c.d, cuda); err == nil {
		out = &f
	}
	c.floors[cuda] = out
	return out
}

func (c *constraints) steps(ctx context.Context, fr *frameworkReq) []step {
	var steps []step
	steps = append(steps, step{"floors", func(s *Stack) bool {
		s.Driver = c.floorsFor(ctx, s.CUDA)
		return true
	}, nil})
	if c.driver != "" {
		steps = append(steps, step{"driver", func(s *Stack) bool {
			if s.CUDA == "" {
				return true
			}
			v, ok := c.verdict[s.CUDA]
			if !ok {
				var err error
				v, err = nvidia.CheckDriverOS(ctx, c.d, c.driver, s.CUDA, c.os)
				if err != nil {
					v = nvidia.DriverVerdict{Reason: err.Error()}
				}
				c.verdict[s.CUDA] = v
			}
			if v.OK && v.Note != "" && !slices.Contains(s.Notes, "driver "+c.driver+": "+v.Note) {
				s.Notes = append(s.Notes, "driver "+c.driver+": "+v.Note)
			}
			if v.Unknown != "" {
				// Unknown is an answer: the stack stays, marked unknown.
				s.gap("driver " + c.driver + ": " + v.Unknown)
				return true
			}
			return v.OK
		}, func(before []Stack) string {
			var reasons []string
			for _, s := range before {
				if v, ok := c.verdict[s.CUDA]; ok && v.Reason != "" && !slices.Contains(reasons, v.Reason) {
					reasons = append(reasons, v.Reason)
				}
			}
			if len(reasons) > 3 {
				reasons = reasons[:3]
			}
			return strings.Join(reasons, "; ")
		}})
	}
	if c.cc != "" {
		steps = append(steps, step{"gpu", func(s *Stack) bool {
			fit, keep, gap := StackGPUFit(ctx, c.d, s, c.cc)
			fit.Name = c.gpuName
			s.GPU = &fit
			if gap != "" {
				s.gap(gap)
			}
			return keep
		}, func(before []Stack) string {
			var lists []string
			for _, s := range before {
				if len(s.ComputeCapabilities) > 0 {
					l := s.Variant + ": " + strings.Join(s.ComputeCapabilities, " ")
					if !slices.Contains(lists, l) {
						lists = append(lists, l)
					}
				}
			}
			if len(lists) == 0 {
				return "the database records no GPU architecture list for these builds"
			}
			if len(lists) > 3 {
				lists = lists[:3]
			}
			return fmt.Sprintf("compute capability %s is not among the kernels these builds carry (%s)", c.cc, strings.Join(lists, "; "))
		}})
	}
	return steps
}

// componentAnswers answers questions about native components alone:
// `cuda==12.4` gives its driver floors, `cudnn==9.1.0` the CUDA versions
// and drivers it supports.
func componentAnswers(ctx context.Context, d *db.DB, p *parsedRequest) ([]ComponentAnswer, error) {
	var out []ComponentAnswer
	for _, req := range p.native {
		spec, err := version.ParseDottedSpec(req.SpecText())
		if err != nil {
			return nil, errs.Usage("invalid %s version %q: %v", req.Name, req.SpecText(), err)
		}
		switch req.Name {
		case "cuda":
			rows, err := nvidia.MatrixCUDA(ctx, d)
			if err != nil {
				return nil, err
			}
			var hits []nvidia.CUDARow
			for _, r := range rows {
				if spec.Matches(r.CUDA) {
					hits = append(hits, r)
				}
			}
			if len(hits) == 0 {
				return nil, errs.Errorf(errs.CodeNotFound, "no CUDA release matches %s", req.String()).WithHint("cudb matrix cuda")
			}
			out = append(out, ComponentAnswer{Component: "cuda", Version: req.SpecText(), Facts: hits})
		case "cudnn":
			rows, err := nvidia.MatrixCUDNN(ctx, d)
			if err != nil {
				return nil, err
			}
			var hits []nvidia.CUDNNRow
			for _, r := range rows {
				if spec.Matches(r.CUDNN) {
					hits = append(hits, r)
				}
			}
			// Releases without a support row (a redist manifest, a lead)
			// are answered with what is known of them, never as absent.
			known, err := nvidia.CUDNNReleases(ctx, d, &spec)
			if err != nil {
				return nil, err
			}
			var pend []PendingRelease
			for _, k := range known {
				if k.Status == pendingStatus {
					pend = append(pend, PendingRelease{Component: "cudnn", Version: k.CUDNN, Released: k.Released, ReportedBy: k.ReportedBy})
				}
			}
			switch {
			case len(hits) == 0 && len(known) == 0:
				return nil, errs.Errorf(errs.CodeNotFound, "no cuDNN release matches %s", req.String()).WithHint("cudb matrix cudnn")
			case len(hits) == 0 && len(pend) == len(known):
				return nil, pendingError("cudnn", pend)
			}
			if len(hits) > 0 {
				out = append(out, ComponentAnswer{Component: "cudnn", Version: req.SpecText(), Facts: hits})
			}
			if len(known) > 0 {
				out = append(out, ComponentAnswer{Component: "cudnn", Version: req.SpecText(), Facts: known})
			}
		case "driver":
			mx, err := nvidia.MaxCUDAForDriver(ctx, d, p.Driver)
			if err != nil {
				return nil, err
			}
			out = append(out, ComponentAnswer{Component: "driver", Version: p.Driver, Facts: map[string]string{"max_cuda": mx}})
		default:
			return nil, errs.Usage("%s alone is not a question cudb answers; add a framework", req.Name).WithHint("cudb resolve torch %s", req.String())
		}
	}
	if len(out) == 0 {
		return nil, errs.Usage("name a framework (torch, tensorflow, jax, onnxruntime-gpu) or a component (cuda==12.4, cudnn==9.1.0)").WithHint("cudb resolve torch==2.1")
	}
	return out, nil
}

// StackGPUFit judges whether stack s carries kernels for compute
// capability cc, as resolve's --gpu/--sm filter does: keep says whether
// the stack stays, gap names a missing fact (the stack stays, ranked as
// unknown). The static site's install selector precomputes it per GPU.
func StackGPUFit(ctx context.Context, d *db.DB, s *Stack, cc string) (fit GPUFit, keep bool, gap string) {
	arch, missing := "", ""
	if ab, why := s.ArchBuild(); ab != nil {
		arch = ab.ArchList
	} else {
		missing = why
	}
	if f, refused := toolkitRefusesIf(arch == "", ctx, d, s.CUDA, cc); refused {
		// The toolkit the build was made with compiles nothing for
		// this GPU, on any platform: known, whatever the build's own
		// list.
		return GPUFit{ComputeCapability: cc, Support: "none",
			Detail: f.Reason}, false, ""
	}
	if arch == "" {
		// Not known is not "no kernels": keep the build, ranked below
		// the known-good ones, and say what is missing.
		if missing == "" {
			missing = "the GPU architecture list of this build is not in the data"
			return GPUFit{ComputeCapability: cc, Support: StatusUnknown, Detail: missing}, true,
				"GPU architecture list not in the data (cannot tell whether it carries kernels for compute capability " + cc + ")"
		}
		return GPUFit{ComputeCapability: cc, Support: StatusUnknown, Detail: missing}, true,
			missing + " (cannot tell whether it carries kernels for compute capability " + cc + ")"
	}
	support, detail := nvidia.GPUSupport(cc, arch)
	return GPUFit{ComputeCapability: cc, Support: support, Detail: detail}, support != "none", ""
}
