package site

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/usecase"
)

// The install selector (install.html) answers offline: `gen site`
// resolves every framework release × OS × package manager with
// usecase.Resolve, renders each stack's pin file with usecase.RenderStack, and
// judges each stack for every GPU compute capability (usecase.StackGPUFit)
// and every driver (usecase.CheckDriver, once per range of drivers that
// share a verdict). The page only looks these judgements up and ranks
// what Go judged, so it cannot disagree with `cudb resolve`/`cudb pin`.
//
// data/install.js holds what every selection needs (releases, GPUs,
// driver verdicts, kernel judgements); each release's answers and pin
// files are in data/install/<framework>-<version>.js, loaded when the
// release is picked.

var (
	selectorOS = []string{"linux", "windows"}
	// selectorManagers are the page's package managers: the resolve
	// channel each answers from and the pin format it shows.
	selectorManagers = []struct{ name, channel, format string }{
		{"pip", "pip", "requirements"}, {"uv", "pip", "uv"}, {"conda", "conda", "conda"},
	}
	releaseFileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._+-]+$`) })
)

// Placeholders in a pin file's first line, where the page puts the
// selection's --driver and --gpu (pin's header quotes neither).
const (
	pinDriverMark = "@DRIVER@"
	pinGPUMark    = "@GPU@"
)

// Selector is the data behind install.html.
type Selector struct {
	Frameworks []SelectorFramework `json:"frameworks"`
	Managers   []SelectorManager   `json:"managers"`
	GPUs       []SelectorGPU       `json:"gpus"`
	Driver     DriverTable         `json:"driver"`
	// Fits are the distinct kernel judgements: compute capability → an
	// index into Picks. A stack names its fit by index.
	Fits  []map[string]int `json:"fits"`
	Picks []GPUPick        `json:"picks"`
	// Answers, by AnswerKey, go into the per-release files.
	Answers map[string]*SelectorAnswer `json:"-"`
	// stacks are resolve's stacks behind each answer, to pair releases.
	stacks map[string][]usecase.Stack
}

// SelectorFramework is one framework and the releases offered, newest first.
type SelectorFramework struct {
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Versions []string `json:"versions"`
	// Paired is how many of Versions (the newest) the page pairs with
	// another framework's.
	Paired int `json:"paired"`
}

// SelectorManager is a package manager the page offers.
type SelectorManager struct {
	Name    string `json:"name"`
	Channel string `json:"channel"`
	Format  string `json:"format"`
}

// SelectorGPU is a GPU the page offers, by compute capability.
type SelectorGPU struct {
	Name string `json:"name"`
	CC   string `json:"cc"`
	Arg  string `json:"arg"` // the name as pin's header quotes it
}

// DriverTable judges any driver a user types. CheckDriverOS compares a
// driver only with recorded values (toolkit floors, minor-version floors,
// branch boundaries), so its verdict is the same for every driver between
// two of them: Breaks are those values in ascending order, and a driver
// at or above Breaks[i-1] and below Breaks[i] takes Rows[OS][i]'s verdicts
// (Rows[OS][0] below Breaks[0]).
type DriverTable struct {
	Pattern  string                `json:"pattern"` // usecase.DriverPattern
	MinMajor int                   `json:"min_major"`
	MaxMajor int                   `json:"max_major"`
	OS       map[string]DriverStep `json:"os"`
	Verdicts []map[string]int      `json:"verdicts"` // CUDA → index into Picks
	// VerdictMax is each row's newest CUDA, {max} in its picks' reasons.
	VerdictMax []string     `json:"verdict_max"`
	Picks      []DriverPick `json:"picks"` // "{driver}" stands for the driver judged
}

// DriverStep is one OS's breaks and their verdict rows.
type DriverStep struct {
	Breaks []string `json:"breaks"`
	Rows   []int    `json:"rows"`
}

// DriverPick is usecase.CheckDriver's verdict for one driver and CUDA.
type DriverPick struct {
	OK      bool   `json:"ok"`
	Note    string `json:"note,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Unknown string `json:"unknown,omitempty"` // no floor to judge by: the stack is unknown
}

// SelectorAnswer is usecase.Resolve's answer with no host constraint.
type SelectorAnswer struct {
	Request string          `json:"request"` // the equivalent cudb resolve command
	Format  string          `json:"format"`
	Error   string          `json:"error,omitempty"`
	Stacks  []SelectorStack `json:"stacks,omitempty"`
}

// SelectorStack is one resolved stack, compacted.
type SelectorStack struct {
	Variant string          `json:"variant"`
	CUDA    string          `json:"cuda"`
	CUDNN   string          `json:"cudnn"`
	Python  usecase.Range   `json:"python"`
	Command string          `json:"command"`
	Default bool            `json:"default"`
	Status  string          `json:"status"`
	Unknown []string        `json:"unknown"`
	Notes   []string        `json:"notes,omitempty"`
	CCs     []string        `json:"ccs"`
	Floor   *usecase.Floors `json:"floor,omitempty"`
	Fit     int             `json:"fit"` // index into Selector.Fits
	FitArgs *FitArgs        `json:"fit_args,omitempty"`
	PinFile string          `json:"pin,omitempty"` // pin's file, with the mark placeholders
	PinErr  string          `json:"pin_error,omitempty"`
}

// FitArgs are the stack's own words in its GPU judgements: its
// architecture list, or why none is known. The picks name them as
// {arch} and {missing} (and the compute capability as {cc} and {sm}), so
// that one pick serves every stack and GPU that share its wording:
// data/install.js stays small however many builds the data holds. The
// page fills them back in (fillPick in assets/install.js); FillPick is
// the same substitution, tested against usecase.StackGPUFit.
type FitArgs struct {
	Arch    string `json:"arch,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// templatePick puts the placeholders into one judgement's text.
func templatePick(text string, args FitArgs, cc string) string {
	for _, r := range []struct{ value, mark string }{
		{args.Arch, "{arch}"}, {args.Missing, "{missing}"}, {"sm_" + strings.ReplaceAll(cc, ".", ""), "{sm}"}, {cc, "{cc}"},
	} {
		if r.value != "" && r.value != "sm_" {
			text = strings.ReplaceAll(text, r.value, r.mark)
		}
	}
	return text
}

// FillPick undoes templatePick: the text usecase.StackGPUFit wrote.
func FillPick(text string, args FitArgs, cc string) string {
	for _, r := range []struct{ value, mark string }{
		{cc, "{cc}"}, {"sm_" + strings.ReplaceAll(cc, ".", ""), "{sm}"}, {args.Missing, "{missing}"}, {args.Arch, "{arch}"},
	} {
		text = strings.ReplaceAll(text, r.mark, r.value)
	}
	return text
}

// GPUPick is usecase.StackGPUFit's judgement for one compute capability.
type GPUPick struct {
	Support string `json:"support"`
	Detail  string `json:"detail,omitempty"`
	Keep    bool   `json:"keep"`
	Gap     string `json:"gap,omitempty"`
}

// AnswerKey names an answer in Selector.Answers.
func AnswerKey(framework, ver, os, manager string) string {
	return framework + " " + ver + " " + os + " " + manager
}

// ReleaseFile is the file, under data/, holding one release's answers.
func ReleaseFile(framework, ver string) string {
	return "install/" + framework + "-" + ver + ".js"
}

// BuildSelector precomputes the install selector's answers.
func BuildSelector(ctx context.Context, d *usecase.DB) (*Selector, error) {
	sel := &Selector{Answers: map[string]*SelectorAnswer{}, stacks: map[string][]usecase.Stack{}}
	for _, m := range selectorManagers {
		sel.Managers = append(sel.Managers, SelectorManager{Name: m.name, Channel: m.channel, Format: m.format})
	}
	m, err := usecase.Matrix(ctx, d, usecase.MatrixOptions{Table: "gpu"})
	if err != nil {
		return nil, err
	}
	gpus, ok := m.Rows.([]usecase.GPURow)
	if !ok {
		return nil, fmt.Errorf("table gpu is a %T", m.Rows)
	}
	var ccs []string
	for _, g := range gpus {
		if g.ComputeCapability == "" {
			continue
		}
		sel.GPUs = append(sel.GPUs, SelectorGPU{Name: g.Name, CC: g.ComputeCapability, Arg: usecase.ShellQuote(g.Name)})
		if !slices.Contains(ccs, g.ComputeCapability) {
			ccs = append(ccs, g.ComputeCapability)
		}
	}
	b := &selectorBuilder{d: d, sel: sel, ccs: ccs, cudas: map[string]bool{}, fits: map[string]int{}, picks: map[GPUPick]int{},
		driverPicks: map[DriverPick]int{}}
	for _, f := range frameworks.All {
		all, err := d.Versions(ctx, f.Name)
		if err != nil {
			return nil, err
		}
		sf := SelectorFramework{Name: f.Name, Label: f.Label}
		for _, v := range all {
			if pv, err := version.Parse(v); err != nil || pv.IsPrerelease() {
				continue
			}
			gpu, err := b.release(ctx, f.Name, v)
			if err != nil {
				return nil, err
			}
			if gpu {
				sf.Versions = append(sf.Versions, v)
			}
		}
		sf.Paired = min(len(sf.Versions), pairedReleases)
		if len(sf.Versions) > 0 {
			sel.Frameworks = append(sel.Frameworks, sf)
		}
	}
	if err := b.drivers(ctx); err != nil {
		return nil, err
	}
	return sel, nil
}

type selectorBuilder struct {
	d     *usecase.DB
	sel   *Selector
	ccs   []string
	cudas map[string]bool
	fits  map[string]int
	picks map[GPUPick]int

	driverPicks map[DriverPick]int
}

// release resolves one release for every OS and package manager; gpu
// says whether any of its builds uses CUDA (only those are offered).
func (b *selectorBuilder) release(ctx context.Context, fw, v string) (gpu bool, err error) {
	if !releaseFileRE().MatchString(fw + "-" + v) {
		return false, nil // not a name to put in a file name; resolve still answers it
	}
	keys := []string{}
	for _, os := range selectorOS {
		for _, m := range selectorManagers {
			a, stacks, err := b.answer(ctx, fw, v, os, m.channel, m.format)
			if err != nil {
				return false, err
			}
			if a.Error != "" && m.channel != "pip" {
				continue // conda only where the data has it
			}
			for _, s := range a.Stacks {
				gpu = gpu || s.CUDA != ""
			}
			key := AnswerKey(fw, v, os, m.name)
			b.sel.Answers[key] = a
			b.sel.stacks[key] = stacks
			keys = append(keys, key)
		}
	}
	if !gpu {
		for _, k := range keys {
			delete(b.sel.Answers, k)
			delete(b.sel.stacks, k)
		}
	}
	return gpu, nil
}

func (b *selectorBuilder) answer(ctx context.Context, fw, v, os, ch, format string) (*SelectorAnswer, []usecase.Stack, error) {
	req := usecase.ResolveRequest{Requirements: []string{fw + "==" + v}, Platform: os, Channel: ch}
	a := &SelectorAnswer{Request: fmt.Sprintf("cudb resolve %s==%s --platform %s --channel %s", fw, v, os, ch), Format: format}
	res, err := usecase.Resolve(ctx, b.d, usecase.ResolveOptions{ResolveRequest: req})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		a.Error = err.Error()
		return a, nil, nil
	}
	// The pin file's header names the command that makes it: rendered
	// with placeholders where the page puts the driver and GPU picked.
	preq := req
	preq.Driver, preq.GPU = pinDriverMark, pinGPUMark
	if format != "conda" {
		preq.Channel = ""
	}
	for i := range res.Stacks {
		s := &res.Stacks[i]
		ss := SelectorStack{Variant: s.Variant, CUDA: s.CUDA, CUDNN: s.CUDNN, Python: s.Python, Command: s.Install.Command,
			Default: s.Default, Status: s.Status, Unknown: s.Unknown, Notes: s.Notes, CCs: s.ComputeCapabilities, Floor: s.Driver}
		var args FitArgs
		if ab, missing := s.ArchBuild(); ab != nil {
			args.Arch = ab.ArchList
		} else {
			args.Missing = missing
		}
		if args != (FitArgs{}) {
			ss.FitArgs = &args
		}
		fit := map[string]int{}
		for _, cc := range b.ccs {
			f, keep, gap := usecase.StackGPUFit(ctx, b.d, s, cc)
			fit[cc] = b.pick(GPUPick{Support: f.Support, Detail: templatePick(f.Detail, args, cc), Keep: keep, Gap: templatePick(gap, args, cc)})
		}
		ss.Fit = b.fit(fit)
		if content, err := usecase.RenderStack(ctx, b.d, preq, format, usecase.PinRenderOptions{}, s); err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			ss.PinErr = err.Error()
		} else {
			ss.PinFile = content
		}
		if s.CUDA != "" {
			b.cudas[s.CUDA] = true
		}
		a.Stacks = append(a.Stacks, ss)
	}
	return a, res.Stacks, nil
}

func (b *selectorBuilder) pick(p GPUPick) int {
	if i, ok := b.picks[p]; ok {
		return i
	}
	b.picks[p] = len(b.sel.Picks)
	b.sel.Picks = append(b.sel.Picks, p)
	return b.picks[p]
}

func (b *selectorBuilder) fit(m map[string]int) int {
	var k strings.Builder
	for _, cc := range b.ccs {
		fmt.Fprintf(&k, "%s=%d;", cc, m[cc])
	}
	if i, ok := b.fits[k.String()]; ok {
		return i
	}
	b.fits[k.String()] = len(b.sel.Fits)
	b.sel.Fits = append(b.sel.Fits, m)
	return b.fits[k.String()]
}

// writeReleases writes each release's answers into its own script,
// data/install/<framework>-<version>.js, which hands them to the page
// (a script, not JSON: it loads from file:// too).
func writeReleases(w *writer, sel *Selector) error {
	for _, f := range sel.Frameworks {
		for _, v := range f.Versions {
			m := map[string]*SelectorAnswer{}
			for _, os := range selectorOS {
				for _, pm := range selectorManagers {
					if a, ok := sel.Answers[AnswerKey(f.Name, v, os, pm.name)]; ok {
						m[AnswerKey(f.Name, v, os, pm.name)] = a
					}
				}
			}
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			w.write("data/"+ReleaseFile(f.Name, v), append(append([]byte("cudbInstallRelease("), b...), []byte(");\n")...))
		}
	}
	return nil
}
