package cli

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/usecase"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ResolveOptions are `cudb resolve`'s flags.
type ResolveOptions struct {
	usecase.ResolveRequest
	Limit int
	// All prints every row of a multi-framework table (default: the
	// first multiFrameworkRows); --json always holds every stack.
	All bool
}

// multiFrameworkRows is how many rows a table of several frameworks
// shows by default: their combinations run to thousands of rows, and
// the best ones come first.
const multiFrameworkRows = 20

func newResolveCmd(f *Factory) *cobra.Command {
	opts := &ResolveOptions{}
	c := &cobra.Command{
		Use:   "resolve REQUIREMENT...",
		Short: "Find the stacks (framework build, CUDA, cuDNN, driver) that satisfy requirements",
		Long: `Resolve pip-style requirements (PEP 440: ==2.1 means 2.1.0, ==2.1.* any 2.1.x, ~=, >=, <,
!=, local labels like 2.1.0+cu121) against the database and print the matching stacks,
best first: newest release, the variant plain pip installs, newest CUDA.

Native components are constraints: cuda==12.1 (any 12.1.x), cudnn==8.9.*, nccl, python==3.11.
Several frameworks at once must share one environment, or resolve exits 3 naming the conflict.`,
		Example: `  cudb resolve torch==2.1
  cudb resolve torch==2.1 --cuda 12.1 --json
  cudb resolve 'torch>=2,<2.3' --python 3.11 --platform windows
  cudb resolve torch==2.3 tensorflow==2.16.1
  cudb resolve torch --driver 470.82.01
  cudb resolve torch --gpu "Tesla K80"
  cudb resolve cuda==12.4
  cudb resolve torch==2.1 --explain`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Requirements = args
			return runResolve(c, f, opts)
		},
	}
	fl := c.Flags()
	addStackFlags(fl, &opts.ResolveRequest, "pip (default) or conda")
	fl.BoolVar(&opts.Explain, "explain", false, "cite the source row behind every fact")
	fl.IntVar(&opts.Limit, "limit", 0, "print at most this many stacks (0 = all)")
	fl.BoolVar(&opts.All, "all", false, fmt.Sprintf("print every stack of several frameworks (default: the best %d; --json holds all)", multiFrameworkRows))
	return c
}

// addStackFlags declares the flags that narrow a stack, shared by resolve
// and pin (which resolve the same way).
func addStackFlags(fl *pflag.FlagSet, r *usecase.ResolveRequest, channelHelp string) {
	fl.StringVar(&r.CUDA, "cuda", "", "CUDA version or specifier (12.1 = any 12.1.x)")
	fl.StringVar(&r.Python, "python", "", "Python version the stack must support (3.11)")
	fl.StringVar(&r.Platform, "platform", "", "linux, windows, macos or linux-aarch64")
	fl.StringVar(&r.Variant, "variant", "", "build variant (cu121, cpu, rocm6.0); default: CUDA builds")
	fl.StringVar(&r.Channel, "channel", "", channelHelp)
	fl.StringVar(&r.Driver, "driver", "", "NVIDIA driver version the stack must run on (535.104.05)")
	fl.StringVar(&r.GPU, "gpu", "", "GPU the stack must carry kernels for (\"Tesla T4\", \"RTX 4090\")")
	fl.StringVar(&r.SM, "sm", "", "compute capability the stack must carry kernels for (7.5)")
	fl.BoolVar(&r.Pre, "pre", false, "include pre-releases")
}

func runResolve(c *cobra.Command, f *Factory, opts *ResolveOptions) error {
	if opts.Limit < 0 {
		return UsageError(c, "--limit must be 0 or more")
	}
	ctx := c.Context()
	d, err := f.DB(ctx)
	if err != nil {
		return err
	}
	res, err := usecase.Resolve(ctx, d, usecase.ResolveOptions{ResolveRequest: opts.ResolveRequest, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if err := f.Out(res, func() error { return printResolution(f, cutRows(res, opts.All), opts.Explain) }); err != nil {
		return err
	}
	return usecase.ResolveOutcome(res)
}

// shownResolution is a resolution as the table shows it: more counts the
// stacks cut from a multi-framework table.
type shownResolution struct {
	*usecase.Resolution
	more int
	// unknownCut: a stack cut from the table is unknown, so the table
	// keeps its status column (the rows shown are the known-good ones).
	unknownCut bool
}

// cutRows keeps the first multiFrameworkRows stacks of an answer about
// several frameworks (ranked known-good first), unless all.
func cutRows(res *usecase.Resolution, all bool) shownResolution {
	if all || len(res.Stacks) <= multiFrameworkRows || len(res.Stacks[0].Parts) < 2 {
		return shownResolution{Resolution: res}
	}
	cut := *res
	cut.Stacks = res.Stacks[:multiFrameworkRows]
	unknown := false
	for _, st := range res.Stacks[multiFrameworkRows:] {
		unknown = unknown || st.Status != usecase.StatusOK
	}
	return shownResolution{Resolution: &cut, more: len(res.Stacks) - multiFrameworkRows, unknownCut: unknown}
}

func printResolution(f *Factory, res shownResolution, explain bool) error {
	out := f.IO.Out
	for _, comp := range res.Components {
		if err := printComponent(f, comp); err != nil {
			return err
		}
	}
	if len(res.Conflicts) > 0 {
		for _, line := range usecase.ConflictLines(res.Conflicts, explain) {
			fmt.Fprintln(out, f.IO.Paint(Bad, line))
		}
		for _, s := range res.Suggestions {
			fmt.Fprintf(out, "would agree: %s (%s)\n", strings.Join(s.Requirements, " "), s.Reason)
		}
		return nil
	}
	if len(res.Stacks) == 0 {
		return nil
	}
	withGPU, withStatus := false, res.unknownCut
	for _, s := range res.Stacks {
		withGPU = withGPU || s.GPU != nil
		withStatus = withStatus || s.Status != usecase.StatusOK
	}
	header := []string{"packages", "variant", "default", "cuda", "cudnn", "nccl", "python", "platforms", "driver (min)"}
	if withGPU {
		header = append(header, "gpu")
	}
	gpuCol := len(header) - 1
	if withStatus {
		header = append(header, "status")
	}
	t := &Table{Header: header, Status: map[int]func(string) Tone{}}
	if withGPU {
		t.Status[gpuCol] = supportTone
	}
	if withStatus {
		t.Status[len(header)-1] = stackTone
	}
	for _, s := range res.Stacks {
		drv := ""
		if s.Driver != nil {
			// The floors of the platform asked for: Windows drivers
			// carry their own numbers.
			toolkit, compat := s.Driver.For(usecase.FloorOS(res.Query.Platform, ""))
			drv = toolkit
			if compat != "" && compat != drv {
				drv += " (compat " + compat + ")"
			}
		}
		row := []string{packagesText(s.Packages), s.Variant, yesNo(s.Default), s.CUDA, s.CUDNN, s.NCCL,
			rangeText(f.IO, s.Python.Min, s.Python.Max), strings.Join(s.Platforms, ","), drv}
		if withGPU {
			gpu := ""
			if s.GPU != nil {
				gpu = SupportWords(s.GPU.Support)
			}
			row = append(row, gpu)
		}
		if withStatus {
			row = append(row, s.Status)
		}
		t.Add(row...)
	}
	if err := t.Render(f.IO); err != nil {
		return err
	}
	if res.more > 0 {
		prefix := ""
		if !f.IO.TTY {
			prefix = "# "
		}
		fmt.Fprintf(out, "%s… %d more stacks (--all shows them, --json lists them)\n", prefix, res.more)
	}
	best := res.Stacks[0]
	if !f.IO.TTY {
		// Piped: the TSV stays one table; what follows is comment lines.
		fmt.Fprintf(out, "# best: %s\n", best.Install.Command)
		for _, n := range best.Notes {
			fmt.Fprintf(out, "# note: %s\n", n)
		}
		if explain {
			// --explain piped: one comment line per citation.
			for _, st := range res.Stacks {
				for _, ci := range st.Citations {
					fmt.Fprintf(out, "# cite: %s (%s) %s %s: %s: %s\n", packagesText(st.Packages), st.Variant, ci.Fact, ci.Value, ci.Source, citeRef(ci))
				}
			}
		}
		return nil
	}
	if res.more == 0 {
		fmt.Fprintln(out) // the cut line already ends a cut table
	}
	fmt.Fprintf(out, "best: %s\n", best.Install.Command)
	printUnknowns(out, res.Stacks)
	for _, n := range best.Notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	if explain {
		for _, s := range res.Stacks {
			fmt.Fprintf(out, "\n%s (%s):\n", packagesText(s.Packages), s.Variant)
			for _, ci := range s.Citations {
				fmt.Fprintf(out, "  %-12s %-28s %s: %s\n", ci.Fact, ci.Value, ci.Source, citeRef(ci))
			}
		}
	}
	return nil
}

// citeRef is where a citation points: its row reference, else its URL.
func citeRef(ci usecase.Citation) string {
	if ci.Ref != "" {
		return ci.Ref
	}
	return ci.URL
}

// printUnknowns says why stacks are ranked where they are: known-good
// stacks come first, and each unknown one names the fact the data lacks.
func printUnknowns(out io.Writer, stacks []usecase.Stack) {
	var gaps []string
	known := 0
	for _, s := range stacks {
		if s.Status == usecase.StatusOK {
			known++
		}
		for _, u := range s.Unknown {
			if !slices.Contains(gaps, u) {
				gaps = append(gaps, u)
			}
		}
	}
	if len(gaps) == 0 {
		return
	}
	switch {
	case stacks[0].Status != usecase.StatusOK:
		fmt.Fprintf(out, "unknown: cudb cannot vouch for the best stack; known-good stacks rank first and none is\n")
	default:
		fmt.Fprintf(out, "ranking: the %d known-good stack(s) come first; the others are unknown\n", known)
	}
	const most = 8
	for i, g := range gaps {
		if i == most {
			fmt.Fprintf(out, "unknown: … and %d more (--json lists them)\n", len(gaps)-most)
			break
		}
		fmt.Fprintf(out, "unknown: %s\n", g)
	}
}

// printComponent prints a component answer as the matching matrix table
// (aligned on a terminal, TSV when piped); --json prints the facts.
func printComponent(f *Factory, comp usecase.ComponentAnswer) error {
	if f.IO.TTY {
		fmt.Fprintf(f.IO.Out, "%s %s:\n", comp.Component, comp.Version)
	}
	switch rows := comp.Facts.(type) {
	case []usecase.CUDARow:
		return cudaTable(rows).Render(f.IO)
	case []usecase.CUDNNRow:
		return cudnnTable(f.IO, rows).Render(f.IO)
	case []usecase.CUDNNRelease:
		return cudnnReleaseTable(rows).Render(f.IO)
	case map[string]string:
		t := &Table{Header: []string{"fact", "value"}}
		keys := make([]string, 0, len(rows))
		for k := range rows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Add(k, rows[k])
		}
		return t.Render(f.IO)
	}
	return WriteJSON(f.IO.Out, comp.Facts)
}

func packagesText(p map[string]string) string {
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		return packageRank(names[i]) < packageRank(names[j]) || (packageRank(names[i]) == packageRank(names[j]) && names[i] < names[j])
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "==" + p[n]
	}
	return strings.Join(parts, " ")
}

// packageRank puts frameworks before their companions.
func packageRank(name string) int {
	if frameworks.IsMain(name) {
		return 0
	}
	return 1
}

// rangeText is "min–max" on a terminal and "min-max" (ASCII) for programs.
func rangeText(s *Streams, lo, hi string) string {
	if lo == "" && hi == "" {
		return ""
	}
	if s.TTY {
		return lo + "–" + hi
	}
	return lo + "-" + hi
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// supportWords are the table words for query's GPU support tokens (JSON
// keeps the tokens).
var supportWords = map[string]string{
	usecase.SupportSASS:           "runs natively",
	usecase.SupportSASSCompatible: "binary-compatible",
	usecase.SupportPTXJIT:         "PTX JIT only",
	usecase.SupportNone:           "no kernels",
}

// SupportWords is how a table says a GPU support token.
func SupportWords(token string) string {
	if w, ok := supportWords[token]; ok {
		return w
	}
	return token
}

// stackTone colours a stack's status: ok green, unknown yellow.
func stackTone(cell string) Tone {
	switch cell {
	case usecase.StatusOK:
		return Good
	case usecase.StatusUnknown:
		return Warn
	}
	return Bad
}

// supportTone colours a support cell: native green, compatible or JIT
// yellow, no kernels red.
func supportTone(cell string) Tone {
	switch cell {
	case usecase.SupportSASS, supportWords[usecase.SupportSASS]:
		return Good
	case usecase.SupportSASSCompatible, usecase.SupportPTXJIT, supportWords[usecase.SupportSASSCompatible], supportWords[usecase.SupportPTXJIT]:
		return Warn
	case usecase.SupportNone, supportWords[usecase.SupportNone]:
		return Bad
	}
	return None
}
