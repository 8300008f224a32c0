package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/safewrite"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
)

// PinOptions are `cudb pin`'s flags.
type PinOptions struct {
	usecase.ResolveRequest
	Format       string
	Devel        bool
	AllowUnknown bool
	Output       string
	// Force writes -o's target in place when replacing it would split its
	// hard links or lose its owner.
	Force bool
	// Name and ProjectVersion name the uv project / conda environment.
	Name, ProjectVersion string
}

func newPinCmd(f *Factory) *cobra.Command {
	opts := &PinOptions{}
	c := &cobra.Command{
		Use:   "pin REQUIREMENT...",
		Short: "Write pins that install the best stack: requirements, constraints, pip, uv, conda, apt, docker",
		Long: `Resolve requirements exactly as ` + "`cudb resolve`" + ` does, take the best stack and write it
in a format an installer reads:

  requirements  requirements.txt: index lines, exact == pins, the nvidia-* wheels the framework pins
  constraints   the same pins without index lines, for pip install -c
  pip           one pip install command line
  uv            a pyproject.toml fragment: an explicit [[tool.uv.index]] per variant and [tool.uv.sources]
  conda         environment.yml, for releases published to the pytorch conda channel
  apt           NVIDIA apt repository packages for stacks that load CUDA/cuDNN from the system
  docker        a Dockerfile: the nvidia/cuda base image for the stack, then pip

Every file starts with a comment naming cudb's version, the data build, the stack's CUDA,
cuDNN and driver floor, and the sources. Frameworks that cannot share an environment exit 3
naming the conflicts; a request nothing matches exits 4, and so does a stack cudb cannot vouch
for (a fact it needs, such as the wheel's cuDNN, is not in the data): --allow-unknown writes it
anyway with the gap named in the header.`,
		Example: `  cudb pin torch==2.1 --cuda 12.1 > requirements.txt
  cudb pin torch==2.1 --cuda 11.8 --format uv
  cudb pin torch==1.13.1 --format conda -o environment.yml
  cudb pin tensorflow==2.11 --format apt
  cudb pin torch==2.1 --format docker --devel -o Dockerfile
  cudb pin torch==2.1 tensorflow==2.14 --format requirements --json`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Requirements = args
			return runPin(c, f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Format, "format", "requirements", "output format: "+strings.Join(usecase.PinFormats, ", "))
	fl.BoolVar(&opts.Devel, "devel", false, "development flavour: devel image, -dev and toolkit packages")
	fl.StringVarP(&opts.Output, "output", "o", "", "write to this file instead of standard output (a regular file is replaced whole; a device or FIFO such as /dev/stdout is written through)")
	fl.BoolVar(&opts.Force, "force", false, "with -o: write a target that has other hard links, or an owner the new file could not keep, in place instead of refusing it")
	fl.BoolVar(&opts.AllowUnknown, "allow-unknown", false, "write a stack cudb cannot vouch for (a fact it needs is not in the data), the gap named in the header")
	fl.StringVar(&opts.Name, "name", "", "uv: the project's name; conda: the environment's name (default: framework-version-variant)")
	fl.StringVar(&opts.ProjectVersion, "project-version", "", "uv: the project's version (default 0.1.0)")
	addStackFlags(fl, &opts.ResolveRequest, "pip (default) or conda (implied by --format conda)")
	return c
}

func runPin(c *cobra.Command, f *Factory, opts *PinOptions) error {
	if !containsString(usecase.PinFormats, opts.Format) {
		return (&errs.Error{Code: errs.CodeUsage,
			Message: fmt.Sprintf("unknown format %s: expected one of %s", errs.Quote(opts.Format), strings.Join(usecase.PinFormats, ", "))}).
			WithHint("cudb pin torch==2.1 --format requirements")
	}
	ctx := c.Context()
	d, err := f.DB(ctx)
	if err != nil {
		return err
	}
	res, err := usecase.Pin(ctx, d, usecase.PinOptions{ResolveRequest: opts.ResolveRequest, Format: opts.Format, CudbVersion: Version, Devel: opts.Devel,
		AllowUnknown: opts.AllowUnknown, ProjectName: opts.Name, ProjectVersion: opts.ProjectVersion})
	if err != nil {
		if res != nil && f.JSON {
			// The conflicts are the answer: print them, then exit 3.
			if werr := present.JSON(f.IO.Out, res); werr != nil {
				return werr
			}
		}
		return err
	}
	if opts.Output != "" {
		if err := safewrite.FileWith(opts.Output, []byte(res.Content), safewrite.FileOptions{Force: opts.Force}); err != nil {
			var le *safewrite.LinkedError
			if errors.As(err, &le) {
				return errs.Usage("cannot write %s: %v", opts.Output, err).WithHint("cudb pin %s -o %s --force", strings.Join(opts.Requirements, " "), opts.Output)
			}
			return fmt.Errorf("failed to write %s: %w", opts.Output, err)
		}
		if !f.JSON {
			fmt.Fprintf(f.IO.ErrOut, "wrote %s (%s)\n", opts.Output, res.Format)
		}
	}
	if f.JSON {
		return present.JSON(f.IO.Out, res)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(f.IO.ErrOut, "note: %s\n", n)
	}
	if opts.Output != "" {
		return nil
	}
	_, err = fmt.Fprint(f.IO.Out, res.Content)
	return err
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
