package check

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/input"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
)

// Finding categories check adds to verify's (docs/check.md).
const (
	// CatNoMatchingBuild: a pin matches no build the database knows
	// (version, variant, Python or platform); exit 4.
	CatNoMatchingBuild = "no_matching_build"
	// CatCompanionMismatch: torchvision/torchaudio/jaxlib that were not
	// released with the framework version.
	CatCompanionMismatch = "companion_mismatch"
	// CatFrameworkConflict: frameworks (or their wheels' CUDA-library
	// pins) that cannot share one environment.
	CatFrameworkConflict = "framework_conflict"
	// CatPinConflict: a file's own nvidia-* pin outside what the
	// framework's wheel requires.
	CatPinConflict = "pin_conflict"
	// CatDriverInImage: a driver package installed inside an image.
	CatDriverInImage = "driver_in_image"
	// CatNotJudged: something the parser could not follow.
	CatNotJudged = "not_judged"
)

// Categories lists every category check reports: the host categories
// (query/findings) and its own.
var Categories = append(append([]string{}, findings.Categories...), CatNoMatchingBuild, CatCompanionMismatch, CatFrameworkConflict, CatPinConflict, CatDriverInImage, CatNotJudged)

// Target is the host the files are judged for; empty fields are unknown
// and their checks are skipped (never assumed to pass).
type Target struct {
	Driver string `json:"driver,omitempty"`
	// DriverOS is "windows" for a Windows driver seen from WSL2.
	DriverOS string `json:"driver_os,omitempty"`
	GPU      string `json:"gpu,omitempty"`
	SM       string `json:"sm,omitempty"`
	Platform string `json:"platform,omitempty"`
	Python   string `json:"python,omitempty"`
	// From says where the target came from: flags, "host" or a report.
	From string `json:"from,omitempty"`
}

// Input is one file to check.
type Input struct {
	Name string
	Data []byte
}

// HostJudge judges the facts of one host against d with the framework
// table and returns the findings (usecase hands in verify's judgement).
type HostJudge func(ctx context.Context, d *db.DB, facts *host.Snapshot, table frameworks.Table) ([]findings.Finding, error)

// Options tune Check.
type Options struct {
	Target Target
	// Frameworks is the framework table requirement lines are read with
	// (nil: cudb's, frameworks.All).
	Frameworks frameworks.Table
	// JudgeHost is the one host judgement (verify's, handed in by the
	// use case, so check and verify stay siblings): the host pass judges
	// the facts a build implies with it. Required.
	JudgeHost HostJudge
	// Read reads a file another refers to (a compose build's Dockerfile,
	// a -r include) by its path relative to the referring file's
	// directory. Nil: such files are not followed, and a note says so.
	Read func(name string) ([]byte, error)
	// BuildArgs override Dockerfile ARG defaults.
	BuildArgs map[string]string
}

// Finding is one judgement about a line of a file.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Category string `json:"category"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Fix is the exact line to write at File:Line (several lines joined
	// by newlines where one is not enough), or a command where the fix is
	// not an edit of the file.
	Fix      string            `json:"fix,omitempty"`
	Evidence []string          `json:"evidence"`
	Sources  []query.SourceRef `json:"sources"`
	// Unit names the stage or service the finding is about.
	Unit string `json:"unit,omitempty"`
}

// String is the finding as `file:line: category: message`.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Category, f.Message)
}

// Summary counts findings by severity.
type Summary struct {
	findings.Summary
	// NoMatch is true when every error is a pin that matches no known
	// build (exit 4 rather than 3).
	NoMatch bool `json:"no_match"`
}

// FileSummary says how a file was read.
type FileSummary struct {
	File  string        `json:"file"`
	Kind  Kind          `json:"kind"`
	Units []UnitSummary `json:"units"`
}

// UnitSummary is what one unit was judged as.
type UnitSummary struct {
	Name   string   `json:"name,omitempty"`
	Image  string   `json:"image,omitempty"`
	Python string   `json:"python,omitempty"`
	Judged []string `json:"judged"`
	// Scenario is the alternative judged (an extra, a dependency group,
	// a shell branch, a lock's index); "" when the unit has one.
	Scenario string `json:"scenario,omitempty"`
}

// Report is the answer of Check.
type Report struct {
	Target   Target        `json:"target"`
	Files    []FileSummary `json:"files"`
	Summary  Summary       `json:"summary"`
	Findings []Finding     `json:"findings"`
	// Read names every framework build judged and every install step
	// not followed; Read.Line() is the first line of text output.
	Read Read `json:"read"`
}

// ExitCode is the status `cudb check` ends with: 0 healthy, 4 when the
// only errors are pins that match no known build, 3 for any other error.
func (r *Report) ExitCode() int {
	switch {
	case r.Summary.Healthy:
		return 0
	case r.Summary.NoMatch:
		return 4
	}
	return 3
}

// Check reads each input and judges what it describes against d for the
// target host.
func Check(ctx context.Context, d *db.DB, inputs []Input, opts Options) (*Report, error) {
	if opts.JudgeHost == nil {
		return nil, errors.New("check: Options.JudgeHost is required (usecase.Check hands in verify's host judgement)")
	}
	warn, err := validateTarget(ctx, d, &opts.Target)
	if err != nil {
		return nil, err
	}
	c := &checker{d: d, opts: opts, seen: map[string]bool{}, followed: map[string]*Unit{}, warnings: warn}
	rep := &Report{Target: opts.Target, Files: []FileSummary{}}
	for _, in := range inputs {
		text, err := decodeInput(displayName(in.Name), in.Data)
		if err != nil {
			return nil, err
		}
		k, err := Detect(in.Name, []byte(text))
		if err != nil {
			return nil, errs.Usage("%v", err).WithHint("cudb check Dockerfile requirements.txt (file kinds: %s)", kindList())
		}
		c.noteKind(displayName(in.Name), k)
		units, err := c.parse(displayName(in.Name), k, text)
		if err != nil {
			if errs.CodeOf(err) == errs.CodeLimit {
				return nil, err
			}
			return nil, errs.Usage("%v", err).WithHint("cudb check %s (is it a %s?)", in.Name, k)
		}
		fs := FileSummary{File: displayName(in.Name), Kind: k, Units: []UnitSummary{}}
		c.targetWarnings(fs.File)
		for _, u := range units {
			s, err := c.judgeUnit(ctx, u, k)
			if err != nil {
				return nil, err
			}
			fs.Units = append(fs.Units, s...)
		}
		if c.limitErr != nil {
			return nil, c.limitErr
		}
		rep.Files = append(rep.Files, fs)
		rep.Files = append(rep.Files, c.extra...)
		c.extra = nil
	}
	rep.Read = c.readOut
	if rep.Read.Frameworks == nil {
		rep.Read.Frameworks = []ReadBuild{}
	}
	if rep.Read.NotFollowed == nil {
		rep.Read.NotFollowed = []ReadStep{}
	}
	rep.Findings = c.out
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	sortFindings(rep.Findings)
	rep.Summary = summarize(rep.Findings)
	return rep, nil
}

func kindList() string {
	var s []string
	for _, k := range Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// validateTarget checks the target's values: a malformed one is a usage
// error; a GPU name the database does not know is a warning (returned as
// a finding to add to each file), and what does not need it is judged.
func validateTarget(ctx context.Context, d *db.DB, t *Target) ([]Finding, error) {
	var warn []Finding
	if t.Driver != "" {
		drv, err := nvidia.ParseDriver(t.Driver)
		if err != nil {
			return nil, errs.Usage("invalid --driver %q: %v", t.Driver, err).WithHint("cudb check Dockerfile --driver 535.104.05")
		}
		t.Driver = drv
	}
	if err := query.CheckGPUAndSM(t.GPU, t.SM); err != nil {
		if t.From == "flags" || t.From == "request" {
			return nil, err.WithHint("cudb check Dockerfile --gpu \"RTX 4090\"")
		}
	}
	if t.Python != "" {
		py, err := query.ParsePython(t.Python)
		if err != nil {
			return nil, err.WithHint("cudb check Dockerfile --python 3.11")
		}
		t.Python = py
	}
	if t.SM != "" {
		sm, err := nvidia.ParseSMKnown(ctx, d, t.SM)
		if err != nil {
			return nil, err
		}
		t.SM = sm
	}
	if t.GPU != "" && t.SM == "" {
		g, err := nvidia.LookupGPU(ctx, d, t.GPU)
		switch {
		case err == nil:
			t.SM = g.ComputeCapability
		case errs.CodeOf(err) == errs.CodeNotFound || errs.CodeOf(err) == errs.CodeUsage:
			warn = append(warn, gpuNameUnknown(*t, err))
		default:
			return nil, err
		}
	}
	if err := query.ParsePlatform(t.Platform); err != nil {
		return nil, err.WithHint("cudb check Dockerfile --platform linux")
	}
	return warn, nil
}

type checker struct {
	d    *db.DB
	opts Options
	out  []Finding
	seen map[string]bool
	// followed are the Dockerfiles compose builds were followed into,
	// judged once each and listed after the file that named them.
	followed map[string]*Unit
	// follows counts the files read through Options.Read (input.MaxIncludes).
	follows int
	// limitErr is the first bound a followed file went past.
	limitErr error
	extra    []FileSummary
	// resolved memoizes resolve answers: a file asks the same question
	// for its finding, its fix and its verify pass.
	resolved map[string]resolved
	readOut  Read
	// warnings are findings about the target itself (an unknown GPU
	// name), added to every file.
	warnings []Finding
	// kinds are the kinds each file read was detected as, so a fix is
	// written in the file's own syntax whatever its name.
	kinds map[string]Kind
}

type resolved struct {
	res *query.Resolution
	err error
}

// resolve is query.Resolve, once per distinct request.
func (c *checker) resolve(ctx context.Context, req query.ResolveRequest) (*query.Resolution, error) {
	key := fmt.Sprintf("%#v", req)
	if r, ok := c.resolved[key]; ok {
		return r.res, r.err
	}
	res, err := query.Resolve(ctx, c.d, req)
	if c.resolved == nil {
		c.resolved = map[string]resolved{}
	}
	c.resolved[key] = resolved{res, err}
	return res, err
}

func (c *checker) add(f Finding) {
	key := fmt.Sprintf("%s\x00%d\x00%s\x00%s", f.File, f.Line, f.Category, f.Message)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	if f.Evidence == nil {
		f.Evidence = []string{}
	}
	if f.Sources == nil {
		f.Sources = []query.SourceRef{}
	}
	c.out = append(c.out, f)
}

// read follows a file named relative to from's directory.
func (c *checker) read(from, name string) (string, []byte, error) {
	p := name
	if !path.IsAbs(name) {
		p = path.Join(path.Dir(strings.ReplaceAll(from, "\\", "/")), name)
	}
	if c.opts.Read == nil {
		return p, nil, fmt.Errorf("referenced files are not followed for this input")
	}
	if c.limitErr != nil {
		return p, nil, c.limitErr
	}
	c.follows++
	if c.follows > input.MaxIncludes {
		err := input.Limit(displayName(from), "the number of files followed", c.follows, input.MaxIncludes)
		c.limited(err)
		return p, nil, err
	}
	b, err := c.opts.Read(p)
	if err != nil {
		return p, nil, err
	}
	text, err := decodeInput(p, b)
	c.limited(err)
	return p, []byte(text), err
}

// limited records an error over a bound: the judgement stops there and
// Check answers with the error, never with what was judged before it.
func (c *checker) limited(err error) bool {
	if err == nil || errs.CodeOf(err) != errs.CodeLimit {
		return false
	}
	if c.limitErr == nil {
		c.limitErr = err
	}
	return true
}

// decodeInput is a file's text: its size checked against the one budget
// every front door shares, its encoding decoded (internal/input).
func decodeInput(name string, b []byte) (string, error) {
	if len(b) > input.MaxFileSize {
		return "", input.Limit(name, "the file's size in bytes", len(b), input.MaxFileSize)
	}
	text, _, err := input.Decode(name, b)
	return text, err
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return findings.Rank(a.Severity) < findings.Rank(b.Severity)
	})
}

func summarize(fs []Finding) Summary {
	s := Summary{Summary: findings.Summary{Healthy: true}}
	noMatchOnly := true
	for _, f := range fs {
		s.Count(f.Severity)
		if f.Severity == findings.SevError && f.Category != CatNoMatchingBuild {
			noMatchOnly = false
		}
	}
	s.NoMatch = s.Errors > 0 && noMatchOnly
	return s
}

// frameworks is the table the check reads requirement lines with.
func (c *checker) frameworks() frameworks.Table { return c.opts.Frameworks.Or() }
