package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/cmd/cudb/internal/probe"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/verify"
)

// VerifyOptions are `cudb verify`'s flags.
type VerifyOptions struct {
	Root    string
	Replay  string
	Python  string
	From    []string
	Format  string
	Timeout time.Duration
	// Deep and DeepTimeout are probe.Options' (--deep).
	Deep        bool
	DeepTimeout time.Duration
	// ExpectGPU and NoGPUOK choose how a host with no visible GPU is
	// judged (verify.Options.GPU).
	ExpectGPU bool
	NoGPUOK   bool
}

// VerifyFormats are the output formats of `cudb verify`.
var VerifyFormats = []string{"text", "json", "prometheus"}

// FileResult is one --from file's report when several are judged.
type FileResult struct {
	File string `json:"file"`
	*verify.Result
}

// MultiReport is `cudb verify --from A --from B --json`.
type MultiReport struct {
	Reports []FileResult   `json:"reports"`
	Summary verify.Summary `json:"summary"`
}

func newVerifyCmd(f *Factory) *cobra.Command {
	opts := &VerifyOptions{}
	c := &cobra.Command{
		Use:   "verify",
		Short: "Judge this host (or a pasted report): driver, GPU, CUDA, cuDNN and framework builds",
		Long: `Verify probes the host as ` + "`cudb probe`" + ` does (or reads reports given with --from) and
judges what it finds against the database: a driver too old for the installed
framework's CUDA, a GPU the build has no kernels for, a CPU-only wheel on a GPU host,
a cuDNN copy that shadows the one the framework expects, a missing system cuDNN,
toolkits that disagree, an unsupported Python. Every finding names a fix.

--from reads collect_env output, nvidia-smi in its forms, pip list/freeze, conda list,
tf.sysconfig.get_build_info(), torch.__config__.show(), ldconfig -p, error lines, or
cudb probe --json, exactly; then any other text (issue templates, prose, nvcc --version,
echo $LD_LIBRARY_PATH, log lines) for the versions it names, which never override a
known format. "-" is standard input. Only a text with nothing recognisable is refused.
Verify first prints what it read (input, driver, GPUs, CUDA and cuDNN copies,
environments, frameworks), then the findings. Several --from files give one report
each plus a summary.

--deep also runs each environment's Python interpreter, which imports torch,
TensorFlow and JAX (those installed) and reports what they really load and see: the
cuDNN torch loaded, whether CUDA initialises (and its error when not), the
architectures the build carries, import errors. It takes seconds, not milliseconds.

Exit status: 0 healthy (infos and warnings only), 3 when any finding is an error,
1 when the host could not be probed.`,
		Example: `  cudb verify
  cudb verify --json
  cudb verify --format prometheus > /var/lib/node_exporter/textfile/cudb.prom
  cudb verify --deep
  cudb verify --expect-gpu         # a GPU node: no visible GPU is an error
  cudb verify --no-gpu-ok          # a CPU node: no GPU is fine
  cudb verify --from collect_env.txt
  pbpaste | cudb verify --from -
  cudb verify --root /mnt/image --replay recorded/cmds`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if f.JSON && opts.Format == "text" {
				opts.Format = "json"
			}
			if !containsString(VerifyFormats, opts.Format) {
				return (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("unknown format %s: expected one of %s", errs.Quote(opts.Format), strings.Join(VerifyFormats, ", "))}).
					WithHint("cudb verify --format prometheus")
			}
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			if opts.ExpectGPU && opts.NoGPUOK {
				return usageError(c, "give --expect-gpu or --no-gpu-ok, not both")
			}
			vopts := verify.Options{}
			switch {
			case opts.ExpectGPU:
				vopts.GPU = verify.GPUExpect
			case opts.NoGPUOK:
				vopts.GPU = verify.GPUNoneOK
			}
			var reps []FileResult
			if len(opts.From) == 0 {
				// nvidia-smi runs only for what the kernel files lack: a
				// GPU whose name the GPU table knows needs none of it.
				known := func(name string) bool { _, err := nvidia.LookupGPU(c.Context(), d, name); return err == nil }
				facts, err := probeHost(c, opts.Replay, probe.Options{Root: opts.Root, Python: opts.Python, Deep: opts.Deep, Timeout: opts.Timeout, DeepTimeout: opts.DeepTimeout, KnownGPU: known})
				if err != nil {
					return err
				}
				r, err := verify.VerifyWith(c.Context(), d, facts, vopts)
				if err != nil {
					return err
				}
				reps = append(reps, FileResult{Result: r})
			}
			stdinUsed := false
			for _, name := range opts.From {
				text, err := readInput(f.IO.In, name, &stdinUsed)
				if err != nil {
					return err
				}
				facts, _, err := report.Parse(text)
				if err != nil {
					code := errs.CodeUsage
					if errs.CodeOf(err) == errs.CodeLimit {
						code = errs.CodeLimit
					}
					return (&errs.Error{Code: code, Message: fmt.Sprintf("%s: %v", displayName(name), err)}).
						WithHint("cudb verify --from collect_env.txt (python -m torch.utils.collect_env > collect_env.txt)")
				}
				r, err := verify.VerifyWith(c.Context(), d, facts, vopts)
				if err != nil {
					return err
				}
				setInput(r, displayName(name))
				reps = append(reps, FileResult{File: displayName(name), Result: r})
			}
			if err := writeVerify(f, opts.Format, reps); err != nil {
				return err
			}
			for _, r := range reps {
				if !r.Summary.Healthy {
					return errs.Reported(errs.CodeIncompatible, "verify found an incompatibility")
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&opts.Root, "root", "", "read the host's files under `DIR` (a copied tree or a mounted image)")
	c.Flags().StringVar(&opts.Replay, "replay", "", "answer commands from recorded outputs in `DIR` instead of running them")
	c.Flags().StringVar(&opts.Python, "python", "", "judge the environment of this interpreter `PATH` first")
	c.Flags().StringArrayVar(&opts.From, "from", nil, "judge a report `FILE` instead of this host (- for standard input; repeatable)")
	c.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text, json or prometheus (node_exporter textfile)")
	c.Flags().DurationVar(&opts.Timeout, "timeout", probe.DefaultTimeout, "limit for each command the probe runs")
	c.Flags().BoolVar(&opts.ExpectGPU, "expect-gpu", false, "no visible GPU is an error (no_gpu_visible), whatever else the host shows")
	c.Flags().BoolVar(&opts.NoGPUOK, "no-gpu-ok", false, "a host without a visible GPU is fine (no no_gpu_visible finding)")
	addDeepFlags(c, &opts.Deep, &opts.DeepTimeout)
	return c
}

// addDeepFlags adds --deep and --deep-timeout, shared by probe and verify.
func addDeepFlags(c *cobra.Command, deep *bool, timeout *time.Duration) {
	c.Flags().BoolVar(deep, "deep", false, "also run each environment's Python to import its frameworks and record what they load and see (takes seconds)")
	c.Flags().DurationVar(timeout, "deep-timeout", probe.DefaultDeepTimeout, "limit for each interpreter run of --deep (imports and CUDA initialisation)")
}

// probeHost runs the probe: real commands on the real host, none under
// --root unless --replay names recordings.
func probeHost(c *cobra.Command, replay string, po probe.Options) (*host.Snapshot, error) {
	po.Env = probe.OSEnv()
	root := po.Root
	switch {
	case replay != "":
		rr, err := probe.LoadReplay(replay)
		if err != nil {
			return nil, err
		}
		po.Runner = rr
	case root == "" || root == "/":
		po.Runner = probe.ExecRunner{}
	}
	facts, err := probe.Run(c.Context(), po)
	if err != nil {
		return nil, fmt.Errorf("failed to probe the host: %w", err)
	}
	return facts, nil
}

func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// readInput reads a file, or standard input for "-" (once).
func readInput(in io.Reader, name string, stdinUsed *bool) ([]byte, error) {
	if name == "-" {
		if *stdinUsed {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: "standard input (-) can be read only once"}).WithHint("cudb verify --from - --from other.txt")
		}
		*stdinUsed = true
		b, err := io.ReadAll(io.LimitReader(in, report.MaxSize+1))
		if err != nil {
			return nil, fmt.Errorf("failed to read standard input: %w", err)
		}
		return b, nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("cannot read report: %v", err)}).WithHint("cudb verify --from collect_env.txt")
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("cannot read report: %s is a directory", name)}).WithHint("cudb verify --from collect_env.txt")
	}
	b, err := io.ReadAll(io.LimitReader(fh, report.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", name, err)
	}
	return b, nil
}

func totalSummary(reps []FileResult) verify.Summary {
	var s verify.Summary
	for _, r := range reps {
		s.Errors += r.Summary.Errors
		s.Warnings += r.Summary.Warnings
		s.Infos += r.Summary.Infos
	}
	s.Healthy = s.Errors == 0
	return s
}

func writeVerify(f *Factory, format string, reps []FileResult) error {
	w := f.IO.Out
	switch format {
	case "json":
		if len(reps) == 1 {
			return WriteJSON(w, reps[0].Result)
		}
		return WriteJSON(w, MultiReport{Reports: reps, Summary: totalSummary(reps)})
	case "prometheus":
		_, err := io.WriteString(w, Prometheus(reps))
		return err
	}
	var b strings.Builder
	for i, r := range reps {
		if len(reps) > 1 {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "== %s (%s)\n", r.File, r.Origin)
		}
		writeFindings(&b, f.IO, r.Result)
	}
	if len(reps) > 1 {
		s := totalSummary(reps)
		fmt.Fprintf(&b, "\n== summary: %d reports, %s\n", len(reps), f.IO.Paint(summaryTone(s), summaryLine(s)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// severityTone colours a severity's heading on a terminal.
var severityTone = map[string]Tone{verify.SevError: Bad, verify.SevWarning: Warn}

func summaryTone(s verify.Summary) Tone {
	switch {
	case !s.Healthy:
		return Bad
	case s.Warnings > 0:
		return Warn
	}
	return Good
}

func summaryLine(s verify.Summary) string {
	state := "healthy"
	if !s.Healthy {
		state = "problems found"
	}
	line := fmt.Sprintf("%s: %d errors, %d warnings, %d infos", state, s.Errors, s.Warnings, s.Infos)
	if v := verify.Verdict(s); v != "" {
		line += ": " + v
	}
	return line
}

// writeFindings is the human report, grouped by severity.
func writeFindings(b *strings.Builder, io *Streams, r *verify.Result) {
	fmt.Fprintf(b, "%s\n", io.Paint(summaryTone(r.Summary), summaryLine(r.Summary)))
	writeRead(b, r.Read)
	for _, sev := range verify.Severities {
		var fs []verify.Finding
		for _, x := range r.Findings {
			if x.Severity == sev {
				fs = append(fs, x)
			}
		}
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s\n", io.Paint(severityTone[sev], fmt.Sprintf("%s (%d):", strings.ToUpper(sev[:1])+sev[1:]+"s", len(fs))))
		for _, x := range fs {
			fmt.Fprintf(b, "  [%s] %s\n", x.Category, x.Message)
			for _, e := range x.Evidence {
				fmt.Fprintf(b, "      seen: %s\n", e)
			}
			if x.Fix != "" {
				fmt.Fprintf(b, "      fix:  %s\n", x.Fix)
			}
		}
	}
}

// Prometheus renders reports as node_exporter textfile metrics. Every
// severity/category pair is written (zero when absent) so alerts need no
// absent() guards.
func Prometheus(reps []FileResult) string {
	var b strings.Builder
	multi := len(reps) > 1
	lbl := func(r FileResult, kv ...string) string {
		var parts []string
		if multi {
			parts = append(parts, `report="`+promEscape(r.File)+`"`)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			parts = append(parts, kv[i]+`="`+promEscape(kv[i+1])+`"`)
		}
		if len(parts) == 0 {
			return ""
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	head := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	head("cudb_verify_healthy", "gauge", "1 when cudb verify found no error-level finding, else 0.")
	for _, r := range reps {
		v := 0
		if r.Summary.Healthy {
			v = 1
		}
		fmt.Fprintf(&b, "cudb_verify_healthy%s %d\n", lbl(r), v)
	}
	head("cudb_verify_findings", "gauge", "Number of cudb verify findings by severity and category.")
	for _, r := range reps {
		count := map[[2]string]int{}
		for _, x := range r.Findings {
			count[[2]string{x.Severity, x.Category}]++
		}
		for _, sev := range verify.Severities {
			for _, cat := range verify.Categories {
				fmt.Fprintf(&b, "cudb_verify_findings%s %d\n", lbl(r, "severity", sev, "category", cat), count[[2]string{sev, cat}])
			}
		}
	}
	head("cudb_driver_info", "gauge", "The NVIDIA driver version seen, as a label.")
	for _, r := range reps {
		if fs := r.Facts; fs != nil && fs.Driver != nil && fs.Driver.Version != "" {
			fmt.Fprintf(&b, "cudb_driver_info%s 1\n", lbl(r, "version", fs.Driver.Version))
		}
	}
	head("cudb_gpu_info", "gauge", "Each GPU seen, with its compute capability when known.")
	for _, r := range reps {
		if r.Facts == nil {
			continue
		}
		for _, g := range r.Facts.GPUs {
			fmt.Fprintf(&b, "cudb_gpu_info%s 1\n", lbl(r, "index", fmt.Sprint(g.Index), "name", g.Name, "compute_capability", g.ComputeCapability))
		}
	}
	head("cudb_framework_info", "gauge", "Each framework build seen, by Python environment.")
	for _, r := range reps {
		if r.Facts == nil {
			continue
		}
		var lines []string
		for _, py := range r.Facts.Pythons {
			add := func(name, ver, cuda string) {
				lines = append(lines, fmt.Sprintf("cudb_framework_info%s 1\n", lbl(r, "name", name, "version", ver, "cuda", cuda, "env", py.Prefix)))
			}
			if t := py.Torch; t != nil {
				add(frameworks.Torch, t.Version, t.CUDA)
			}
			if t := py.TensorFlow; t != nil {
				add(frameworks.TensorFlow, t.Version, t.CUDA)
			}
			if j := py.JAX; j != nil && j.Version != "" {
				add(frameworks.JAX, j.Version, "")
			}
		}
		sort.Strings(lines)
		for _, l := range lines {
			b.WriteString(l)
		}
	}
	return b.String()
}

func promEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
