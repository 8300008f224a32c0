package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/input"
	"github.com/cudb/cudb/internal/probe"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
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
var CheckFormats = usecase.CheckFormats

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
		return UsageError(c, "name at least one file to check (or - for standard input)")
	}
	if opts.Host && opts.HostFrom != "" {
		return (&errs.Error{Code: errs.CodeUsage, Message: "--host and --host-from both describe the target: give one"}).WithHint("cudb check Dockerfile --host")
	}
	co := usecase.CheckOptions{Target: usecase.CheckTarget{Driver: opts.Driver, GPU: opts.GPU, SM: opts.SM, Platform: opts.Platform, Python: opts.Python, From: "flags"},
		BuildArgs: opts.BuildArgs, Read: readFollowed}
	stdinUsed := false
	switch {
	case opts.Host:
		fs, err := probeHost(c, "", probe.Options{Timeout: probe.DefaultTimeout})
		if err != nil {
			return err
		}
		co.Host = fs
	case opts.HostFrom != "":
		b, err := readInput(f.IO.In, opts.HostFrom, &stdinUsed)
		if err != nil {
			return err
		}
		co.HostReport = &usecase.ReportText{Name: displayName(opts.HostFrom), Text: b}
	}
	files, err := expandDirs(opts.Files)
	if err != nil {
		return err
	}
	for _, name := range files {
		b, err := readProjectFile(f.IO.In, name, &stdinUsed)
		if err != nil {
			return err
		}
		co.Files = append(co.Files, usecase.CheckInput{Name: name, Data: b})
	}
	d, err := f.DB(c.Context())
	if err != nil {
		return err
	}
	rep, err := usecase.Check(c.Context(), d, co)
	if err != nil {
		return err
	}
	if err := writeCheck(f, opts.Format, rep); err != nil {
		return err
	}
	return usecase.CheckOutcome(rep)
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
			if usecase.KindOfName(e.Name()) && e.Type().IsRegular() {
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

func writeCheck(f *Factory, format string, rep *usecase.CheckReport) error {
	switch format {
	case "json":
		return present.JSON(f.IO.Out, rep)
	case "sarif":
		return present.SARIF(f.IO.Out, rep, Version)
	case "github":
		return present.GitHub(f.IO.Out, rep)
	}
	return present.CheckText(f.IO.Out, rep)
}
