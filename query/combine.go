package query

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
)

// maxPairs bounds the combinations tried; stacks arrive best first, so
// the answers that matter are among the first.
const maxPairs = 4000

// combine joins one stack per framework into stacks that can share one
// environment. When none can, it returns the conflicts of the best
// candidates and suggestions of nearby versions that would agree.
func combine(ctx context.Context, d *db.DB, p *parsedRequest, per [][]Stack, cs *constraints) ([]Stack, []Incompatibility, []Suggestion) {
	var out []Stack
	var firstConflicts []Incompatibility
	tried := 0
	var walk func(i int, acc []Stack)
	walk = func(i int, acc []Stack) {
		if tried >= maxPairs || ctx.Err() != nil {
			return
		}
		if i == len(per) {
			tried++
			merged, conflicts := merge(acc, p.Platform)
			if len(conflicts) == 0 {
				out = append(out, merged)
			} else if firstConflicts == nil {
				firstConflicts = conflicts
			}
			return
		}
		for _, s := range per[i] {
			walk(i+1, append(acc, s))
		}
	}
	walk(0, nil)
	if len(out) > 0 {
		// Known-good combinations first: an unknown one may yet conflict.
		sort.SliceStable(out, func(i, j int) bool { return out[i].Status == StatusOK && out[j].Status != StatusOK })
		return out, []Incompatibility{}, nil
	}
	return []Stack{}, firstConflicts, suggest(ctx, d, p, cs)
}

// merge checks that stacks can live in one environment and folds them
// into one stack.
func merge(parts []Stack, platform string) (Stack, []Incompatibility) {
	var conflicts []Incompatibility
	label := stackLabel
	m := Stack{Packages: map[string]string{}, Parts: parts}
	m.Python = parts[0].Python
	m.Platforms = append([]string(nil), parts[0].Platforms...)
	var variants []string
	for i, s := range parts {
		for k, v := range s.Packages {
			m.Packages[k] = v
		}
		variants = append(variants, s.Variant)
		if i == 0 {
			continue
		}
		prev := parts[0]
		// Platforms: the environment lives on one of them. A stack that
		// names none ships for every platform.
		var both []string
		switch {
		case len(m.Platforms) == 0:
			both = append(both, s.Platforms...)
		case len(s.Platforms) == 0:
			both = m.Platforms
		default:
			for _, pl := range m.Platforms {
				if slices.Contains(s.Platforms, pl) {
					both = append(both, pl)
				}
			}
		}
		anywhere := len(m.Platforms) == 0 && len(s.Platforms) == 0
		if !anywhere && (len(both) == 0 || (platform != "" && !slices.Contains(both, platform))) {
			conflicts = append(conflicts, Incompatibility{Kind: "platform", Between: []string{label(prev), label(s)},
				Message: fmt.Sprintf("%s ships for %s, %s for %s: no common platform", label(prev), strings.Join(prev.Platforms, ", "), label(s), strings.Join(s.Platforms, ", "))})
		}
		m.Platforms = both
		// Python: the ranges must overlap.
		r, ok := intersect(m.Python, s.Python)
		if !ok {
			conflicts = append(conflicts, Incompatibility{Kind: "python", Between: []string{label(prev), label(s)},
				Message: fmt.Sprintf("%s supports Python %s-%s, %s supports %s-%s: no common Python", label(prev), m.Python.Min, m.Python.Max, label(s), s.Python.Min, s.Python.Max)})
		}
		m.Python = r
	}
	// The libraries both bring: one judgement, shared with verify.
	m.Status, m.Unknown = StatusOK, []string{}
	for i := range parts {
		for k := i + 1; k < len(parts); k++ {
			j := Share(parts[i].side(), parts[k].side())
			conflicts = append(conflicts, j.Conflicts...)
			for _, u := range j.Unknown {
				if !slices.Contains(m.Unknown, u) {
					m.Unknown = append(m.Unknown, u)
				}
			}
		}
	}
	if len(m.Unknown) > 0 {
		m.Status = StatusUnknown
	}
	m.Variant = strings.Join(variants, "+")
	m.CUDA, m.CUDNN, m.NCCL = parts[0].CUDA, parts[0].CUDNN, parts[0].NCCL
	for _, s := range parts {
		if m.CUDNN == "" {
			m.CUDNN = s.CUDNN
		}
		if m.NCCL == "" {
			m.NCCL = s.NCCL
		}
		for _, pin := range s.Pins {
			if !slices.Contains(m.Pins, pin) {
				m.Pins = append(m.Pins, pin)
			}
		}
		m.Sources = append(m.Sources, s.Sources...)
		m.Citations = append(m.Citations, s.Citations...)
		for _, n := range s.Notes {
			if len(s.pending) == 0 || n != pendingNote(s.pending) {
				m.Notes = append(m.Notes, n)
			}
		}
		m.pending = append(m.pending, s.pending...)
		if m.Driver == nil {
			m.Driver = s.Driver
		}
		m.Default = m.Default || s.Default
	}
	if len(m.pending) > 0 {
		m.Notes = append(m.Notes, pendingNote(m.pending))
	}
	m.Sources = nvidia.DedupSources(m.Sources)
	m.Install = Install{Command: combinedInstall(parts)}
	return m, conflicts
}

func combinedInstall(parts []Stack) string {
	var cmds []string
	for _, s := range parts {
		cmds = append(cmds, s.Install.Command)
	}
	return strings.Join(cmds, " && ")
}

func stackLabel(s Stack) string {
	var names []string
	for k := range s.Packages {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if frameworks.IsMain(k) {
			return k + "==" + s.Packages[k] + " (" + s.Variant + ")"
		}
	}
	return s.Variant
}

// cudaMajor is the CUDA major of a stack.
func cudaMajor(s Stack) string { return cudaMajorOf(s.CUDA, s.Variant) }

func intersect(a, b Range) (Range, bool) {
	r := Range{Min: maxStr(a.Min, b.Min), Max: minStr(a.Max, b.Max)}
	if r.Min != "" && r.Max != "" && version.DottedKey(r.Min) > version.DottedKey(r.Max) {
		return r, false
	}
	return r, true
}

func maxStr(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" || version.DottedKey(a) >= version.DottedKey(b) {
		return a
	}
	return b
}

func minStr(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" || version.DottedKey(a) <= version.DottedKey(b) {
		return a
	}
	return b
}

// suggest looks for the nearest versions that agree: keep one
// framework's requirement, relax the other's to any release, and report
// the best combinations found.
func suggest(ctx context.Context, d *db.DB, p *parsedRequest, cs *constraints) []Suggestion {
	var out []Suggestion
	for keep := range p.frameworks {
		if ctx.Err() != nil {
			return out
		}
		var per [][]Stack
		ok := true
		for i, fr := range p.frameworks {
			f := fr
			if i != keep {
				relaxed := *fr
				relaxed.req = version.Requirement{Name: fr.req.Name}
				f = &relaxed
			}
			stacks, err := frameworkStacks(ctx, d, p, f, cs)
			if err != nil {
				ok = false
				break
			}
			per = append(per, stacks)
		}
		if !ok {
			continue
		}
		var found []Stack
		var walk func(i int, acc []Stack)
		tried := 0
		walk = func(i int, acc []Stack) {
			if len(found) >= 1 || tried >= maxPairs || ctx.Err() != nil {
				return
			}
			if i == len(per) {
				tried++
				// Only a known-good pair agrees: missing data is no agreement.
				if m, c := merge(acc, p.Platform); len(c) == 0 && m.Status == StatusOK {
					found = append(found, m)
				}
				return
			}
			for _, s := range per[i] {
				walk(i+1, append(acc, s))
			}
		}
		walk(0, nil)
		for _, m := range found {
			var reqs []string
			for _, part := range m.Parts {
				reqs = append(reqs, requirementFor(part))
			}
			out = append(out, Suggestion{Requirements: reqs,
				Reason: fmt.Sprintf("keeps %s and picks the newest %s that agrees", p.frameworks[keep].req.String(), otherNames(p, keep))})
		}
	}
	return out
}

func requirementFor(s Stack) string {
	for k, v := range s.Packages {
		if frameworks.IsMain(k) {
			pub := v
			if pv, err := version.Parse(v); err == nil {
				pub = pv.Public()
			}
			return k + "==" + pub
		}
	}
	return ""
}

func otherNames(p *parsedRequest, keep int) string {
	var names []string
	for i, fr := range p.frameworks {
		if i != keep {
			names = append(names, fr.fam.Name)
		}
	}
	return strings.Join(names, " and ")
}
