package verify

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
)

// Result is the answer of Verify.
type Result struct {
	Origin   string             `json:"origin"`
	Summary  findings.Summary   `json:"summary"`
	Findings []findings.Finding `json:"findings"`
	Facts    *host.Snapshot     `json:"facts"`
	// Read says what the facts are: input, formats, host, driver, GPUs,
	// CUDA and cuDNN copies, environments, framework builds (read.go).
	Read *Read `json:"read"`
}

// Verify judges host facts against the database. It is pure: it reads
// nothing but facts and d, so a report pasted from elsewhere gets the same
// answer as a live probe. It raises only what would fail or surprise at
// run time: minor-version compatibility, same-major SASS and PTX JIT are
// not failures.
func Verify(ctx context.Context, d *db.DB, facts *host.Snapshot) (*Result, error) {
	return VerifyWith(ctx, d, facts, Options{})
}

// GPU expectations for Options.GPU.
const (
	// GPUAuto: no GPU visible is an error where the NVIDIA kernel module
	// is loaded (a node that lost its GPU), a warning elsewhere.
	GPUAuto = ""
	// GPUExpect (--expect-gpu): no GPU visible is always an error.
	GPUExpect = "expect"
	// GPUNoneOK (--no-gpu-ok): a host without a GPU is fine.
	GPUNoneOK = "none-ok"
)

// Options tune what Verify expects of the host.
type Options struct {
	GPU string // GPUAuto, GPUExpect or GPUNoneOK
	// Frameworks is the framework table environments are judged with
	// (nil: cudb's, frameworks.All).
	Frameworks frameworks.Table
	// SystemCUDNN names the system cuDNN package line the pin plan's apt
	// file writes for a framework release ("" when none). Nil: a fix
	// names the `cudb pin --format apt` command instead. The use cases
	// supply pin.SystemCUDNN, so verify and pin stay siblings.
	SystemCUDNN SystemCUDNNFunc
}

// VerifyWith is Verify with explicit expectations.
func VerifyWith(ctx context.Context, d *db.DB, facts *host.Snapshot, opts Options) (*Result, error) {
	if facts == nil {
		facts = &host.Snapshot{}
	}
	v := &verifier{d: d, f: facts, opts: opts}
	if err := v.run(ctx); err != nil {
		return nil, err
	}
	// A step that met a cancelled query took it as "unknown": the report
	// would be incomplete, so the cancellation is the answer.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &Result{Origin: facts.Origin, Findings: v.out, Facts: v.factsWithCC(ctx), Read: v.readSummary(ctx)}
	if r.Findings == nil {
		r.Findings = []findings.Finding{}
	}
	findings.Sort(r.Findings)
	r.Summary = findings.Summarize(r.Findings)
	return r, nil
}

type verifier struct {
	d    *db.DB
	f    *host.Snapshot
	out  []findings.Finding
	opts Options
	// seen drops repeated findings (two environments with one torch).
	seen map[string]bool
	// errExplained and errSkipped count the report's error lines.
	errExplained, errSkipped int
	// fws are the framework builds found, for fixes of explained errors.
	fws []*framework
}

// notJudged says that a value a judgement needs does not parse, so that
// judgement is skipped with a warning instead of in silence.
func (v *verifier) notJudged(fw *framework, what, value, skipped string) error {
	v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
		Message: query.UnparsedText(fw.label, what, value, skipped), Sources: fw.sources()})
	return nil
}

func (v *verifier) add(f findings.Finding) {
	key := f.Category + "\x00" + f.Message
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	if v.seen[key] {
		return
	}
	v.seen[key] = true
	if f.Unknown == nil {
		f.Unknown = []string{}
	}
	if f.Status == "" {
		switch {
		case len(f.Unknown) > 0 || f.Category == findings.CatUnknownVersion:
			f.Status = query.StatusUnknown
		case f.Severity == findings.SevError:
			f.Status = query.StatusIncompatible
		default:
			f.Status = query.StatusOK
		}
	}
	if f.Evidence == nil {
		f.Evidence = []string{}
	}
	if f.Sources == nil {
		f.Sources = []query.SourceRef{}
	}
	v.out = append(v.out, f)
}

var cudaPluginRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^jax-cuda(\d+)-(?:plugin|pjrt)$`) })

// framework is one installed framework build, matched to the database.
type framework struct {
	name    string // torch, tensorflow, jax, onnxruntime-gpu
	label   string // "torch 2.1.0+cu121"
	version string // public version
	cuda    string // the CUDA it was built with ("12.1", or a major "12")
	py      *host.Python
	build   *db.BuildRow // nil when the database does not know it
	// inferred names the earlier release whose build stands in for a
	// release whose facts are pending (query.InferredFrom); "" when
	// build is the installed release's own.
	inferred string
	// variant holds the pip builds of build's release and variant, one
	// per platform (the arch judgement picks the host's, query.ArchFor).
	variant []*db.BuildRow
}

func (fw *framework) sources() []query.SourceRef {
	if fw.build == nil || fw.build.Source == "" {
		return nil
	}
	return []query.SourceRef{{Name: fw.build.Source, URL: fw.build.URL}}
}

func (v *verifier) run(ctx context.Context) error {
	fws, err := v.frameworks(ctx)
	if err != nil {
		return err
	}
	v.fws = fws
	v.notes()
	gpuHost := len(v.f.GPUs) > 0
	if err := v.noGPU(fws); err != nil {
		return err
	}
	v.hiddenGPUs(fws)
	for _, fw := range fws {
		steps := []func(context.Context, *framework) error{v.cpuOnly, v.python, v.driver, v.arch, v.cudnn, v.toolkit, v.runtime}
		if !gpuHost && v.f.Origin != host.OriginHost && v.f.Driver == nil {
			// A report that says nothing about GPUs: judge the build
			// alone, never the absent hardware.
			steps = []func(context.Context, *framework) error{v.python, v.cudnn, v.runtime}
		}
		start := len(v.out)
		for _, s := range steps {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s(ctx, fw); err != nil {
				return err
			}
		}
		if fw.inferred != "" {
			v.inferredFindings(fw, start)
		}
	}
	v.shadowing(judged(fws))
	v.shared(ctx, judged(fws))
	v.packages(ctx, fws)
	v.toolkits()
	return v.errors(ctx)
}

// --- probe notes -----------------------------------------------------

func (v *verifier) notes() {
	for _, n := range v.f.Notes {
		if !strings.Contains(n.Message, "did not answer within") {
			continue
		}
		fix := "timeout 10 nvidia-smi (a hang means a wedged GPU or driver: check `sudo dmesg | grep -i xid` and reset the GPU or reboot)"
		if n.Probe == "interpreter" {
			// The message starts with the interpreter's path.
			interp, _, _ := strings.Cut(n.Message, " ")
			fix = fmt.Sprintf("timeout 120 %s -c \"import torch; print(torch.cuda.is_available())\" (a hang in CUDA initialisation is a wedged GPU or driver: check `sudo dmesg | grep -i xid`; a slow import needs a larger --deep-timeout)", interp)
		}
		v.add(findings.Finding{Category: findings.CatProbeIncomplete, Severity: findings.SevWarning,
			Message:  n.Message,
			Evidence: []string{n.Probe + ": timed out"},
			Fix:      fix})
	}
}

// --- no GPU ------------------------------------------------------------

func (v *verifier) noGPU(fws []*framework) error {
	if len(v.f.GPUs) > 0 || v.opts.GPU == GPUNoneOK {
		return nil
	}
	if v.f.Origin != host.OriginHost && v.opts.GPU != GPUExpect {
		// A report that lists no GPU may simply not have said.
		return nil
	}
	var cudaFW []string
	for _, fw := range fws {
		if fw.cuda != "" {
			cudaFW = append(cudaFW, fw.label)
		}
	}
	ev := []string{"GPUs: none in nvidia-smi or /proc/driver/nvidia/gpus"}
	why := "no NVIDIA GPU is visible"
	smiCannotTalk := false
	fix := "nvidia-smi -L (on a container: run it with --gpus all, or set NVIDIA_VISIBLE_DEVICES; on a VM: check the GPU is attached)"
	for _, n := range v.f.Notes {
		if n.Probe != "nvidia-smi" {
			continue
		}
		ev = append(ev, "nvidia-smi: "+n.Message)
		switch {
		case strings.Contains(n.Message, "No devices were found"):
			why = "the driver is loaded but sees no GPU (nvidia-smi: No devices were found)"
		case strings.Contains(n.Message, "couldn't communicate") || strings.Contains(n.Message, "has failed"):
			why = "nvidia-smi cannot talk to the driver"
			smiCannotTalk = true
			fix = "sudo modprobe nvidia && nvidia-smi (if the module does not load, reinstall the driver matching the running kernel, then reboot)"
		}
	}
	if h, ok := v.hiddenBy(); ok {
		why = h.name + " hides every GPU (" + h.why + ")"
		ev = append(ev, h.evidence())
		fix = visibleFix(h)
	}
	if v.f.Driver != nil {
		ev = append(ev, "driver: "+v.f.Driver.Version+" ("+v.f.Driver.Source+")")
	} else {
		ev = append(ev, "driver: not found")
	}
	// A host with the NVIDIA kernel module or its device nodes was set up
	// to drive a GPU: one that sees none has lost it, which is what a
	// platform team must catch. Elsewhere (a CPU machine, a container
	// started without the GPU, even with the driver's libraries inside)
	// it is a warning; --expect-gpu and --no-gpu-ok choose explicitly. A
	// probe JSON without the kernel facts (older cudb) falls back to the
	// driver files.
	kernel := v.f.Driver != nil && (v.f.Driver.Source == "sys_module" || v.f.Driver.Source == "proc_version")
	if k := v.f.Kernel; k != nil {
		kernel = k.Present()
		ev = append(ev, kernelEvidence(k)...)
	}
	sev, msg := findings.SevWarning, why
	switch {
	case v.opts.GPU == GPUExpect:
		sev, msg = findings.SevError, why+" on a host expected to have one (--expect-gpu)"
	case kernel:
		sev, msg = findings.SevError, why+"; the NVIDIA kernel driver is present, so this host was meant to have a GPU and has lost it"
		fix += "; on a host meant to run without a GPU, pass --no-gpu-ok"
	case smiCannotTalk && v.f.Driver != nil:
		// The driver's own tools and libraries are installed but its
		// module is not loaded (a kernel update without the module
		// rebuilt): the host was set up for a GPU too.
		sev, msg = findings.SevError, why+"; the NVIDIA driver is installed but its kernel module is not loaded, so this host was meant to have a GPU and has lost it"
		fix += "; on a host meant to run without a GPU, pass --no-gpu-ok"
	}
	if len(cudaFW) > 0 {
		sev = findings.SevError
		msg += ": " + strings.Join(cudaFW, ", ") + " will run on the CPU only or fail"
	} else if sev == findings.SevWarning {
		msg += "; nothing GPU-related is installed, so nothing fails yet (--expect-gpu makes this an error)"
	}
	v.add(findings.Finding{Category: findings.CatNoGPUVisible, Severity: sev, Message: msg, Evidence: ev, Fix: fix})
	return nil
}

// --- CPU-only wheel ------------------------------------------------------

func (v *verifier) cpuOnly(ctx context.Context, fw *framework) error {
	if len(v.f.GPUs) == 0 {
		return nil
	}
	var cpu bool
	switch fw.name {
	case frameworks.Torch:
		t := fw.py.Torch
		cpu = t.Variant == "cpu" || (t.CUDA == "" && t.Variant == "" && fw.build != nil && fw.build.Variant == "cpu")
	case frameworks.TensorFlow:
		t := fw.py.TensorFlow
		cpu = (t.IsGPU != nil && !*t.IsGPU) || (fw.build != nil && fw.build.CUDA == "")
	}
	if !cpu {
		return nil
	}
	req := query.ResolveRequest{Requirements: []string{fw.name + "==" + fw.version}, Platform: "linux", Python: pyMinor(fw.py)}
	v.hostConstraints(ctx, &req)
	if fw.name != frameworks.Torch {
		// Only torch records architecture lists; a GPU constraint
		// would refuse every other framework's builds.
		req.SM = ""
	}
	fix := v.installFix(ctx, req, fw.name)
	if fw.name == frameworks.TensorFlow && v.tfHasAndCUDA(ctx, fw.version) {
		fix = fmt.Sprintf("pip install \"%s[%s]==%s\"", frameworks.TensorFlow, frameworks.Must(frameworks.TensorFlow).GPUExtra, fw.version)
	}
	v.add(findings.Finding{Category: findings.CatCPUOnlyWheel, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s is a CPU-only build on a host with %s: it will never use the GPU", fw.label, v.f.GPUs[0].Name),
		Evidence: []string{fmt.Sprintf("%s: %s (%s)", fw.name, fw.label, envName(fw.py)), "GPU 0: " + v.f.GPUs[0].Name},
		Fix:      fix, Sources: fw.sources()})
	return nil
}

// tfHasAndCUDA reports whether a TensorFlow release's `and-cuda` extra
// brings the CUDA libraries as wheels.
func (v *verifier) tfHasAndCUDA(ctx context.Context, ver string) bool {
	bs, err := v.d.Builds(ctx, frameworks.TensorFlow, func(s string) bool { return s == ver })
	if err != nil {
		return false
	}
	for _, b := range bs {
		for _, r := range b.Reqs {
			if strings.HasPrefix(r.Needs, "nvidia-cudnn-cu") && strings.Contains(r.Marker, frameworks.Must(frameworks.TensorFlow).GPUExtra) {
				return true
			}
		}
	}
	return false
}

func pyMinor(py *host.Python) string {
	if py == nil {
		return ""
	}
	p := strings.Split(py.Version, ".")
	if len(p) < 2 {
		return ""
	}
	return p[0] + "." + p[1]
}

// hostConstraints adds the host's driver and GPU to a resolve request so
// that a suggested install runs here.
func (v *verifier) hostConstraints(ctx context.Context, req *query.ResolveRequest) {
	if v.f.Driver != nil {
		if _, err := nvidia.ParseDriver(v.f.Driver.Version); err == nil {
			req.Driver = v.f.Driver.Version
		}
	}
	for _, g := range v.f.GPUs {
		if cc := v.gpuCC(ctx, g); cc != "" {
			if _, err := nvidia.ParseSMKnown(ctx, v.d, cc); err == nil {
				req.SM = cc
			}
			break
		}
	}
}

// installFix resolves req and returns the best stack's install command;
// failing that, the resolve command that explains why.
func (v *verifier) installFix(ctx context.Context, req query.ResolveRequest, name string) string {
	for _, r := range []query.ResolveRequest{req, withoutPython(req)} {
		res, err := query.Resolve(ctx, v.d, r)
		if err == nil && len(res.Stacks) > 0 {
			return res.Stacks[0].Install.Command
		}
	}
	return "cudb resolve " + strings.Join(req.Requirements, " ") + resolveFlags(req)
}

func withoutPython(r query.ResolveRequest) query.ResolveRequest { r.Python = ""; return r }

func resolveFlags(r query.ResolveRequest) string {
	var b strings.Builder
	if r.Driver != "" {
		b.WriteString(" --driver " + r.Driver)
	}
	if r.SM != "" {
		b.WriteString(" --sm " + r.SM)
	}
	return b.String()
}

// --- Python --------------------------------------------------------------

// --- driver ------------------------------------------------------------

// --- GPU architecture ------------------------------------------------------

// --- cuDNN -------------------------------------------------------------

// --- toolkits ------------------------------------------------------------

// --- error lines -----------------------------------------------------------

func (v *verifier) errors(ctx context.Context) error { return v.explainErrors(ctx) }

// explainInto explains an error text and folds its findings in: one
// that restates a finding already made (of the facts, or of an earlier
// text) becomes its evidence, not a second finding. n is the number of
// findings the text matched; tune, when given, refines a new finding with
// what the facts know better than the text (the framework's own pins).
func (v *verifier) explainInto(ctx context.Context, evidence, text string, tune func(*findings.Finding)) (n int, err error) {
	fs, err := Explain(ctx, v.d, text)
	if err != nil {
		if errs.CodeOf(err) == errs.CodeNotFound || errs.CodeOf(err) == errs.CodeUsage {
			return 0, nil
		}
		return 0, err
	}
next:
	for _, f := range fs {
		for i := range v.out {
			if v.out[i].Category == f.Category {
				v.out[i].Evidence = append(v.out[i].Evidence, evidence)
				continue next
			}
		}
		f.Evidence = append([]string{evidence}, f.Evidence...)
		if tune != nil {
			tune(&f)
		}
		v.add(f)
	}
	return len(fs), nil
}

// kernelEvidence names what the probe found of the NVIDIA kernel driver.
func kernelEvidence(k *host.Kernel) []string {
	mod, nodes := "none (no /proc/driver/nvidia/version, no /sys/module/nvidia)", "none (/dev/nvidia*)"
	if len(k.Module) > 0 {
		mod = strings.Join(k.Module, ", ")
	}
	if len(k.DeviceNodes) > 0 {
		nodes = strings.Join(k.DeviceNodes, ", ")
	}
	return []string{"NVIDIA kernel module: " + mod, "NVIDIA device nodes: " + nodes}
}

// SystemCUDNNFunc names the system cuDNN package line of a framework
// release's pin plan (Options.SystemCUDNN).
type SystemCUDNNFunc func(ctx context.Context, d *db.DB, framework, version string) string
