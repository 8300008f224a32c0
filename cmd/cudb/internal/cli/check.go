package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/cmd/cudb/internal/probe"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/internal/input"
	"github.com/cudb/cudb/query/check"
)

// CheckOptions are `cudb check`'s flags.
type CheckOptions struct {
	Files     []string
	Format    string
	Driver    string
	GPU       string
	SM        string
	Platform  string
	Python    string
	Host      bool
	HostFrom  string
	BuildArgs []string
}

// CheckFormats are the output formats of `cudb check`.
var CheckFormats = []string{"text", "json", "sarif", "github"}

func newCheckCmd(f *Factory) *cobra.Command {
	opts := &CheckOptions{}
	c := &cobra.Command{
		Use:   "check FILE...",
		Short: "Judge Dockerfiles, compose files and dependency files against a target host before building",
		Long: `Check reads project files and judges what they will install, with the judgement
resolve and verify use: pins that match no known build, companions that were not
released together, frameworks whose wheels pin different CUDA libraries, a build with
no kernels for the target GPU, an image whose CUDA the target driver cannot start,
a TensorFlow that needs the system cuDNN in an image without one, a driver installed
inside an image, a compose service that reserves no GPU.

Files: Dockerfile (nvidia/cuda, pytorch/pytorch, tensorflow/tensorflow, nvcr.io/nvidia/pytorch
and python base images; multi-stage builds; ARG/ENV; pip, uv, conda and apt lines),
compose files (image or build, GPU reservations), requirements*.txt and constraints,
pip freeze output, pyproject.toml (with uv sources and indexes), uv.lock, poetry.lock
and conda environment files. The kind is detected from the name, else the content;
"-" reads standard input; a directory stands for the project files in it.

The target host: --driver, --gpu or --sm, --platform, --python; or --host (probe this
machine) or --host-from REPORT (a pasted nvidia-smi or collect_env). Without one, only
what the files alone imply is judged; what is unknown is a warning naming the missing fact.

Each finding reads file:line: category: message, followed by the exact line to write.

Exit status: 0 healthy (warnings and infos only), 3 when a finding is an error,
4 when the only errors are pins that match no known build.`,
		Example: `  cudb check Dockerfile --driver 535.104.05 --gpu "RTX 4090"
  cudb check Dockerfile requirements.txt --json
  cudb check .                      # every Dockerfile, compose, requirements, pyproject, lock here
  cudb check docker-compose.yml --host
  cudb check pyproject.toml uv.lock --python 3.12 --format sarif > cudb.sarif
  cudb check Dockerfile --format github     # annotations in a GitHub Actions job
  cat requirements.txt | cudb check - --sm 8.6`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			return runCheck(c, f, opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text, json, sarif or github")
	c.Flags().StringVar(&opts.Driver, "driver", "", "the target host's NVIDIA driver `VERSION` (535.104.05)")
	c.Flags().StringVar(&opts.GPU, "gpu", "", "the target `GPU` by name (\"RTX 4090\", \"Tesla T4\")")
	c.Flags().StringVar(&opts.SM, "sm", "", "the target GPU's compute capability `CC` (8.9)")
	c.Flags().StringVar(&opts.Platform, "platform", "", "the target `PLATFORM`: linux (default), linux-aarch64, windows, macos")
	c.Flags().StringVar(&opts.Python, "python", "", "the Python `VERSION` packages are installed for (default: the image's)")
	c.Flags().BoolVar(&opts.Host, "host", false, "probe this machine for the target's driver and GPU")
	c.Flags().StringVar(&opts.HostFrom, "host-from", "", "read the target's driver and GPU from a report `FILE` (nvidia-smi, collect_env, cudb probe --json)")
	c.Flags().StringArrayVar(&opts.BuildArgs, "build-arg", nil, "set a Dockerfile ARG (`NAME=VALUE`), as docker build does")
	return c
}

func runCheck(c *cobra.Command, f *Factory, opts *CheckOptions) error {
	if f.JSON && opts.Format == "text" {
		opts.Format = "json"
	}
	if !containsString(CheckFormats, opts.Format) {
		return (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("unknown format %q: expected one of %s", opts.Format, strings.Join(CheckFormats, ", "))}).
			WithHint("cudb check Dockerfile --format sarif")
	}
	if len(opts.Files) == 0 {
		return usageError(c, "name at least one file to check (or - for standard input)")
	}
	if opts.Host && opts.HostFrom != "" {
		return (&errs.Error{Code: errs.CodeUsage, Message: "--host and --host-from both describe the target: give one"}).WithHint("cudb check Dockerfile --host")
	}
	target := check.Target{Driver: opts.Driver, GPU: opts.GPU, SM: opts.SM, Platform: opts.Platform, Python: opts.Python, From: "flags"}
	var facts *host.Snapshot
	stdinUsed := false
	switch {
	case opts.Host:
		fs, err := probeHost(c, "", probe.Options{Timeout: probe.DefaultTimeout})
		if err != nil {
			return err
		}
		facts, target.From = fs, "host"
	case opts.HostFrom != "":
		b, err := readInput(f.IO.In, opts.HostFrom, &stdinUsed)
		if err != nil {
			return err
		}
		fs, _, err := report.Parse(b)
		if err != nil {
			return (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s: %v", displayName(opts.HostFrom), err)}).
				WithHint("cudb check Dockerfile --host-from nvidia-smi.txt")
		}
		facts, target.From = fs, "report "+displayName(opts.HostFrom)
	}
	if facts != nil {
		if target.Driver == "" && facts.Driver != nil {
			target.Driver = facts.Driver.Version
			if facts.Driver.WSL {
				target.DriverOS = "windows"
			}
		}
		if target.GPU == "" && target.SM == "" && len(facts.GPUs) > 0 {
			target.GPU, target.SM = facts.GPUs[0].Name, facts.GPUs[0].ComputeCapability
		}
	}
	buildArgs := map[string]string{}
	for _, a := range opts.BuildArgs {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("invalid --build-arg %q: expected NAME=VALUE", a)}).WithHint("cudb check Dockerfile --build-arg CUDA_VERSION=12.1.0")
		}
		buildArgs[k] = v
	}
	files, err := expandDirs(opts.Files)
	if err != nil {
		return err
	}
	var inputs []check.Input
	for _, name := range files {
		b, err := readProjectFile(f.IO.In, name, &stdinUsed)
		if err != nil {
			return err
		}
		inputs = append(inputs, check.Input{Name: name, Data: b})
	}
	d, err := f.DB(c.Context())
	if err != nil {
		return err
	}
	rep, err := check.Check(c.Context(), d, inputs, check.Options{Target: target, BuildArgs: buildArgs, Read: readFollowed})
	if err != nil {
		return err
	}
	if err := writeCheck(f, opts.Format, rep); err != nil {
		return err
	}
	switch rep.ExitCode() {
	case 4:
		return errs.Reported(errs.CodeNotFound, "check found a pin that matches no known build")
	case 3:
		return errs.Reported(errs.CodeIncompatible, "check found an incompatibility")
	}
	return nil
}

// expandDirs replaces a directory argument by the project files in it
// (not its subdirectories), in name order.
func expandDirs(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		st, err := os.Stat(n)
		if n == "-" || err != nil || !st.IsDir() {
			out = append(out, n)
			continue
		}
		ents, err := os.ReadDir(n)
		if err != nil {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("cannot read directory %s: %v", n, err)}).WithHint("cudb check Dockerfile")
		}
		found := 0
		for _, e := range ents {
			if _, ok := check.KindOfName(e.Name()); ok && e.Type().IsRegular() {
				out = append(out, filepath.Join(n, e.Name()))
				found++
			}
		}
		if found == 0 {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s holds no file check reads (Dockerfile, compose, requirements*.txt, pyproject.toml, uv.lock, poetry.lock, environment.yml)", n)}).WithHint("cudb check %s", filepath.Join(n, "Dockerfile"))
		}
	}
	return out, nil
}

// maxProjectFile bounds what check reads of one file: one byte past the
// bound, so that check.Check refuses a longer file by name (a file cut
// at the bound would be judged as if it ended there).
const maxProjectFile = input.MaxFileSize + 1

func readProjectFile(in io.Reader, name string, stdinUsed *bool) ([]byte, error) {
	if name == "-" {
		if *stdinUsed {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: "standard input (-) can be read only once"}).WithHint("cudb check - < Dockerfile")
		}
		*stdinUsed = true
		return io.ReadAll(io.LimitReader(in, maxProjectFile))
	}
	b, err := readFollowed(name)
	if err != nil {
		return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("cannot read %s: %v", name, err)}).WithHint("cudb check Dockerfile")
	}
	return b, nil
}

// readFollowed reads a file check follows (a compose build's Dockerfile,
// a -r include); it only reads, never writes.
func readFollowed(name string) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, maxProjectFile))
}

func writeCheck(f *Factory, format string, rep *check.Report) error {
	switch format {
	case "json":
		return WriteJSON(f.IO.Out, rep)
	case "sarif":
		return WriteJSON(f.IO.Out, check.ToSARIF(rep, Version))
	case "github":
		_, err := io.WriteString(f.IO.Out, check.GitHub(rep))
		return err
	}
	var b strings.Builder
	b.WriteString(rep.Read.Line() + "\n")
	for _, fs := range rep.Files {
		for _, u := range fs.Units {
			what := fs.File + " (" + string(fs.Kind)
			if u.Name != "" {
				what += ", " + u.Name
			}
			if u.Scenario != "" {
				what += ", " + u.Scenario
			}
			what += ")"
			if u.Image != "" {
				what += " image " + u.Image
			}
			if u.Python != "" {
				what += ", Python " + u.Python
			}
			if len(u.Judged) > 0 {
				what += ": " + strings.Join(u.Judged, "; ")
			}
			fmt.Fprintf(&b, "read %s\n", what)
		}
	}
	for _, fd := range rep.Findings {
		fmt.Fprintf(&b, "%s:%d: %s: %s: %s\n", fd.File, fd.Line, fd.Severity, fd.Category, fd.Message)
		if fd.Fix != "" {
			fmt.Fprintf(&b, "    fix: %s\n", strings.ReplaceAll(fd.Fix, "\n", "\n         "))
		}
	}
	s := rep.Summary
	state := "healthy"
	if !s.Healthy {
		state = "not healthy"
	}
	fmt.Fprintf(&b, "%s: %d error(s), %d warning(s), %d info(s)\n", state, s.Errors, s.Warnings, s.Infos)
	_, err := io.WriteString(f.IO.Out, b.String())
	return err
}
