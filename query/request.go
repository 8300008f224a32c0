package query

import (
	"errors"
	"slices"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

// family is a framework and the packages released in lockstep with it,
// as the framework table declares them.
type family = frameworks.Framework

// alias maps another spelling to a framework's canonical name and, where
// the spelling is a distinct pip package, a package filter.
func alias(name string) (component, pkg string, ok bool) {
	for _, f := range frameworks.All {
		if slices.Contains(f.Aliases, name) {
			if slices.Contains(f.Filters, name) {
				pkg = name
			}
			return f.Name, pkg, true
		}
	}
	return "", "", false
}

// nativeComponents are constraints rather than frameworks.
var nativeComponents = []string{"cuda", "cudnn", "nccl", "python", "driver"}

// Known lists every component name resolve accepts.
func Known() []string {
	var out []string
	for _, f := range frameworks.All {
		out = append(out, f.Name)
		out = append(out, f.Companions...)
	}
	return append(out, nativeComponents...)
}

// frameworkReq is a parsed framework requirement.
type frameworkReq struct {
	fam   family
	pkg   string // package filter (tensorflow-gpu)
	req   version.Requirement
	comps map[string]version.Requirement // companion constraints
	// platform, when the request names one, is the platform whose build
	// stands for each stack (its Python range, cuDNN, pins): a stack
	// folds the platforms of one release and variant, and the Windows
	// build of TensorFlow 1.0 is Python 3.5 only while Linux's is 2.7-3.6.
	platform string
}

// parsedRequest is a ResolveRequest after validation.
type parsedRequest struct {
	ResolveRequest
	frameworks []*frameworkReq
	cuda       *version.DottedSpec
	cudnn      *version.DottedSpec
	nccl       *version.DottedSpec
	python     *version.Dotted
	native     []version.Requirement // component questions with no framework
}

// Bounds on a request: real ones are a few short strings, and each
// requirement is a resolve of its own.
const (
	MaxRequirements = 16
	MaxRequirement  = 256 // bytes of one requirement
	MaxField        = 128 // bytes of --cuda, --driver, --gpu, ...
)

// checkBounds refuses a request past the bounds before any work, naming
// the bound and quoting only the start of the input.
func checkBounds(r ResolveRequest) error {
	if len(r.Requirements) > MaxRequirements {
		return errs.Usage("%d requirements given: at most %d", len(r.Requirements), MaxRequirements).WithHint("cudb resolve torch==2.1 tensorflow==2.14")
	}
	for _, raw := range r.Requirements {
		if len(raw) > MaxRequirement {
			return errs.Usage("requirement %s is longer than %d bytes", errs.Quote(raw), MaxRequirement).WithHint("cudb resolve 'torch==2.1'")
		}
	}
	for _, f := range []struct{ name, v string }{{"cuda", r.CUDA}, {"driver", r.Driver}, {"gpu", r.GPU}, {"sm", r.SM},
		{"python", r.Python}, {"platform", r.Platform}, {"variant", r.Variant}, {"channel", r.Channel}} {
		if len(f.v) > MaxField {
			return errs.Usage("--%s %s is longer than %d bytes", f.name, errs.Quote(f.v), MaxField).WithHint("cudb resolve torch==2.1 --%s ...", f.name)
		}
	}
	return nil
}

func parseRequest(r ResolveRequest) (*parsedRequest, error) {
	p := &parsedRequest{ResolveRequest: r}
	if err := checkBounds(r); err != nil {
		return nil, err
	}
	if len(r.Requirements) == 0 {
		return nil, errs.Usage("name at least one requirement, e.g. torch==2.1").WithHint("cudb resolve torch==2.1 --cuda 12.1")
	}
	byFamily := map[string]*frameworkReq{}
	pending := map[string]version.Requirement{} // companions named before their framework
	for _, raw := range r.Requirements {
		req, err := version.ParseRequirement(raw)
		if err != nil {
			return nil, errs.Usage("invalid requirement %s: %s", errs.Quote(raw), rootCause(err)).WithHint("cudb resolve 'torch==2.1' (pip syntax: ==, !=, >=, <=, >, <, ~=, ==X.*)")
		}
		name := req.Name
		if component, pkg, ok := alias(name); ok {
			fr := byFamily[component]
			if fr == nil {
				fr = &frameworkReq{fam: familyOf(component), comps: map[string]version.Requirement{}}
				byFamily[component] = fr
				p.frameworks = append(p.frameworks, fr)
			}
			fr.req, fr.pkg = and(fr.req, req), pkg
			continue
		}
		switch name {
		case "cuda", "cudnn", "nccl":
			spec, err := version.ParseDottedSpec(req.SpecText())
			if err != nil {
				return nil, errs.Usage("invalid %s version in %s: %v", name, errs.Quote(raw), err).WithHint("cudb resolve torch %s==12.1", name)
			}
			switch name {
			case "cuda":
				p.cuda = &spec
			case "cudnn":
				p.cudnn = &spec
			case "nccl":
				p.nccl = &spec
			}
			p.native = append(p.native, req)
			continue
		case "python":
			v, err := version.ParseDotted(strings.TrimLeft(req.SpecText(), "=~<>! "))
			if err != nil || !req.Specs.IsExact() {
				return nil, errs.Usage("give python as an exact version, e.g. python==3.11 or --python 3.11").WithHint("cudb resolve torch==2.1 --python 3.11")
			}
			p.python = &v
			continue
		case "driver":
			if r.Driver != "" {
				return nil, errs.Usage("driver given twice").WithHint("cudb resolve torch --driver 535.104.05")
			}
			p.Driver = strings.TrimLeft(req.SpecText(), "=>~ ")
			p.native = append(p.native, req)
			continue
		}
		if f := familyOf(name); f.Name != "" {
			if f.Name == name {
				fr := byFamily[name]
				if fr == nil {
					fr = &frameworkReq{fam: f, comps: map[string]version.Requirement{}}
					byFamily[name] = fr
					p.frameworks = append(p.frameworks, fr)
				}
				fr.req = and(fr.req, req)
			} else {
				pending[name] = req
				if byFamily[f.Name] == nil {
					fr := &frameworkReq{fam: f, comps: map[string]version.Requirement{}}
					fr.req = version.Requirement{Name: f.Name}
					byFamily[f.Name] = fr
					p.frameworks = append(p.frameworks, fr)
				}
			}
			continue
		}
		return nil, errs.Usage("unknown component %s", errs.Quote(raw)).WithHint("cudb resolve torch==2.1 (components: %s)", strings.Join(Known(), ", "))
	}
	for name, req := range pending {
		byFamily[familyOf(name).Name].comps[name] = req
	}
	if r.CUDA != "" {
		if p.cuda != nil {
			return nil, errs.Usage("CUDA given twice (--cuda and cuda==)").WithHint("cudb resolve torch==2.1 --cuda 12.1")
		}
		spec, err := version.ParseDottedSpec(r.CUDA)
		if err != nil {
			return nil, errs.Usage("invalid --cuda %s: %v", errs.Quote(r.CUDA), err).WithHint("cudb resolve torch==2.1 --cuda 12.1")
		}
		p.cuda = &spec
	}
	if r.Python != "" {
		py, err := ParsePython(r.Python)
		if err != nil {
			return nil, err.WithHint("cudb resolve torch==2.1 --python 3.11")
		}
		v := version.MustParseDotted(py)
		p.python = &v
	}
	if err := ParsePlatform(r.Platform); err != nil {
		return nil, err.WithHint("cudb resolve torch==2.1 --platform linux")
	}
	switch r.Channel {
	case "", "pip", "conda":
	default:
		return nil, errs.Usage("invalid --channel %s: expected pip or conda", errs.Quote(r.Channel)).WithHint("cudb resolve torch==1.13 --channel conda")
	}
	if p.Channel == "pip" {
		p.Channel = ""
	}
	return p, nil
}

// and joins two requirements on one package: both must hold.
func and(prev, next version.Requirement) version.Requirement {
	if prev.Name == "" {
		return next
	}
	prev.Specs = append(append(version.Specifiers{}, prev.Specs...), next.Specs...)
	prev.Extras = append(prev.Extras, next.Extras...)
	prev.Raw += "," + next.SpecText()
	return prev
}

// FrameworkOf names the framework a package belongs to: itself for a
// framework, the framework for a companion (torchvision → torch), "" when
// it is neither.
func FrameworkOf(name string) string { return familyOf(name).Name }

// familyOf is the framework whose canonical name or companion name is;
// the zero Framework for anything else.
func familyOf(name string) family {
	for _, f := range frameworks.All {
		if f.Name == name || slices.Contains(f.Companions, name) {
			return f
		}
	}
	return family{}
}

func (p *parsedRequest) echo() Query {
	q := Query{CUDA: p.ResolveRequest.CUDA, Python: p.ResolveRequest.Python, Platform: p.Platform, Variant: p.Variant,
		Channel: p.Channel, Driver: p.Driver, GPU: p.GPU, SM: p.SM, Pre: p.Pre, Requirements: []QueryRequirement{}}
	for _, raw := range p.Requirements {
		if req, err := version.ParseRequirement(raw); err == nil {
			q.Requirements = append(q.Requirements, QueryRequirement{Name: req.Name, Specifier: req.SpecText(), Extras: req.Extras})
		}
	}
	return q
}

// rootCause is the innermost error's message without the package prefix
// the version parser gives every layer ("version: "): the reader sees
// what is wrong once, not the parser's call chain.
func rootCause(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return strings.TrimPrefix(err.Error(), "version: ")
		}
		err = inner
	}
}
