package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/internal/probe"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
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
		Args: NoArgs,
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
				return UsageError(c, "give --expect-gpu or --no-gpu-ok, not both")
			}
			vo := usecase.VerifyOptions{}
			switch {
			case opts.ExpectGPU:
				vo.GPU = usecase.GPUExpect
			case opts.NoGPUOK:
				vo.GPU = usecase.GPUNoneOK
			}
			if len(opts.From) == 0 {
				// nvidia-smi runs only for what the kernel files lack: a
				// GPU whose name the GPU table knows needs none of it.
				known := func(name string) bool { return usecase.KnownGPU(c.Context(), d, name) }
				if vo.Host, err = probeHost(c, opts.Replay, probe.Options{Root: opts.Root, Python: opts.Python, Deep: opts.Deep, Timeout: opts.Timeout, DeepTimeout: opts.DeepTimeout, KnownGPU: known}); err != nil {
					return err
				}
			}
			stdinUsed := false
			for _, name := range opts.From {
				text, err := readInput(f.IO.In, name, &stdinUsed)
				if err != nil {
					return err
				}
				vo.Reports = append(vo.Reports, usecase.ReportText{Name: displayName(name), Text: text})
			}
			res, err := usecase.Verify(c.Context(), d, vo)
			if err != nil {
				return err
			}
			if err := writeVerify(f, opts.Format, res); err != nil {
				return err
			}
			return res.Outcome()
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

// writeVerify formats a verify in the chosen format.
func writeVerify(f *Factory, format string, res *usecase.VerifyResult) error {
	switch format {
	case "json":
		return present.JSON(f.IO.Out, res)
	case "prometheus":
		_, err := io.WriteString(f.IO.Out, present.Prometheus(res))
		return err
	}
	return present.VerifyText(f.IO.Out, res, f.IO.Paint)
}
