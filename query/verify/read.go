package verify

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
)

// Read says what verify judged, before any finding: where the facts came
// from and what they are. A report that says nothing about a component
// leaves its field empty; the header prints "not stated" for it.
type Read struct {
	// Input is "host" for a probe, else the file name or "<stdin>"
	// (the caller sets it; "report" until then).
	Input string `json:"input"`
	// Formats are the report formats recognised ("nvidia_smi",
	// "collect_env", "text" for free text...); empty for a probe.
	Formats      []string `json:"formats"`
	OS           string   `json:"os,omitempty"`
	Driver       string   `json:"driver,omitempty"`
	DriverCUDA   string   `json:"driver_cuda,omitempty"`
	GPUs         []string `json:"gpus"`
	CUDA         []string `json:"cuda"`
	CUDNN        []string `json:"cudnn"`
	Environments []string `json:"environments"`
	Frameworks   []string `json:"frameworks"`
	// Env lists the variables that decide which GPUs and libraries a
	// process gets, as set (CUDA_VISIBLE_DEVICES="", LD_PRELOAD=...).
	Env []string `json:"env"`
	// Errors is the number of error lines in the input; Explained how
	// many distinct ones matched a known cause; Skipped those beyond the
	// per-input limit (MaxExplainedLines), left unexplained.
	Errors    int `json:"errors"`
	Explained int `json:"errors_explained"`
	Skipped   int `json:"errors_skipped"`
	// FromText lists the facts found in free text rather than a known
	// format ("gpu: Tesla K80 (line 2)"): less sure, never overriding.
	FromText []string `json:"from_text"`
}

func (v *verifier) readSummary(ctx context.Context) *Read {
	f := v.f
	r := &Read{Input: "report", Formats: []string{}, GPUs: []string{}, CUDA: []string{}, CUDNN: []string{},
		Environments: []string{}, Frameworks: []string{}, Env: []string{}, FromText: []string{}, OS: f.OS,
		Errors: len(f.Errors), Explained: v.errExplained, Skipped: v.errSkipped}
	if f.Origin == host.OriginHost {
		r.Input = "host"
	} else if rest, ok := strings.CutPrefix(f.Origin, host.OriginReportPrefix); ok && rest != "" {
		r.Formats = strings.Split(rest, "+")
	}
	if d := f.Driver; d != nil {
		r.Driver = d.Version + " (" + d.Source + ")"
		if d.WSL {
			r.Driver += ", Windows driver under WSL2"
		}
	}
	if d := f.DriverCUDA; d != nil {
		r.DriverCUDA = d.Version + " (" + d.Source + ")"
	}
	for _, g := range f.GPUs {
		s := fmt.Sprintf("%d: %s", g.Index, g.Name)
		if cc := v.gpuCC(ctx, g); cc != "" {
			s += " (compute capability " + cc + ")"
		}
		r.GPUs = append(r.GPUs, s+" ["+g.Source+"]")
	}
	for _, t := range f.Toolkits {
		s := t.Version
		if t.Path != "" {
			s += " " + t.Path
		}
		r.CUDA = append(r.CUDA, s+" ["+t.Source+"]")
	}
	for _, c := range f.CUDNN {
		s := c.Version
		if c.Path != "" {
			s += " " + c.Path
		}
		r.CUDNN = append(r.CUDNN, strings.TrimSpace(s)+" ["+c.Source+"]")
	}
	for _, py := range f.Pythons {
		name := py.Prefix
		if name == "" {
			name = py.Kind
		}
		if py.Version != "" {
			name += " (Python " + py.Version + ")"
		}
		r.Environments = append(r.Environments, name)
		if t := py.Torch; t != nil {
			s := frameworks.Torch + " " + t.Version
			switch {
			case t.CUDA != "" && t.CUDNN != "":
				s += " (CUDA " + t.CUDA + ", built with cuDNN " + t.CUDNN + ")"
			case t.CUDA != "":
				s += " (CUDA " + t.CUDA + ")"
			}
			r.Frameworks = append(r.Frameworks, s)
		}
		if t := py.TensorFlow; t != nil && t.Version != "" {
			r.Frameworks = append(r.Frameworks, strings.TrimSpace(orDefault(t.Package, frameworks.TensorFlow)+" "+t.Version))
		}
		if j := py.JAX; j != nil {
			s := frameworks.JAX + " " + orUnknown(j.Version)
			if j.Jaxlib != "" {
				s += " (jaxlib " + j.Jaxlib + ")"
			}
			var plugins []string
			for name, ver := range j.Plugins {
				plugins = append(plugins, name+" "+ver)
			}
			sort.Strings(plugins)
			if len(plugins) > 0 {
				s += " + " + strings.Join(plugins, ", ")
			}
			r.Frameworks = append(r.Frameworks, s)
		}
		for _, name := range []string{frameworks.ONNXRuntime, strings.TrimSuffix(frameworks.ONNXRuntime, "-gpu")} {
			if ver, ok := py.Packages[name]; ok {
				r.Frameworks = append(r.Frameworks, name+" "+ver)
			}
		}
	}
	for _, e := range f.VisibleDevices {
		r.Env = append(r.Env, fmt.Sprintf("%s=%q", e.Name, e.Value))
	}
	if len(f.LDPreload) > 0 {
		r.Env = append(r.Env, "LD_PRELOAD="+strings.Join(f.LDPreload, ":"))
	}
	if len(f.LDLibraryPath) > 0 {
		r.Env = append(r.Env, "LD_LIBRARY_PATH="+strings.Join(f.LDLibraryPath, ":"))
	}
	for _, x := range f.Read {
		if x.Sure != host.SureText {
			continue
		}
		s := x.Fact + ": " + x.Value
		if x.Line > 0 {
			s += fmt.Sprintf(" (line %d)", x.Line)
		}
		r.FromText = append(r.FromText, s)
	}
	return r
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
