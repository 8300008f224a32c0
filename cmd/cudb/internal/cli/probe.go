package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/probe"
	"github.com/spf13/cobra"
)

// ProbeOptions are `cudb probe`'s flags.
type ProbeOptions struct {
	Root    string
	Replay  string
	Python  string
	Deep    bool
	Timeout time.Duration
	// DeepTimeout bounds each interpreter run of --deep.
	DeepTimeout time.Duration
}

func newProbeCmd(f *Factory) *cobra.Command {
	opts := &ProbeOptions{}
	c := &cobra.Command{
		Use:   "probe",
		Short: "Show what is installed: driver, GPUs, CUDA toolkits, cuDNN, Python environments",
		Long: `Probe reads the host without importing any framework: driver and GPU files under
/proc and /sys, nvidia-smi (each command under a timeout), CUDA toolkit version
files, cuDNN headers and libraries (loader cache, LD_LIBRARY_PATH, pip wheels,
conda), and Python environments' package metadata. It prints facts, not a verdict:
` + "`cudb verify`" + ` judges them.

--deep also runs each environment's interpreter (bin/python3, or --python) with a
short inline script, never through a shell: it imports torch, TensorFlow and JAX
where installed and records the runtime facts (torch's loaded cuDNN, CUDA
availability and its error, devices, architecture list, NCCL; TensorFlow's build
info and GPUs; JAX's devices) under "runtime". Importing frameworks takes seconds.

With --root, files are read under DIR and no command runs unless --replay names a
directory of recorded command outputs.`,
		Example: `  cudb probe
  cudb probe --json > host.json
  cudb probe --python ~/venv/bin/python
  cudb probe --deep --json
  cudb probe --root /mnt/image --replay recorded/cmds`,
		Args: NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			facts, err := probeHost(c, opts.Replay, probe.Options{Root: opts.Root, Python: opts.Python, Deep: opts.Deep, Timeout: opts.Timeout, DeepTimeout: opts.DeepTimeout})
			if err != nil {
				return err
			}
			return f.Out(facts, func() error { return writeFacts(f.IO.Out, facts) })
		},
	}
	c.Flags().StringVar(&opts.Root, "root", "", "read the host's files under `DIR` (a copied tree or a mounted image)")
	c.Flags().StringVar(&opts.Replay, "replay", "", "answer commands from recorded outputs in `DIR` instead of running them")
	c.Flags().StringVar(&opts.Python, "python", "", "also probe the environment of this interpreter `PATH` (probed first)")
	c.Flags().DurationVar(&opts.Timeout, "timeout", probe.DefaultTimeout, "limit for each command (nvidia-smi hangs on a wedged GPU)")
	addDeepFlags(c, &opts.Deep, &opts.DeepTimeout)
	return c
}

// writeFacts is the human summary of a probe or a parsed report.
func writeFacts(w io.Writer, f *host.Snapshot) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-14s %s\n", k+":", fmt.Sprintf(format, args...))
	}
	if f.Driver != nil {
		mod := ""
		if f.Driver.KernelModule != "" {
			mod = ", " + f.Driver.KernelModule + " kernel module"
		}
		line("driver", "%s (%s%s)", f.Driver.Version, f.Driver.Source, mod)
	} else {
		line("driver", "not found")
	}
	if f.DriverCUDA != nil {
		line("driver CUDA", "up to %s (%s)", f.DriverCUDA.Version, f.DriverCUDA.Source)
	}
	if len(f.GPUs) == 0 {
		line("GPUs", "none seen")
	}
	for _, g := range f.GPUs {
		cc := g.ComputeCapability
		if cc == "" {
			cc = "?"
		}
		extra := ""
		if g.MIG {
			extra = ", MIG"
		}
		line(fmt.Sprintf("GPU %d", g.Index), "%s (compute %s%s) %s", g.Name, cc, extra, g.BusID)
	}
	for _, t := range f.Toolkits {
		flags := []string{t.Source}
		if t.OnPath {
			flags = append(flags, "nvcc on PATH")
		}
		if len(t.Aliases) > 0 {
			flags = append(flags, "via "+strings.Join(t.Aliases, ", "))
		}
		v := t.Version
		if v == "" {
			v = "?"
		}
		line("CUDA toolkit", "%s %s (%s)", v, t.Path, strings.Join(flags, "; "))
	}
	if f.CUDAHome != "" {
		line("CUDA_HOME", "%s", f.CUDAHome)
	}
	for _, c := range f.CUDNN {
		where := c.Path
		if c.Env != "" && where == "" {
			where = c.Env
		}
		line("cuDNN", "%s %s (%s)", c.Version, where, c.Source)
	}
	if len(f.LDLibraryPath) > 0 {
		line("LD_LIBRARY_PATH", "%s", strings.Join(f.LDLibraryPath, ":"))
	}
	for _, py := range f.Pythons {
		v := py.Version
		if v == "" {
			v = "?"
		}
		line("python", "%s %s (%s, %s, %d packages)", v, py.Prefix, py.Kind, py.Source, len(py.Packages))
		if py.Interpreter != "" {
			line("interpreter", "%s (the python3 first on PATH)", py.Interpreter)
		}
		if t := py.Torch; t != nil {
			line("  torch", "%s (variant %s, CUDA %s)", t.Version, orDash(t.Variant), orDash(t.CUDA))
		}
		if t := py.TensorFlow; t != nil {
			gpu := "?"
			if t.IsGPU != nil {
				gpu = fmt.Sprint(*t.IsGPU)
			}
			line("  tensorflow", "%s (CUDA %s, cuDNN %s, GPU build %s)", orDash(t.Version), orDash(t.CUDA), orDash(t.CUDNN), gpu)
		}
		if j := py.JAX; j != nil {
			names := make([]string, 0, len(j.Plugins))
			for n, v := range j.Plugins {
				names = append(names, n+" "+v)
			}
			sort.Strings(names)
			line("  jax", "%s (jaxlib %s; %s)", orDash(j.Version), orDash(j.Jaxlib), strings.Join(names, ", "))
		}
	}
	for _, e := range f.Errors {
		line("error", "%s", e)
	}
	for _, n := range f.Notes {
		line("note", "%s: %s", n.Probe, n.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
