package query

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/host"
	"github.com/cudb/cudb/query/version"
)

// Finding categories (docs/verify.md).
const (
	CatDriverTooOld      = "driver_too_old"
	CatCUDNNMismatch     = "cudnn_version_mismatch"
	CatCUDNNMissing      = "cudnn_missing"
	CatToolkitMismatch   = "cuda_toolkit_mismatch"
	CatArchUnsupported   = "gpu_arch_unsupported"
	CatCPUOnlyWheel      = "cpu_only_wheel"
	CatMultipleCUDALibs  = "multiple_cuda_libs_conflict"
	CatPythonUnsupported = "python_unsupported"
	CatNoGPUVisible      = "no_gpu_visible"
	CatUnknownVersion    = "unknown_version"
	CatProbeIncomplete   = "probe_incomplete"
)

// Severities, most serious first.
const (
	SevError   = "error"
	SevWarning = "warning"
	SevInfo    = "info"
)

// Categories lists every finding category, for documentation and metrics.
var Categories = []string{CatDriverTooOld, CatCUDNNMismatch, CatCUDNNMissing, CatToolkitMismatch, CatArchUnsupported,
	CatCPUOnlyWheel, CatMultipleCUDALibs, CatPythonUnsupported, CatNoGPUVisible, CatUnknownVersion, CatProbeIncomplete}

// Severities lists the severities, most serious first.
var Severities = []string{SevError, SevWarning, SevInfo}

// Finding is one judgement about a host.
type Finding struct {
	Category string `json:"category"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Evidence are the facts the finding rests on, as "what: value".
	Evidence []string `json:"evidence"`
	// Fix is an exact command or pin; empty only for infos that need none.
	Fix     string      `json:"fix,omitempty"`
	Sources []SourceRef `json:"sources"`
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int  `json:"errors"`
	Warnings int  `json:"warnings"`
	Infos    int  `json:"infos"`
	Healthy  bool `json:"healthy"`
}

// Report is the answer of Verify.
type Report struct {
	Origin   string      `json:"origin"`
	Summary  Summary     `json:"summary"`
	Findings []Finding   `json:"findings"`
	Facts    *host.Facts `json:"facts"`
}

// Verify judges host facts against the database. It is pure: it reads
// nothing but facts and d, so a report pasted from elsewhere gets the same
// answer as a live probe. It raises only what would fail or surprise at
// run time: minor-version compatibility, same-major SASS and PTX JIT are
// not failures.
func Verify(ctx context.Context, d *db.DB, facts *host.Facts) (*Report, error) {
	if facts == nil {
		facts = &host.Facts{}
	}
	v := &verifier{ctx: ctx, d: d, f: facts}
	if err := v.run(); err != nil {
		return nil, err
	}
	r := &Report{Origin: facts.Origin, Findings: v.out, Facts: facts}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	sortFindings(r.Findings)
	r.Summary = summarize(r.Findings)
	return r, nil
}

func summarize(fs []Finding) Summary {
	var s Summary
	for _, f := range fs {
		switch f.Severity {
		case SevError:
			s.Errors++
		case SevWarning:
			s.Warnings++
		default:
			s.Infos++
		}
	}
	s.Healthy = s.Errors == 0
	return s
}

func sevRank(s string) int {
	for i, x := range Severities {
		if x == s {
			return i
		}
	}
	return len(Severities)
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return sevRank(fs[i].Severity) < sevRank(fs[j].Severity) })
}

type verifier struct {
	ctx context.Context
	d   *db.DB
	f   *host.Facts
	out []Finding
	// seen drops repeated findings (two environments with one torch).
	seen map[string]bool
}

func (v *verifier) add(f Finding) {
	key := f.Category + "\x00" + f.Message
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	if v.seen[key] {
		return
	}
	v.seen[key] = true
	if f.Evidence == nil {
		f.Evidence = []string{}
	}
	if f.Sources == nil {
		f.Sources = []SourceRef{}
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
	build   *BuildRow // nil when the database does not know it
}

func (fw *framework) sources() []SourceRef {
	if fw.build == nil || fw.build.Source == "" {
		return nil
	}
	return []SourceRef{{Name: fw.build.Source, URL: fw.build.URL}}
}

func (v *verifier) run() error {
	fws, err := v.frameworks()
	if err != nil {
		return err
	}
	v.notes()
	gpuHost := len(v.f.GPUs) > 0
	if err := v.noGPU(fws); err != nil {
		return err
	}
	for _, fw := range fws {
		steps := []func(*framework) error{v.cpuOnly, v.python, v.driver, v.arch, v.cudnn, v.toolkit, v.runtime}
		if !gpuHost && v.f.Origin != host.OriginHost && v.f.Driver == nil {
			// A report that says nothing about GPUs: judge the build
			// alone, never the absent hardware.
			steps = []func(*framework) error{v.python, v.cudnn, v.runtime}
		}
		for _, s := range steps {
			if err := s(fw); err != nil {
				return err
			}
		}
	}
	v.shadowing(fws)
	v.toolkits()
	return v.errors()
}

// frameworks lists installed framework builds, matched to the database.
func (v *verifier) frameworks() ([]*framework, error) {
	var out []*framework
	for i := range v.f.Pythons {
		py := &v.f.Pythons[i]
		if t := py.Torch; t != nil && t.Version != "" {
			fw, err := v.matchTorch(py, t)
			if err != nil {
				return nil, err
			}
			out = append(out, fw)
		}
		if t := py.TensorFlow; t != nil && t.Version != "" {
			fw, err := v.matchTF(py, t)
			if err != nil {
				return nil, err
			}
			out = append(out, fw)
		}
		if j := py.JAX; j != nil {
			for name, ver := range j.Plugins {
				if m := cudaPluginRe().FindStringSubmatch(name); m != nil {
					out = append(out, &framework{name: "jax", label: "jax " + orUnknown(j.Version) + " (" + name + " " + ver + ")",
						version: j.Version, cuda: m[1], py: py})
					break
				}
			}
		}
		if ver, ok := py.Packages["onnxruntime-gpu"]; ok {
			fw := &framework{name: "onnxruntime-gpu", label: "onnxruntime-gpu " + ver, version: ver, py: py}
			bs, err := LoadBuildsWhere(v.ctx, v.d, "onnxruntime-gpu", func(s string) bool { return s == ver })
			if err != nil {
				return nil, err
			}
			// ORT publishes one package per CUDA major; the newest
			// major is what pip installs by default.
			for _, b := range bs {
				if b.Platform == "" || b.Platform == "linux" {
					if fw.build == nil || cmpDotted(b.CUDA, fw.build.CUDA) > 0 {
						fw.build = b
					}
				}
			}
			if fw.build != nil {
				fw.cuda = majorOf(fw.build.CUDA)
			}
			out = append(out, fw)
			if fw.build == nil {
				v.unknown(fw, "onnxruntime-gpu")
			}
		}
	}
	return out, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func (v *verifier) unknown(fw *framework, component string) {
	v.add(Finding{Category: CatUnknownVersion, Severity: SevWarning,
		Message:  fmt.Sprintf("%s is not in the database: its CUDA, cuDNN and GPU checks are skipped", fw.label),
		Evidence: []string{fmt.Sprintf("%s: %s (%s)", component, fw.version, envName(fw.py))},
		Fix:      fmt.Sprintf("cudb refresh (update the data), or cudb matrix %s for the known releases", component)})
}

func envName(py *host.Python) string {
	if py == nil {
		return "?"
	}
	if py.Prefix != "" {
		return py.Prefix
	}
	return py.Kind
}

// pickBuild chooses the Linux (or all-platform) pip build of a variant.
func pickBuild(bs []*BuildRow, variant string, wantDefault bool) *BuildRow {
	var best *BuildRow
	for _, b := range bs {
		if b.Channel != "" || (b.Platform != "" && b.Platform != "linux") {
			continue
		}
		if wantDefault && !b.IsDefault || !wantDefault && b.Variant != variant {
			continue
		}
		if best == nil {
			best = b
		}
	}
	return best
}

func (v *verifier) matchTorch(py *host.Python, t *host.Torch) (*framework, error) {
	fw := &framework{name: "torch", label: "torch " + t.Version, cuda: t.CUDA, py: py}
	pv, err := version.Parse(t.Version)
	if err != nil {
		fw.version = t.Version
		v.unknown(fw, "torch")
		return fw, nil
	}
	fw.version = pv.Public()
	variant := t.Variant
	if variant == "" && pv.Local() != "" {
		variant = pv.Local()
	}
	bs, err := LoadBuildsWhere(v.ctx, v.d, "torch", func(s string) bool { return s == fw.version })
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		v.unknown(fw, "torch")
		return fw, nil
	}
	if variant != "" {
		fw.build = pickBuild(bs, variant, false)
	} else if t.CUDA != "" || t.Source != "version_py" {
		// A PyPI wheel without a local label is the default variant.
		fw.build = pickBuild(bs, "", true)
	}
	if fw.build == nil && variant == "" && t.CUDA == "" {
		fw.build = pickBuild(bs, "cpu", false)
	}
	if fw.build == nil {
		v.add(Finding{Category: CatUnknownVersion, Severity: SevWarning,
			Message:  fmt.Sprintf("torch %s has no %s build in the database: its CUDA, cuDNN and GPU checks are skipped", fw.version, orUnknown(variant)),
			Evidence: []string{"torch: " + t.Version},
			Fix:      fmt.Sprintf("cudb matrix torch (the variants of %s that exist)", fw.version)})
		return fw, nil
	}
	if fw.cuda == "" {
		fw.cuda = fw.build.CUDA
	}
	return fw, nil
}

func (v *verifier) matchTF(py *host.Python, t *host.TensorFlow) (*framework, error) {
	fw := &framework{name: "tensorflow", label: "tensorflow " + t.Version, cuda: t.CUDA, py: py}
	pv, err := version.Parse(t.Version)
	if err != nil {
		fw.version = t.Version
		v.unknown(fw, "tensorflow")
		return fw, nil
	}
	fw.version = pv.Public()
	bs, err := LoadBuildsWhere(v.ctx, v.d, "tensorflow", func(s string) bool { return s == fw.version })
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		v.unknown(fw, "tensorflow")
		return fw, nil
	}
	gpu := t.IsGPU == nil || *t.IsGPU || t.CUDA != ""
	for _, b := range bs {
		if b.Channel != "" || (b.Platform != "" && b.Platform != "linux") {
			continue
		}
		if gpu == (b.CUDA != "") {
			fw.build = b
			break
		}
	}
	if fw.build != nil && fw.cuda == "" {
		fw.cuda = fw.build.CUDA
	}
	return fw, nil
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
		v.add(Finding{Category: CatProbeIncomplete, Severity: SevWarning,
			Message:  n.Message,
			Evidence: []string{n.Probe + ": timed out"},
			Fix:      fix})
	}
}

// --- no GPU ------------------------------------------------------------

func (v *verifier) noGPU(fws []*framework) error {
	if len(v.f.GPUs) > 0 || v.f.Origin != host.OriginHost {
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
			fix = "sudo modprobe nvidia && nvidia-smi (if the module does not load, reinstall the driver matching the running kernel, then reboot)"
		}
	}
	if v.f.Driver != nil {
		ev = append(ev, "driver: "+v.f.Driver.Version+" ("+v.f.Driver.Source+")")
	} else {
		ev = append(ev, "driver: not found")
	}
	sev := SevWarning
	msg := why + "; nothing GPU-related is installed, so nothing fails yet"
	if len(cudaFW) > 0 {
		sev = SevError
		msg = why + ": " + strings.Join(cudaFW, ", ") + " will run on the CPU only or fail"
	}
	v.add(Finding{Category: CatNoGPUVisible, Severity: sev, Message: msg, Evidence: ev, Fix: fix})
	return nil
}

// --- CPU-only wheel ------------------------------------------------------

func (v *verifier) cpuOnly(fw *framework) error {
	if len(v.f.GPUs) == 0 {
		return nil
	}
	var cpu bool
	switch fw.name {
	case "torch":
		t := fw.py.Torch
		cpu = t.Variant == "cpu" || (t.CUDA == "" && t.Variant == "" && fw.build != nil && fw.build.Variant == "cpu")
	case "tensorflow":
		t := fw.py.TensorFlow
		cpu = (t.IsGPU != nil && !*t.IsGPU) || (fw.build != nil && fw.build.CUDA == "")
	}
	if !cpu {
		return nil
	}
	req := ResolveRequest{Requirements: []string{fw.name + "==" + fw.version}, Platform: "linux", Python: pyMinor(fw.py)}
	v.hostConstraints(&req)
	if fw.name != "torch" {
		// Only torch records architecture lists; a GPU constraint
		// would refuse every other framework's builds.
		req.SM = ""
	}
	fix := v.installFix(req, fw.name)
	if fw.name == "tensorflow" && v.tfHasAndCUDA(fw.version) {
		fix = fmt.Sprintf("pip install \"tensorflow[and-cuda]==%s\"", fw.version)
	}
	v.add(Finding{Category: CatCPUOnlyWheel, Severity: SevError,
		Message:  fmt.Sprintf("%s is a CPU-only build on a host with %s: it will never use the GPU", fw.label, v.f.GPUs[0].Name),
		Evidence: []string{fmt.Sprintf("%s: %s (%s)", fw.name, fw.label, envName(fw.py)), "GPU 0: " + v.f.GPUs[0].Name},
		Fix:      fix, Sources: fw.sources()})
	return nil
}

// tfHasAndCUDA reports whether a TensorFlow release's `and-cuda` extra
// brings the CUDA libraries as wheels.
func (v *verifier) tfHasAndCUDA(ver string) bool {
	bs, err := LoadBuildsWhere(v.ctx, v.d, "tensorflow", func(s string) bool { return s == ver })
	if err != nil {
		return false
	}
	for _, b := range bs {
		for _, r := range b.Reqs {
			if strings.HasPrefix(r.Needs, "nvidia-cudnn-cu") && strings.Contains(r.Marker, "and-cuda") {
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
func (v *verifier) hostConstraints(req *ResolveRequest) {
	if v.f.Driver != nil {
		if _, err := ParseDriver(v.f.Driver.Version); err == nil {
			req.Driver = v.f.Driver.Version
		}
	}
	for _, g := range v.f.GPUs {
		if cc := v.gpuCC(g); cc != "" {
			if _, err := ParseSMKnown(v.ctx, v.d, cc); err == nil {
				req.SM = cc
			}
			break
		}
	}
}

// installFix resolves req and returns the best stack's install command;
// failing that, the resolve command that explains why.
func (v *verifier) installFix(req ResolveRequest, name string) string {
	for _, r := range []ResolveRequest{req, withoutPython(req)} {
		res, err := Resolve(v.ctx, v.d, r)
		if err == nil && len(res.Stacks) > 0 {
			return res.Stacks[0].Install.Command
		}
	}
	return "cudb resolve " + strings.Join(req.Requirements, " ") + resolveFlags(req)
}

func withoutPython(r ResolveRequest) ResolveRequest { r.Python = ""; return r }

func resolveFlags(r ResolveRequest) string {
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

func (v *verifier) python(fw *framework) error {
	if fw.build == nil || fw.py == nil || fw.py.Version == "" {
		return nil
	}
	py, err := version.ParseDotted(pyMinor(fw.py))
	if err != nil {
		return nil
	}
	rng := Range{Min: fw.build.PythonMin, Max: fw.build.PythonMax}
	if rng.Min == "" && rng.Max == "" || pythonIn(py, rng) {
		return nil
	}
	req := ResolveRequest{Requirements: []string{fw.name}, Python: pyMinor(fw.py), Platform: "linux"}
	v.hostConstraints(&req)
	v.add(Finding{Category: CatPythonUnsupported, Severity: SevError,
		Message:  fmt.Sprintf("%s supports Python %s-%s, but the environment runs Python %s", fw.label, rng.Min, rng.Max, fw.py.Version),
		Evidence: []string{"python: " + fw.py.Version + " (" + envName(fw.py) + ")", fmt.Sprintf("%s: python %s-%s", fw.label, rng.Min, rng.Max)},
		Fix:      v.installFix(req, fw.name), Sources: fw.sources()})
	return nil
}

// --- driver ------------------------------------------------------------

func (v *verifier) driver(fw *framework) error {
	if fw.cuda == "" {
		return nil
	}
	ev := []string{fmt.Sprintf("%s: built with CUDA %s", fw.label, fw.cuda)}
	var drv string
	if v.f.Driver != nil && v.f.Driver.Version != "" {
		d, err := ParseDriver(v.f.Driver.Version)
		if err != nil {
			v.add(Finding{Category: CatUnknownVersion, Severity: SevWarning,
				Message:  fmt.Sprintf("driver version %q is not one cudb can read; the driver check is skipped", v.f.Driver.Version),
				Evidence: []string{"driver: " + v.f.Driver.Version}, Fix: "nvidia-smi --query-gpu=driver_version --format=csv,noheader"})
		} else {
			drv = d
			ev = append(ev, "driver: "+drv+" ("+v.f.Driver.Source+")")
		}
	}
	if drv != "" {
		done, err := v.checkDriver(fw, drv, ev)
		if err != nil || done {
			return err
		}
	}
	// The driver's own statement (nvidia-smi "CUDA Version") catches
	// what a version lookup cannot: a WSL shim, an unknown branch.
	if dc := v.f.DriverCUDA; dc != nil && dc.Version != "" {
		have, want := majorOf(dc.Version), majorOf(fw.cuda)
		if a, e1 := strconv.Atoi(have); e1 == nil {
			if b, e2 := strconv.Atoi(want); e2 == nil && a < b {
				fix := v.driverFix(fw, drv)
				v.add(Finding{Category: CatDriverTooOld, Severity: SevError,
					Message:  fmt.Sprintf("the driver supports CUDA up to %s, but %s needs CUDA %s", dc.Version, fw.label, fw.cuda),
					Evidence: append(ev, "driver CUDA: "+dc.Version+" ("+dc.Source+")"), Fix: fix, Sources: fw.sources()})
			}
		}
	}
	return nil
}

// driverOS is whose driver floors apply: Windows ones for the Windows
// driver a WSL2 guest sees, else Linux ones.
func (v *verifier) driverOS() string {
	if v.f.Driver != nil && v.f.Driver.WSL {
		return "windows"
	}
	return "linux"
}

// upgradeDriver says where the driver is upgraded.
func (v *verifier) upgradeDriver() string {
	if v.driverOS() == "windows" {
		return "upgrade the driver on the Windows host"
	}
	return "upgrade the driver"
}

// checkDriver applies CheckDriver; done is true when it gave a verdict.
func (v *verifier) checkDriver(fw *framework, drv string, ev []string) (bool, error) {
	cuda := fw.cuda
	if !strings.Contains(cuda, ".") {
		// JAX and ONNX Runtime state a major only: the minor-version
		// compatibility floor is all that can be checked.
		floor, err := minDriver(v.ctx, v.d, cuda, v.driverOS(), "minor_compat")
		if err != nil || floor == "" {
			return false, err
		}
		if cmpDotted(drv, floor) < 0 {
			v.add(Finding{Category: CatDriverTooOld, Severity: SevError,
				Message:  fmt.Sprintf("driver %s is below %s, the minimum for CUDA %s, which %s needs", drv, floor, cuda, fw.label),
				Evidence: ev, Fix: fmt.Sprintf("install an NVIDIA driver >= %s (e.g. sudo apt-get install nvidia-driver-%s)", floor, branchFor(v, cuda)),
				Sources: v.driverSources()})
		}
		return true, nil
	}
	vd, err := CheckDriverOS(v.ctx, v.d, drv, cuda, v.driverOS())
	if err != nil {
		if ErrorCode(err) == CodeNotFound || ErrorCode(err) == CodeUsage {
			v.add(Finding{Category: CatUnknownVersion, Severity: SevInfo,
				Message:  fmt.Sprintf("no driver floor is known for CUDA %s (%s); the driver check is skipped", cuda, fw.label),
				Evidence: ev, Fix: "cudb matrix cuda"})
			return true, nil
		}
		return false, err
	}
	switch {
	case !vd.OK:
		v.add(Finding{Category: CatDriverTooOld, Severity: SevError,
			Message:  fmt.Sprintf("%s cannot run on this driver: %s", fw.label, vd.Reason),
			Evidence: ev, Fix: v.driverFix(fw, drv), Sources: append(fw.sources(), v.driverSources()...)})
	case vd.Via == "minor_compat":
		v.add(Finding{Category: CatDriverTooOld, Severity: SevInfo,
			Message:  fmt.Sprintf("%s runs via minor-version compatibility on driver %s (below CUDA %s's own floor); features that need a newer driver, such as PTX JIT of newer code, are unavailable", fw.label, drv, vd.CUDA),
			Evidence: ev, Fix: "optional: " + strings.TrimPrefix(vd.Note, "runs via minor-version compatibility; ") + " (" + v.upgradeDriver() + ")",
			Sources: v.driverSources()})
	}
	return true, nil
}

func (v *verifier) driverSources() []SourceRef {
	var s SourceRef
	if err := v.d.SQL.QueryRowContext(v.ctx, "SELECT source, url FROM cuda_driver LIMIT 1").Scan(&s.Name, &s.URL); err != nil {
		return nil
	}
	return []SourceRef{s}
}

// branchFor names a driver branch that meets CUDA cuda's floor.
func branchFor(v *verifier, cuda string) string {
	floor, _ := minDriver(v.ctx, v.d, majorOf(cuda), "linux", "minor_compat")
	if floor == "" {
		return "<branch>"
	}
	return majorOf(floor)
}

// driverFix names the driver floor, and a build of the same framework
// that runs on the installed driver.
func (v *verifier) driverFix(fw *framework, drv string) string {
	var parts []string
	if fl, err := DriverFloors(v.ctx, v.d, fw.cuda); err == nil {
		toolkit, compat, where := fl.LinuxMin, fl.MinorCompatLinuxMin, ""
		if v.driverOS() == "windows" {
			toolkit, compat, where = fl.WindowsMin, fl.MinorCompatWindowsMin, " on the Windows host (WSL2 uses its driver)"
		}
		floor := toolkit
		if floor == "" {
			floor = compat
		}
		s := fmt.Sprintf("upgrade the NVIDIA driver%s to >= %s (CUDA %s", where, floor, fl.CUDA)
		if compat != "" && compat != floor {
			s += fmt.Sprintf("; >= %s runs it via minor-version compatibility", compat)
		}
		parts = append(parts, s+")")
	}
	if drv != "" && fw.name != "jax" {
		req := ResolveRequest{Requirements: []string{fw.name + "==" + fw.version}, Driver: drv, DriverOS: v.driverOS(), Platform: "linux", Python: pyMinor(fw.py)}
		if cmd := v.resolveCmd(req); cmd != "" {
			parts = append(parts, "or keep the driver: "+cmd)
		} else {
			req.Requirements = []string{fw.name}
			if cmd := v.resolveCmd(req); cmd != "" {
				parts = append(parts, "or keep the driver with the newest "+fw.name+" that runs on it: "+cmd)
			}
		}
	}
	return strings.Join(parts, "; ")
}

func (v *verifier) resolveCmd(req ResolveRequest) string {
	for _, r := range []ResolveRequest{req, withoutPython(req)} {
		res, err := Resolve(v.ctx, v.d, r)
		if err == nil && len(res.Stacks) > 0 {
			return res.Stacks[0].Install.Command
		}
	}
	return ""
}

// --- GPU architecture ------------------------------------------------------

func (v *verifier) gpuCC(g host.GPU) string {
	if g.ComputeCapability != "" {
		if cc, err := ParseSM(g.ComputeCapability); err == nil {
			return cc
		}
	}
	if g.Name == "" {
		return ""
	}
	if row, err := LookupGPU(v.ctx, v.d, g.Name); err == nil {
		return row.ComputeCapability
	}
	return ""
}

func (v *verifier) arch(fw *framework) error {
	// The list torch itself reports is the truth; the database's is what
	// the release's wheels were built with.
	archList, archEv := "", ""
	if fw.build != nil && fw.build.ArchList != "" {
		archList = fw.build.ArchList
		archEv = fmt.Sprintf("%s: %s", fw.label, archList)
	}
	if rt := fw.torchRuntime(); rt != nil && len(rt.ArchList) > 0 {
		rtList := strings.Join(rt.ArchList, " ")
		if archList != "" && archList != rtList {
			archEv = fmt.Sprintf("%s at runtime (torch.cuda.get_arch_list(), preferred over the database's %s): %s", fw.label, archList, rtList)
		} else {
			archEv = fmt.Sprintf("%s at runtime (torch.cuda.get_arch_list()): %s", fw.label, rtList)
		}
		archList = rtList
	}
	if archList == "" || fw.cuda == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, g := range v.f.GPUs {
		cc := v.gpuCC(g)
		if rt := fw.torchRuntime(); cc == "" && rt != nil {
			for _, d := range rt.Devices {
				if d.Index == g.Index && d.ComputeCapability != "" {
					cc = d.ComputeCapability
				}
			}
		}
		key := g.Name + "/" + cc
		if seen[key] {
			continue
		}
		seen[key] = true
		ev := []string{fmt.Sprintf("GPU %d: %s", g.Index, g.Name), archEv}
		if cc == "" {
			v.add(Finding{Category: CatUnknownVersion, Severity: SevInfo,
				Message:  fmt.Sprintf("the compute capability of %q is unknown (not reported, not in the GPU table); the architecture check is skipped", g.Name),
				Evidence: ev[:1], Fix: "nvidia-smi --query-gpu=name,compute_cap --format=csv"})
			continue
		}
		ev[0] += " (compute capability " + cc + ")"
		support, detail := GPUSupport(cc, archList)
		switch support {
		case "sass_compatible":
			v.add(Finding{Category: CatArchUnsupported, Severity: SevInfo,
				Message:  fmt.Sprintf("%s runs on %s through same-major binary compatibility: %s", fw.label, g.Name, detail),
				Evidence: ev, Sources: fw.sources()})
		case "ptx_jit":
			v.add(Finding{Category: CatArchUnsupported, Severity: SevWarning,
				Message:  fmt.Sprintf("%s has no native kernels for %s: %s (slower first start, kernels cached afterwards)", fw.label, g.Name, detail),
				Evidence: ev, Fix: v.archFix(fw, cc), Sources: fw.sources()})
		case "none":
			msg := fmt.Sprintf("%s carries no kernels for %s (sm_%s): CUDA calls fail with \"no kernel image is available\"", fw.label, g.Name, strings.ReplaceAll(cc, ".", ""))
			if fw.name == "torch" {
				first, variant, err := firstTorchWith(v.ctx, v.d, cc)
				if err != nil {
					return err
				}
				if first != "" {
					msg += fmt.Sprintf("; the first torch with sm_%s is %s (%s)", strings.ReplaceAll(cc, ".", ""), first, variant)
				}
			}
			v.add(Finding{Category: CatArchUnsupported, Severity: SevError,
				Message:  msg,
				Evidence: ev, Fix: v.archFix(fw, cc), Sources: fw.sources()})
		}
	}
	return nil
}

func (v *verifier) archFix(fw *framework, cc string) string {
	req := ResolveRequest{Requirements: []string{fw.name}, SM: cc, Platform: "linux", Python: pyMinor(fw.py)}
	if v.f.Driver != nil {
		if _, err := ParseDriver(v.f.Driver.Version); err == nil {
			req.Driver = v.f.Driver.Version
		}
	}
	if cmd := v.resolveCmd(req); cmd != "" {
		return cmd
	}
	req.Driver = ""
	if cmd := v.resolveCmd(req); cmd != "" {
		return cmd + " (after upgrading the driver: cudb resolve " + fw.name + " --sm " + cc + ")"
	}
	return "cudb resolve " + fw.name + " --sm " + cc
}

// --- cuDNN -------------------------------------------------------------

// cudnnLib reports whether a copy is a loadable library (not a header).
func cudnnLib(c host.CUDNN) bool { return c.Source != host.CUDNNHeader }

// loadedCUDNN is the copy a framework in py meets first: LD_LIBRARY_PATH
// directories, then (for wheels that pin cuDNN) its own pip copy, then
// the loader cache and anything else.
func (v *verifier) loadedCUDNN(py *host.Python, usesPip bool) (first *host.CUDNN, pip *host.CUDNN) {
	var ld, other *host.CUDNN
	for i := range v.f.CUDNN {
		c := &v.f.CUDNN[i]
		if !cudnnLib(*c) {
			continue
		}
		switch {
		case c.Source == host.CUDNNLDLibraryPath && ld == nil:
			ld = c
		case c.Source == host.CUDNNPip && pip == nil && (py == nil || c.Env == "" || c.Env == py.Prefix):
			pip = c
		case other == nil && c.Source != host.CUDNNPip && c.Source != host.CUDNNLDLibraryPath:
			other = c
		}
	}
	switch {
	case ld != nil:
		return ld, pip
	case usesPip && pip != nil:
		return pip, pip
	case other != nil:
		return other, pip
	}
	return pip, pip
}

func (v *verifier) cudnn(fw *framework) error {
	if fw.build == nil || fw.cuda == "" {
		return nil
	}
	r, ok := fw.build.Req("cudnn", db.KindPin, db.KindBundled, db.KindTested)
	if !ok {
		return nil
	}
	_, pinned := fw.build.Req("cudnn", db.KindPin)
	if fw.name == "tensorflow" && r.Kind == db.KindTested {
		if _, ok := fw.py.NvidiaWheels[cudnnWheel(fw.cuda)]; ok {
			pinned = true
		}
	}
	rt := fw.torchRuntime()
	if rt != nil && rt.CUDNN == "" {
		rt = nil
	}
	if !pinned && r.Kind == db.KindBundled && rt == nil {
		// The wheel carries its own copy next to the library.
		return nil
	}
	want, err := version.ParseDotted(strings.TrimLeft(r.Spec, "=>~ "))
	if err != nil {
		return nil
	}
	first, pip := v.loadedCUDNN(fw.py, pinned)
	if rt != nil {
		return v.cudnnRuntime(fw, r, pinned, want, rt, first)
	}
	if first == nil {
		// Only a probe can say a copy is absent: a report that lists no
		// cuDNN simply did not mention it.
		if !pinned && fw.name == "tensorflow" && v.f.Origin == host.OriginHost {
			v.cudnnMissing(fw, want)
		}
		return nil
	}
	have, err := version.ParseDotted(first.Version)
	if err != nil {
		return nil
	}
	ev := []string{fmt.Sprintf("%s: needs cuDNN %s (%s)", fw.label, r.Spec, r.Kind), fmt.Sprintf("cuDNN loaded first: %s %s (%s)", first.Version, first.Path, first.Source)}
	fix := v.cudnnFix(fw, r, pinned)
	sources := []SourceRef{{Name: r.Source, URL: r.URL}}
	wf, hf := want.Fields(), have.Fields()
	switch {
	case have.Major() != want.Major():
		if !pinned && fw.name == "tensorflow" && v.f.Origin == host.OriginHost && !v.hasCUDNNMajor(want.Major()) {
			v.cudnnMissing(fw, want)
			return nil
		}
		v.add(Finding{Category: CatCUDNNMismatch, Severity: SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %d, but the first copy it meets is cuDNN %s (%s)", fw.label, want.Major(), first.Version, first.Path),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && cmpPrefix(hf, wf) < 0:
		v.add(Finding{Category: CatCUDNNMismatch, Severity: SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %s, but the first copy it meets is the older %s (%s)", fw.label, r.Spec, first.Version, first.Path),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && hf[1] != wf[1]:
		v.add(Finding{Category: CatCUDNNMismatch, Severity: SevWarning,
			Message:  fmt.Sprintf("%s was built for cuDNN %s and meets cuDNN %s first (same major, newer minor: usually fine)", fw.label, r.Spec, first.Version),
			Evidence: ev, Fix: fix, Sources: sources})
	}
	_ = pip
	return nil
}

// cudnnRuntime judges the cuDNN torch really loaded; the copy the files
// predicted becomes evidence of the same finding, never a second one.
func (v *verifier) cudnnRuntime(fw *framework, r db.Requirement, pinned bool, want version.Dotted, rt *host.TorchRuntime, first *host.CUDNN) error {
	have, err := version.ParseDotted(rt.CUDNN)
	if err != nil {
		return nil
	}
	how := "torch.backends.cudnn.version()"
	if rt.CUDNNRaw != "" {
		how += " = " + rt.CUDNNRaw
	}
	ev := []string{fmt.Sprintf("%s: needs cuDNN %s (%s)", fw.label, r.Spec, r.Kind),
		fmt.Sprintf("cuDNN loaded at runtime: %s (%s, %s)", rt.CUDNN, how, fw.py.Runtime.Interpreter)}
	if first != nil {
		ev = append(ev, fmt.Sprintf("cuDNN loaded first: %s %s (%s)", first.Version, first.Path, first.Source))
	}
	if rt.CUDNNError != "" {
		ev = append(ev, "torch: "+rt.CUDNNError)
	}
	fix := v.cudnnFix(fw, r, pinned)
	sources := []SourceRef{{Name: r.Source, URL: r.URL}}
	wf, hf := want.Fields(), have.Fields()
	switch {
	case have.Major() != want.Major():
		v.add(Finding{Category: CatCUDNNMismatch, Severity: SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %d, but cuDNN %s is loaded at runtime", fw.label, want.Major(), rt.CUDNN),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && cmpPrefix(hf, wf) < 0:
		v.add(Finding{Category: CatCUDNNMismatch, Severity: SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %s, but the older cuDNN %s is loaded at runtime", fw.label, r.Spec, rt.CUDNN),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && hf[1] != wf[1]:
		v.add(Finding{Category: CatCUDNNMismatch, Severity: SevWarning,
			Message:  fmt.Sprintf("%s was built for cuDNN %s and cuDNN %s is loaded at runtime (same major, newer minor: usually fine)", fw.label, r.Spec, rt.CUDNN),
			Evidence: ev, Fix: fix, Sources: sources})
	}
	return nil
}

// cmpPrefix compares a and b over the fields both have (8.9 vs 8.9.2.26
// is equal; 8.2.4 vs 8.9.2.26 is older).
func cmpPrefix(a, b []int) int {
	for i := 0; i < len(a) && i < len(b) && i < 3; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func cudnnWheel(cuda string) string { return "nvidia-cudnn-cu" + majorOf(cuda) }

func (v *verifier) hasCUDNNMajor(major int) bool {
	for _, c := range v.f.CUDNN {
		if cudnnLib(c) && c.Major == major {
			return true
		}
	}
	return false
}

func (v *verifier) cudnnFix(fw *framework, r db.Requirement, pinned bool) string {
	if pinned {
		if pr, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok {
			pin := cudnnWheel(fw.cuda) + pr.Spec
			return fmt.Sprintf("pip install %q, and keep other cuDNN copies off LD_LIBRARY_PATH (unset LD_LIBRARY_PATH)", pin)
		}
	}
	return v.aptFix(fw)
}

func (v *verifier) aptFix(fw *framework) string {
	more := "cudb pin " + fw.name + "==" + fw.version + " --format apt"
	res, err := Pins(v.ctx, v.d, ResolveRequest{Requirements: []string{fw.name + "==" + fw.version}, Platform: "linux"}, "apt", PinOptions{})
	if err == nil {
		for _, l := range strings.Split(res.Content, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "libcudnn") {
				return fmt.Sprintf("sudo apt-get install -y '%s' (from NVIDIA's CUDA apt repository; %s lists every system package)", l, more)
			}
		}
	}
	return more
}

func (v *verifier) cudnnMissing(fw *framework, want version.Dotted) {
	fix := v.aptFix(fw)
	if _, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok {
		fix = fmt.Sprintf("pip install \"tensorflow[and-cuda]==%s\"", fw.version)
	}
	v.add(Finding{Category: CatCUDNNMissing, Severity: SevError,
		Message: fmt.Sprintf("%s loads cuDNN %d from the system (libcudnn.so.%d), and no cuDNN %d copy was found: it will run on the CPU only",
			fw.label, want.Major(), want.Major(), want.Major()),
		Evidence: []string{fmt.Sprintf("%s: tested with cuDNN %s", fw.label, want), fmt.Sprintf("cuDNN copies found: %d", len(v.f.CUDNN))},
		Fix:      fix, Sources: fw.sources()})
}

// shadowing reports cuDNN copies on LD_LIBRARY_PATH that hide the pip
// copy a framework pins.
func (v *verifier) shadowing(fws []*framework) {
	for _, fw := range fws {
		if fw.build == nil {
			continue
		}
		if _, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); !ok {
			continue
		}
		first, pip := v.loadedCUDNN(fw.py, true)
		if first == nil || pip == nil || first == pip || first.Source != host.CUDNNLDLibraryPath || first.Version == pip.Version {
			continue
		}
		var rtEv []string
		if rt := fw.torchRuntime(); rt != nil && rt.CUDNN != "" {
			if cmpDotted(rt.CUDNN, pip.Version) == 0 {
				// The process loaded the wheel's copy after all.
				continue
			}
			rtEv = []string{"cuDNN loaded at runtime: " + rt.CUDNN}
		}
		// A newer copy of the same major usually works; an older one or
		// another major does not.
		sev := SevError
		if first.Major == pip.Major && cmpDotted(first.Version, pip.Version) > 0 {
			sev = SevWarning
		}
		v.add(Finding{Category: CatMultipleCUDALibs, Severity: sev,
			Message: fmt.Sprintf("LD_LIBRARY_PATH puts cuDNN %s (%s) ahead of the cuDNN %s wheel %s expects (%s)",
				first.Version, first.Path, pip.Version, fw.label, pip.Path),
			Evidence: append([]string{"LD_LIBRARY_PATH: " + strings.Join(v.f.LDLibraryPath, ":"), "cuDNN " + first.Version + ": " + first.Path, "cuDNN " + pip.Version + ": " + pip.Path}, rtEv...),
			Fix:      fmt.Sprintf("unset LD_LIBRARY_PATH (or remove %s from it) so %s loads its own cuDNN", dirOf(first.Path), fw.name)})
	}
}

func dirOf(p string) string {
	if i := strings.LastIndex(p, "/"); i > 0 && strings.Contains(p[i:], ".so") {
		return p[:i]
	}
	return p
}

// --- toolkits ------------------------------------------------------------

// activeToolkit is the toolkit extension builds use: CUDA_HOME's, else
// the one whose nvcc is on PATH.
func (v *verifier) activeToolkit() *host.Toolkit {
	if h := strings.TrimRight(v.f.CUDAHome, "/"); h != "" {
		for i := range v.f.Toolkits {
			t := &v.f.Toolkits[i]
			if t.Path == h || containsStr(t.Aliases, h) {
				return t
			}
		}
	}
	for i := range v.f.Toolkits {
		if v.f.Toolkits[i].OnPath {
			return &v.f.Toolkits[i]
		}
	}
	return nil
}

func (v *verifier) toolkit(fw *framework) error {
	if fw.name != "torch" || fw.cuda == "" {
		return nil
	}
	t := v.activeToolkit()
	if t == nil || t.Version == "" {
		return nil
	}
	if majorOf(t.Version) == majorOf(fw.cuda) {
		return nil
	}
	fix := fmt.Sprintf("only matters when building CUDA extensions: install CUDA %s (e.g. conda install -c nvidia cuda-toolkit=%s) and export CUDA_HOME to it", fw.cuda, fw.cuda)
	for _, o := range v.f.Toolkits {
		if majorOf(o.Version) == majorOf(fw.cuda) && o.Path != "" {
			fix = fmt.Sprintf("only matters when building CUDA extensions: export CUDA_HOME=%s PATH=%s/bin:$PATH", o.Path, o.Path)
			break
		}
	}
	v.add(Finding{Category: CatToolkitMismatch, Severity: SevWarning,
		Message:  fmt.Sprintf("the CUDA toolkit at %s is %s, but %s was built with CUDA %s: torch.utils.cpp_extension refuses a different major", t.Path, t.Version, fw.label, fw.cuda),
		Evidence: []string{"toolkit: " + t.Version + " " + t.Path + " (" + t.Source + ")", fmt.Sprintf("%s: CUDA %s", fw.label, fw.cuda)},
		Fix:      fix})
	return nil
}

// toolkits reports CUDA_HOME and PATH naming different toolkits.
func (v *verifier) toolkits() {
	if v.f.CUDAHome == "" || len(v.f.Toolkits) < 2 {
		return
	}
	var home, onPath *host.Toolkit
	h := strings.TrimRight(v.f.CUDAHome, "/")
	for i := range v.f.Toolkits {
		t := &v.f.Toolkits[i]
		if t.Path == h || containsStr(t.Aliases, h) {
			home = t
		}
		if t.OnPath {
			onPath = t
		}
	}
	if home == nil || onPath == nil || home == onPath || home.Version == onPath.Version {
		return
	}
	v.add(Finding{Category: CatMultipleCUDALibs, Severity: SevWarning,
		Message: fmt.Sprintf("CUDA_HOME points at CUDA %s (%s) but nvcc on PATH is CUDA %s (%s): builds mix headers and compilers of two toolkits",
			home.Version, home.Path, onPath.Version, onPath.Path),
		Evidence: []string{"CUDA_HOME: " + v.f.CUDAHome, "nvcc on PATH: " + onPath.Path + "/bin/nvcc"},
		Fix:      fmt.Sprintf("export CUDA_HOME=%s (or PATH=%s/bin:$PATH)", onPath.Path, home.Path)})
}

// --- error lines -----------------------------------------------------------

func (v *verifier) errors() error {
	for _, e := range v.f.Errors {
		if _, err := v.explainInto("error: "+e, e, nil); err != nil {
			return err
		}
	}
	return nil
}

// explainInto explains an error text and folds its findings in: one
// that restates a finding already made (of the facts, or of an earlier
// text) becomes its evidence, not a second finding. n is the number of
// findings the text matched; tune, when given, refines a new finding with
// what the facts know better than the text (the framework's own pins).
func (v *verifier) explainInto(evidence, text string, tune func(*Finding)) (n int, err error) {
	fs, err := Explain(v.ctx, v.d, text)
	if err != nil {
		if ErrorCode(err) == CodeNotFound || ErrorCode(err) == CodeUsage {
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

// Incompatible reports whether the report holds an error finding; the
// HTTP API answers such a report with 409, like a resolve conflict.
func (r *Report) Incompatible() bool { return !r.Summary.Healthy }
