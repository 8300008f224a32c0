package site

import (
	"context"
	"fmt"
	"slices"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

// The install selector (install.html) answers offline: `gen site`
// resolves every framework version × OS × package manager with
// query.Resolve and writes the stacks, with each stack's judgement for
// every GPU compute capability and the driver verdict of every offered
// driver, into data/install.js. The page only filters and ranks what Go
// judged, so it cannot disagree with `cudb resolve`.

// selectorVersions is how many newest releases of each framework the
// selector offers: enough for the versions people install, small enough
// to keep the data file a few hundred kB.
const selectorVersions = 12

var (
	selectorOS       = []string{"linux", "windows"}
	selectorChannels = []string{"pip", "conda"}
)

// Selector is the data behind install.html.
type Selector struct {
	Frameworks []SelectorFramework                         `json:"frameworks"`
	GPUs       []SelectorGPU                               `json:"gpus"`
	Drivers    map[string][]string                         `json:"drivers"`  // os → offered driver versions, newest first
	Verdicts   map[string]map[string]map[string]DriverPick `json:"verdicts"` // os → driver → CUDA → verdict
	Answers    map[string]*SelectorAnswer                  `json:"answers"`  // "torch 2.1.0 linux pip"
}

// SelectorFramework is one framework and the versions offered.
type SelectorFramework struct {
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Versions []string `json:"versions"`
}

// SelectorGPU is a GPU the page offers, by compute capability.
type SelectorGPU struct {
	Name string `json:"name"`
	CC   string `json:"cc"`
}

// DriverPick is query.CheckDriverOS's verdict for one driver and CUDA.
type DriverPick struct {
	OK     bool   `json:"ok"`
	Note   string `json:"note,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// SelectorAnswer is query.Resolve's answer with no host constraint.
type SelectorAnswer struct {
	Request string          `json:"request"` // the equivalent cudb resolve command
	Error   string          `json:"error,omitempty"`
	Stacks  []SelectorStack `json:"stacks,omitempty"`
}

// SelectorStack is one resolved stack, compacted.
type SelectorStack struct {
	Variant string             `json:"variant"`
	CUDA    string             `json:"cuda"`
	CUDNN   string             `json:"cudnn"`
	Python  query.Range        `json:"python"`
	Command string             `json:"command"`
	Default bool               `json:"default"`
	Status  string             `json:"status"`
	Unknown []string           `json:"unknown"`
	Notes   []string           `json:"notes,omitempty"`
	CCs     []string           `json:"ccs"`
	Floor   *query.Floors      `json:"floor,omitempty"`
	Fit     map[string]GPUPick `json:"fit"` // compute capability → judgement
}

// GPUPick is query.StackGPUFit's judgement for one compute capability.
type GPUPick struct {
	Support string `json:"support"`
	Detail  string `json:"detail,omitempty"`
	Keep    bool   `json:"keep"`
	Gap     string `json:"gap,omitempty"`
}

// AnswerKey names an answer in Selector.Answers.
func AnswerKey(framework, ver, os, channel string) string {
	return framework + " " + ver + " " + os + " " + channel
}

// BuildSelector precomputes the install selector's answers.
func BuildSelector(ctx context.Context, d *db.DB) (*Selector, error) {
	sel := &Selector{Drivers: map[string][]string{}, Verdicts: map[string]map[string]map[string]DriverPick{},
		Answers: map[string]*SelectorAnswer{}}
	gpus, err := query.MatrixGPUFiltered(ctx, d, query.GPUFilter{})
	if err != nil {
		return nil, err
	}
	var ccs []string
	for _, g := range gpus {
		if g.ComputeCapability == "" {
			continue
		}
		sel.GPUs = append(sel.GPUs, SelectorGPU{Name: g.Name, CC: g.ComputeCapability})
		if !slices.Contains(ccs, g.ComputeCapability) {
			ccs = append(ccs, g.ComputeCapability)
		}
	}
	cudas := map[string]bool{}
	for _, f := range frameworks.All {
		all, err := d.Versions(ctx, f.Name)
		if err != nil {
			return nil, err
		}
		sf := SelectorFramework{Name: f.Name, Label: f.Label}
		for _, v := range all {
			if len(sf.Versions) == selectorVersions {
				break
			}
			if pv, err := version.Parse(v); err != nil || pv.IsPrerelease() {
				continue
			}
			found := false
			for _, os := range selectorOS {
				for _, ch := range selectorChannels {
					a, err := selectorAnswer(ctx, d, f.Name, v, os, ch, ccs, cudas)
					if err != nil {
						return nil, err
					}
					if a.Error != "" && ch != "pip" {
						continue // conda only where the data has it
					}
					found = found || a.Error == ""
					sel.Answers[AnswerKey(f.Name, v, os, ch)] = a
				}
			}
			if found {
				sf.Versions = append(sf.Versions, v)
			}
		}
		if len(sf.Versions) > 0 {
			sel.Frameworks = append(sel.Frameworks, sf)
		}
	}
	if err := selectorDrivers(ctx, d, sel, cudas); err != nil {
		return nil, err
	}
	return sel, nil
}

func selectorAnswer(ctx context.Context, d *db.DB, fw, v, os, ch string, ccs []string, cudas map[string]bool) (*SelectorAnswer, error) {
	req := query.ResolveRequest{Requirements: []string{fw + "==" + v}, Platform: os, Channel: ch}
	a := &SelectorAnswer{Request: fmt.Sprintf("cudb resolve %s==%s --platform %s --channel %s", fw, v, os, ch)}
	res, err := query.Resolve(ctx, d, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		a.Error = err.Error()
		return a, nil
	}
	for i := range res.Stacks {
		s := &res.Stacks[i]
		ss := SelectorStack{Variant: s.Variant, CUDA: s.CUDA, CUDNN: s.CUDNN, Python: s.Python, Command: s.Install.Command,
			Default: s.Default, Status: s.Status, Unknown: s.Unknown, Notes: s.Notes, CCs: s.ComputeCapabilities,
			Floor: s.Driver, Fit: map[string]GPUPick{}}
		for _, cc := range ccs {
			fit, keep, gap := query.StackGPUFit(ctx, d, s, cc)
			ss.Fit[cc] = GPUPick{Support: fit.Support, Detail: fit.Detail, Keep: keep, Gap: gap}
		}
		if s.CUDA != "" {
			cudas[s.CUDA] = true
		}
		a.Stacks = append(a.Stacks, ss)
	}
	return a, nil
}

// selectorDrivers offers, per OS, every driver floor the stacks' CUDA
// versions name (the toolkit minimum and the minor-version minimum), and
// judges each against each CUDA version with query.CheckDriverOS.
func selectorDrivers(ctx context.Context, d *db.DB, sel *Selector, cudas map[string]bool) error {
	var list []string
	for c := range cudas {
		list = append(list, c)
	}
	slices.SortFunc(list, version.CompareDottedText)
	for _, os := range selectorOS {
		var drivers []string
		for _, c := range list {
			fl, err := query.DriverFloors(ctx, d, c)
			if err != nil {
				continue // unknown floors: the stack's verdict says so
			}
			floors := []string{fl.LinuxMin, fl.MinorCompatLinuxMin}
			if os == "windows" {
				floors = []string{fl.WindowsMin, fl.MinorCompatWindowsMin}
			}
			for _, v := range floors {
				if v != "" && !slices.Contains(drivers, v) {
					drivers = append(drivers, v)
				}
			}
		}
		slices.SortFunc(drivers, func(a, b string) int { return version.CompareDottedText(b, a) })
		sel.Drivers[os] = drivers
		sel.Verdicts[os] = map[string]map[string]DriverPick{}
		for _, drv := range drivers {
			m := map[string]DriverPick{}
			for _, c := range list {
				v, err := query.CheckDriverOS(ctx, d, drv, c, os)
				if err != nil {
					m[c] = DriverPick{Reason: err.Error()}
					continue
				}
				if v.Unknown != "" {
					m[c] = DriverPick{Reason: "unknown: " + v.Unknown}
					continue
				}
				m[c] = DriverPick{OK: v.OK, Note: v.Note, Reason: v.Reason}
			}
			sel.Verdicts[os][drv] = m
		}
	}
	return nil
}
