package present

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/usecase"
)

// MultiFrameworkRows is how many rows a table of several frameworks
// shows by default: their combinations run to thousands of rows, and
// the best ones come first.
const MultiFrameworkRows = 20

// ResolutionText writes a resolve's answer for people (aligned, with the
// best stack's install line and what the data lacks) or, piped, as one
// tab-separated table followed by comment lines. A table of several
// frameworks stops at MultiFrameworkRows unless all; explain cites the
// source row behind every fact.
func ResolutionText(term Terminal, res *usecase.Resolution, all, explain bool) error {
	return printResolution(term, cutRows(res, all), explain)
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

// cutRows keeps the first MultiFrameworkRows stacks of an answer about
// several frameworks (ranked known-good first), unless all.
func cutRows(res *usecase.Resolution, all bool) shownResolution {
	if all || len(res.Stacks) <= MultiFrameworkRows || len(res.Stacks[0].Parts) < 2 {
		return shownResolution{Resolution: res}
	}
	cut := *res
	cut.Stacks = res.Stacks[:MultiFrameworkRows]
	unknown := false
	for _, st := range res.Stacks[MultiFrameworkRows:] {
		unknown = unknown || st.Status != usecase.StatusOK
	}
	return shownResolution{Resolution: &cut, more: len(res.Stacks) - MultiFrameworkRows, unknownCut: unknown}
}

func printResolution(term Terminal, res shownResolution, explain bool) error {
	out := term.Out
	for _, comp := range res.Components {
		if err := printComponent(term, comp); err != nil {
			return err
		}
	}
	if len(res.Conflicts) > 0 {
		for _, line := range usecase.ConflictLines(res.Conflicts, explain) {
			fmt.Fprintln(out, term.Paint(Bad, line))
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
		t.Status[gpuCol] = SupportTone
	}
	if withStatus {
		t.Status[len(header)-1] = StackTone
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
		row := []string{PackagesText(s.Packages), s.Variant, YesNo(s.Default), s.CUDA, s.CUDNN, s.NCCL,
			RangeText(term, s.Python.Min, s.Python.Max), strings.Join(s.Platforms, ","), drv}
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
	if err := t.Render(term); err != nil {
		return err
	}
	if res.more > 0 {
		prefix := ""
		if !term.TTY {
			prefix = "# "
		}
		fmt.Fprintf(out, "%s… %d more stacks (--all shows them, --json lists them)\n", prefix, res.more)
	}
	best := res.Stacks[0]
	if !term.TTY {
		// Piped: the TSV stays one table; what follows is comment lines.
		fmt.Fprintf(out, "# best: %s\n", best.Install.Command)
		for _, n := range best.Notes {
			fmt.Fprintf(out, "# note: %s\n", n)
		}
		if explain {
			// --explain piped: one comment line per citation.
			for _, st := range res.Stacks {
				for _, ci := range st.Citations {
					fmt.Fprintf(out, "# cite: %s (%s) %s %s: %s: %s\n", PackagesText(st.Packages), st.Variant, ci.Fact, ci.Value, ci.Source, citeRef(ci))
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
			fmt.Fprintf(out, "\n%s (%s):\n", PackagesText(s.Packages), s.Variant)
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
func printComponent(term Terminal, comp usecase.ComponentAnswer) error {
	if term.TTY {
		fmt.Fprintf(term.Out, "%s %s:\n", comp.Component, comp.Version)
	}
	switch rows := comp.Facts.(type) {
	case []usecase.CUDARow:
		return CUDATable(rows).Render(term)
	case []usecase.CUDNNRow:
		return CUDNNTable(term, rows).Render(term)
	case []usecase.CUDNNRelease:
		return CUDNNReleaseTable(rows).Render(term)
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
		return t.Render(term)
	}
	return JSON(term.Out, comp.Facts)
}

// PackagesText is a stack's packages as pins, frameworks first.
func PackagesText(p map[string]string) string {
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

// RangeText is "min–max" on a terminal and "min-max" (ASCII) for programs.
func RangeText(s Terminal, lo, hi string) string {
	if lo == "" && hi == "" {
		return ""
	}
	if s.TTY {
		return lo + "–" + hi
	}
	return lo + "-" + hi
}

// YesNo is a boolean cell.
func YesNo(b bool) string {
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

// StackTone colours a stack's status: ok green, unknown yellow.
func StackTone(cell string) Tone {
	switch cell {
	case usecase.StatusOK:
		return Good
	case usecase.StatusUnknown:
		return Warn
	}
	return Bad
}

// SupportTone colours a support cell: native green, compatible or JIT
// yellow, no kernels red.
func SupportTone(cell string) Tone {
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
