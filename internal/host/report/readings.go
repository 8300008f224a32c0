package report

import (
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
)

// readings lists where each fact of f was read: the free-text readings
// the extractor made (with their lines), then one exact reading per fact
// a known format gave.
func readings(f *host.Snapshot, text []host.Reading) []host.Reading {
	out := append([]host.Reading(nil), text...)
	exact := func(fact, value, format string) {
		if value == "" || format == FormatText {
			return
		}
		out = append(out, host.Reading{Fact: fact, Value: value, Format: format, Sure: host.SureExact})
	}
	if d := f.Driver; d != nil {
		exact("driver", d.Version, d.Source)
	}
	if d := f.DriverCUDA; d != nil {
		exact("driver_cuda", d.Version, d.Source)
	}
	for _, g := range f.GPUs {
		v := g.Name
		if g.ComputeCapability != "" {
			v += " (" + g.ComputeCapability + ")"
		}
		exact("gpu", v, g.Source)
	}
	for _, t := range f.Toolkits {
		exact("cuda", t.Version, t.Source)
	}
	for _, c := range f.CUDNN {
		exact("cudnn", strings.TrimSpace(c.Version+" "+c.Path), c.Source)
	}
	for _, py := range f.Pythons {
		src := py.Source
		exact("python", py.Version, src)
		if t := py.Torch; t != nil {
			exact(frameworks.Torch, frameworks.Torch+" "+t.Version, t.Source)
		}
		if t := py.TensorFlow; t != nil {
			exact(frameworks.TensorFlow, t.Package+" "+t.Version, t.Source)
		}
		if j := py.JAX; j != nil && j.Version != "" {
			exact(frameworks.JAX, frameworks.JAX+" "+j.Version, src)
		}
	}
	return out
}
