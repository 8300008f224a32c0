// Package probe is the only code in cudb that touches the host: it reads
// files under a root and runs a few commands through an injected Runner,
// and returns what it saw as host.Snapshot. It never imports a framework,
// never uses cgo and never starts a shell; every command has a timeout
// because nvidia-smi hangs on a wedged GPU. Tests run it on fake host
// trees with recorded command outputs (testdata/hosts).
package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
)

// Runner runs one command without a shell. It returns the command's
// standard output (with standard error appended when the exit status is
// not zero, since nvidia-smi explains failures on either), its exit
// status, and an error when it could not run or finish: not found
// (errors.Is(err, exec.ErrNotFound)) or ctx ended.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) (stdout []byte, exitCode int, err error)
}

// ExecRunner runs real commands.
type ExecRunner struct{}

// Run implements Runner with exec.CommandContext.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, int, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// A killed nvidia-smi may leave a child holding the pipes; do not
	// wait for it past the deadline.
	cmd.WaitDelay = 100 * time.Millisecond
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.Bytes(), -1, ctx.Err()
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		out.Write(errOut.Bytes())
		return out.Bytes(), exitErr.ExitCode(), nil
	}
	if err != nil {
		return nil, -1, err
	}
	return out.Bytes(), 0, nil
}

// DefaultTimeout bounds each command.
const DefaultTimeout = 3 * time.Second

// Options configure a probe.
type Options struct {
	// Root is prepended to every path read ("/" or "" for the real host).
	Root string
	// Env holds the variables the probe reads: VIRTUAL_ENV, CONDA_PREFIX,
	// LD_LIBRARY_PATH, LD_PRELOAD, CUDA_VISIBLE_DEVICES,
	// NVIDIA_VISIBLE_DEVICES, CUDA_HOME, CUDA_PATH, PATH, HOME, and pyenv's
	// PYENV_ROOT, PYENV_VERSION with PWD (for .python-version).
	Env map[string]string
	// Runner runs commands; nil runs none (every command is "not found").
	Runner Runner
	// Python is an interpreter path whose environment is probed first.
	Python string
	// Deep runs each environment's interpreter (DeepScript) to import
	// its frameworks and record what they load and see (host.Runtime).
	Deep bool
	// Timeout bounds each command; zero means DefaultTimeout.
	Timeout time.Duration
	// DeepTimeout bounds each interpreter run of Deep, which imports
	// frameworks and initialises CUDA; zero means DefaultDeepTimeout.
	DeepTimeout time.Duration
	// Frameworks is the framework table environments are read with (nil:
	// cudb's, frameworks.All).
	Frameworks frameworks.Table
	// KnownGPU, when set, makes nvidia-smi run only for what the kernel
	// files lack: it is not run when /sys/module/nvidia/version or
	// /proc/driver/nvidia/version give the driver and every GPU of
	// /proc/driver/nvidia/gpus has a name KnownGPU knows (its compute
	// capability then comes from the GPU table). nvidia-smi costs about
	// 0.11 s where the files cost under 2 ms; what only it says (the
	// driver's CUDA version, MIG mode, memory) is then absent, and a note
	// says so. Nil runs nvidia-smi always.
	KnownGPU func(name string) bool
}

// EnvKeys are the environment variables the probe reads.
var EnvKeys = []string{"VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CUDA_PATH", "PATH", "HOME", "PYENV_ROOT", "PYENV_VERSION", "PWD",
	"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"}

// visibleDevicesKeys choose which GPUs a process sees; set and empty is
// a value.
var visibleDevicesKeys = []string{"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"}

// OSEnv returns EnvKeys from the process environment.
func OSEnv() map[string]string {
	env := map[string]string{}
	for _, k := range EnvKeys {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

// prober carries one probe run.
type prober struct {
	opts Options
	fs   fsys

	mu    sync.Mutex
	notes []host.Note

	ld       []ldEntry
	ldLoaded bool
}

func (p *prober) note(probe, format string, args ...any) {
	n := host.Note{Probe: probe, Message: fmt.Sprintf(format, args...)}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, have := range p.notes {
		if have == n {
			return
		}
	}
	p.notes = append(p.notes, n)
}

// run runs one command under the per-command timeout. ok is false when
// the command could not give an answer; a note then says why.
func (p *prober) run(ctx context.Context, probe, name string, args ...string) (out []byte, code int, ok bool) {
	return p.runFor(ctx, p.opts.Timeout, probe, baseName(name), "a wedged GPU or driver makes it hang", name, args...)
}

// runFor is run with its own timeout; who names the command in notes and
// why says what a hang means.
func (p *prober) runFor(ctx context.Context, timeout time.Duration, probe, who, why, name string, args ...string) (out []byte, code int, ok bool) {
	if p.opts.Runner == nil {
		p.note(probe, "%s not run: commands are disabled", who)
		return nil, -1, false
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, code, err := p.opts.Runner.Run(cctx, name, args...)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		p.note(probe, "%s not found on PATH", who)
		return nil, -1, false
	case errors.Is(err, context.DeadlineExceeded) || cctx.Err() != nil && ctx.Err() == nil:
		p.note(probe, "%s did not answer within %s (%s); its facts are missing", who, timeout, why)
		return nil, -1, false
	case err != nil:
		p.note(probe, "%s: %v", who, err)
		return nil, -1, false
	}
	return out, code, true
}

// Run probes the host described by opts.
func Run(ctx context.Context, opts Options) (*host.Snapshot, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.DeepTimeout <= 0 {
		opts.DeepTimeout = DefaultDeepTimeout
	}
	if opts.Env == nil {
		opts.Env = map[string]string{}
	}
	if opts.Root != "" && opts.Root != "/" {
		fi, err := os.Stat(opts.Root)
		if err != nil {
			return nil, fmt.Errorf("failed to read probe root: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("probe root %s is not a directory", opts.Root)
		}
	}
	p := &prober{opts: opts, fs: fsys{root: opts.Root}}
	if opts.Python != "" {
		// An interpreter that is not there would be judged by its
		// prefix's prefix (/nonexistent → /): refuse it by name.
		ok := p.fs.exists(opts.Python) && !p.fs.isDir(opts.Python)
		if p.fs.isOS() {
			fi, err := os.Stat(opts.Python)
			ok = err == nil && !fi.IsDir()
		}
		if !ok {
			return nil, errs.Usage("--python %s: no such interpreter file", errs.Quote(opts.Python)).WithHint("cudb verify --python .venv/bin/python")
		}
	}
	f := &host.Snapshot{Origin: host.OriginHost}

	// The kernel files answer in under 2 ms; nvidia-smi is the slow and
	// hang-prone part: run its two calls, where they are needed, while
	// the other files are read.
	files := p.driverFiles()
	procGPUs := p.procGPUs()
	var (
		wg     sync.WaitGroup
		smi    smiResult
		banner bannerResult
	)
	if kernelAnswers(opts, files, procGPUs) {
		p.note("nvidia-smi", "nvidia-smi not run: /sys and /proc/driver/nvidia gave the driver and every GPU (the driver's CUDA version, MIG mode and memory are not read)")
	} else {
		wg.Add(2)
		go func() { defer wg.Done(); smi = p.smiQuery(ctx) }()
		go func() { defer wg.Done(); banner = p.smiBanner(ctx) }()
	}
	f.Kernel = p.kernel()
	p.loadLD(ctx)
	libcuda := p.libcudaVersion()
	f.CUDAHome = opts.Env["CUDA_HOME"]
	if f.CUDAHome == "" {
		f.CUDAHome = opts.Env["CUDA_PATH"]
	}
	f.LDLibraryPath = splitPath(opts.Env["LD_LIBRARY_PATH"])
	// ld.so splits LD_PRELOAD on spaces and colons.
	f.LDPreload = strings.FieldsFunc(opts.Env["LD_PRELOAD"], func(r rune) bool { return r == ':' || r == ' ' })
	for _, k := range visibleDevicesKeys {
		if v, ok := opts.Env[k]; ok {
			f.VisibleDevices = append(f.VisibleDevices, host.EnvVar{Name: k, Value: v})
		}
	}
	f.Pythons = p.pythons()
	// Importing frameworks takes seconds: overlap it with the rest, and
	// keep the answers apart until the file readers are done with Pythons.
	runtimes := make([]*host.Runtime, len(f.Pythons))
	if opts.Deep {
		for i := range f.Pythons {
			if py := f.Pythons[i]; hasFramework(&py) {
				wg.Add(1)
				go func() { defer wg.Done(); runtimes[i] = p.runtime(ctx, &py) }()
			}
		}
	}
	f.Toolkits = p.toolkits(ctx)
	f.CUDNN = append(p.preloaded(f.LDPreload), p.cudnn(f.LDLibraryPath, f.Toolkits, f.Pythons)...)

	wg.Wait()
	for i, rt := range runtimes {
		f.Pythons[i].Runtime = rt
	}
	f.Driver = p.driver(files, smi, banner, libcuda)
	if banner.cuda != "" {
		f.DriverCUDA = &host.DriverCUDA{Version: banner.cuda, Source: "nvidia_smi_banner"}
	}
	f.GPUs = mergeProbeGPUs(smi, procGPUs)
	if len(f.GPUs) == 0 && len(banner.gpus) > 0 {
		f.GPUs = banner.gpus
	}

	sort.SliceStable(p.notes, func(i, j int) bool {
		if p.notes[i].Probe != p.notes[j].Probe {
			return p.notes[i].Probe < p.notes[j].Probe
		}
		return p.notes[i].Message < p.notes[j].Message
	})
	f.Notes = p.notes
	return f, nil
}

func splitPath(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ":") {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// firstLine is the first non-empty line of out, for notes.
func firstLine(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if t := strings.TrimSpace(l); t != "" {
			if len(t) > 200 {
				t = t[:200]
			}
			return t
		}
	}
	return ""
}

// kernelAnswers reports whether the kernel files say all nvidia-smi
// would be asked for here: the driver version, and every GPU by a name
// opts.KnownGPU knows.
func kernelAnswers(opts Options, files driverFiles, gpus []host.GPU) bool {
	if opts.KnownGPU == nil || (files.sys == "" && files.proc == "") || len(gpus) == 0 {
		return false
	}
	for _, g := range gpus {
		if g.Name == "" || !opts.KnownGPU(g.Name) {
			return false
		}
	}
	return true
}
