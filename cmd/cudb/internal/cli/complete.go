package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/usecase"
)

// Shell completion of values (bash, zsh, fish and powershell, through
// cobra's __complete): GPU names, compute capabilities, CUDA versions and
// architectures from the database the command would read (the embedded
// one, or --db), framework releases after `name==`, matrix tables, and
// each command's formats, platforms and channels. Nothing is judged: the
// values are listed, and the database opens only when a value is asked for.

// completePlatforms are the platforms --platform takes (query's request
// check and check's target accept exactly these; TestCompletePlatforms).
var completePlatforms = []string{"linux", "linux-aarch64", "windows", "macos"}

// completeFormats are each command's --format values.
var completeFormats = map[string][]string{
	"pin": usecase.PinFormats, "check": CheckFormats, "verify": VerifyFormats,
}

// registerCompletions gives every flag of c and its subcommands that
// takes a known value its completion, and resolve and pin their
// requirements'.
func registerCompletions(f *Factory, c *cobra.Command) {
	values := func(list func(context.Context, *usecase.DB) ([]string, error)) cobra.CompletionFunc {
		return func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			// No data-age notice on the terminal while a word is completed.
			f.Quiet = true
			d, err := f.DB(c.Context())
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			all, err := list(c.Context(), d)
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			return matching(all, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	fixed := func(list []string) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return matching(list, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	byFlag := map[string]cobra.CompletionFunc{
		"gpu":      values(gpuNames),
		"sm":       values(computeCapabilities),
		"cuda":     values(cudaVersions),
		"arch":     values(architectures),
		"platform": fixed(completePlatforms),
		"channel":  fixed([]string{"pip", "conda"}),
	}
	walk := func(c *cobra.Command) {
		for name, fn := range byFlag {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		if formats, ok := completeFormats[c.Name()]; ok && c.Flags().Lookup("format") != nil {
			_ = c.RegisterFlagCompletionFunc("format", fixed(formats))
		}
		switch c.CommandPath() {
		case "cudb resolve", "cudb pin":
			c.ValidArgsFunction = func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				f.Quiet = true
				d, err := f.DB(c.Context())
				if err != nil {
					return nil, cobra.ShellCompDirectiveError
				}
				return requirementCompletions(c.Context(), d, toComplete)
			}
		case "cudb matrix":
			if c.ValidArgsFunction == nil && c.ValidArgs == nil {
				c.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
					if len(args) > 0 {
						return nil, cobra.ShellCompDirectiveNoFileComp
					}
					return matching(usecase.MatrixNames(), toComplete), cobra.ShellCompDirectiveNoFileComp
				}
			}
		}
	}
	var all func(*cobra.Command)
	all = func(c *cobra.Command) {
		walk(c)
		for _, sub := range c.Commands() {
			all(sub)
		}
	}
	all(c)
}

// requirementCompletions completes one requirement: a framework name
// (with "==" and no space after it), then that framework's releases.
func requirementCompletions(ctx context.Context, d *usecase.DB, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	name, ver, pinned := strings.Cut(toComplete, "==")
	if !pinned {
		var names []string
		for _, fw := range frameworks.All {
			names = append(names, fw.Name+"==")
		}
		names = append(names, "cuda==", "cudnn==")
		return matching(names, toComplete), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	}
	versions, err := d.Versions(ctx, name)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, v := range versions {
		if pv, err := version.Parse(v); err == nil && pv.IsPrerelease() && !strings.HasPrefix(v, ver) {
			continue
		}
		out = append(out, name+"=="+v)
	}
	return matching(out, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// matching keeps the values that start with what was typed (case
// insensitive, as GPU names are typed), in their order. fish hands over
// the word as typed, a space escaped ("RTX\ 40"): read it as the shell does.
func matching(all []string, prefix string) []cobra.Completion {
	p := strings.ToLower(strings.ReplaceAll(prefix, `\ `, " "))
	var out []cobra.Completion
	for _, v := range all {
		if strings.HasPrefix(strings.ToLower(v), p) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func gpuNames(ctx context.Context, d *usecase.DB) ([]string, error) {
	gpus, err := d.GPUs(ctx)
	if err != nil {
		return nil, err
	}
	// Names first, then the aliases --gpu also takes ("RTX 4090" for
	// "GeForce RTX 4090"), so a prefix typed either way finds the GPU.
	var out []string
	for _, g := range gpus {
		out = append(out, g.Name)
	}
	for _, g := range gpus {
		out = append(out, g.Aliases...)
	}
	return out, nil
}

func computeCapabilities(ctx context.Context, d *usecase.DB) ([]string, error) {
	gpus, err := d.GPUs(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, g := range gpus {
		if g.ComputeCapability != "" {
			out = append(out, g.ComputeCapability)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return version.CompareDottedText(b, a) })
	return slices.Compact(out), nil
}

func architectures(ctx context.Context, d *usecase.DB) ([]string, error) {
	gpus, err := d.GPUs(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, g := range gpus {
		if g.Architecture != "" && !slices.Contains(out, g.Architecture) {
			out = append(out, g.Architecture)
		}
	}
	return out, nil
}

// cudaVersions are the toolkit releases, newest first, each minor ("12.1",
// which means any 12.1.x) and major ("12") before its releases.
func cudaVersions(ctx context.Context, d *usecase.DB) ([]string, error) {
	rows, err := matrixRows[usecase.CUDARow](ctx, d, usecase.MatrixOptions{Table: "cuda"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		parts := strings.Split(r.CUDA, ".")
		for i := 1; i <= len(parts); i++ {
			if v := strings.Join(parts[:i], "."); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out, nil
}
