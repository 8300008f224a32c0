package cli

import (
	"fmt"

	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ResolveOptions are `cudb resolve`'s flags.
type ResolveOptions struct {
	usecase.ResolveRequest
	Limit int
	// All prints every row of a multi-framework table (default: the
	// first present.MultiFrameworkRows); --json always holds every stack.
	All bool
}

func newResolveCmd(f *Factory) *cobra.Command {
	opts := &ResolveOptions{}
	c := &cobra.Command{
		Use:   "resolve REQUIREMENT...",
		Short: "Find the stacks (framework build, CUDA, cuDNN, driver) that satisfy requirements",
		Long: `Resolve pip-style requirements (PEP 440: ==2.1 means 2.1.0, ==2.1.* any 2.1.x, ~=, >=, <,
!=, local labels like 2.1.0+cu121) against the database and print the matching stacks,
best first: newest release, the variant plain pip installs, newest CUDA.

Native components are constraints: cuda==12.1 (any 12.1.x), cudnn==8.9.*, nccl, python==3.11.
Several frameworks at once must share one environment, or resolve exits 3 naming the conflict.`,
		Example: `  cudb resolve torch==2.1
  cudb resolve torch==2.1 --cuda 12.1 --json
  cudb resolve 'torch>=2,<2.3' --python 3.11 --platform windows
  cudb resolve torch==2.3 tensorflow==2.16.1
  cudb resolve torch --driver 470.82.01
  cudb resolve torch --gpu "Tesla K80"
  cudb resolve cuda==12.4
  cudb resolve torch==2.1 --explain`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Requirements = args
			return runResolve(c, f, opts)
		},
	}
	fl := c.Flags()
	addStackFlags(fl, &opts.ResolveRequest, "pip (default) or conda")
	fl.BoolVar(&opts.Explain, "explain", false, "cite the source row behind every fact")
	fl.IntVar(&opts.Limit, "limit", 0, "print at most this many stacks (0 = all)")
	fl.BoolVar(&opts.All, "all", false, fmt.Sprintf("print every stack of several frameworks (default: the best %d; --json holds all)", present.MultiFrameworkRows))
	return c
}

// addStackFlags declares the flags that narrow a stack, shared by resolve
// and pin (which resolve the same way).
func addStackFlags(fl *pflag.FlagSet, r *usecase.ResolveRequest, channelHelp string) {
	fl.StringVar(&r.CUDA, "cuda", "", "CUDA version or specifier (12.1 = any 12.1.x)")
	fl.StringVar(&r.Python, "python", "", "Python version the stack must support (3.11)")
	fl.StringVar(&r.Platform, "platform", "", "linux, windows, macos or linux-aarch64")
	fl.StringVar(&r.Variant, "variant", "", "build variant (cu121, cpu, rocm6.0); default: CUDA builds")
	fl.StringVar(&r.Channel, "channel", "", channelHelp)
	fl.StringVar(&r.Driver, "driver", "", "NVIDIA driver version the stack must run on (535.104.05)")
	fl.StringVar(&r.GPU, "gpu", "", "GPU the stack must carry kernels for (\"Tesla T4\", \"RTX 4090\")")
	fl.StringVar(&r.SM, "sm", "", "compute capability the stack must carry kernels for (7.5)")
	fl.BoolVar(&r.Pre, "pre", false, "include pre-releases")
}

func runResolve(c *cobra.Command, f *Factory, opts *ResolveOptions) error {
	if opts.Limit < 0 {
		return UsageError(c, "--limit must be 0 or more")
	}
	ctx := c.Context()
	d, err := f.DB(ctx)
	if err != nil {
		return err
	}
	res, err := usecase.Resolve(ctx, d, usecase.ResolveOptions{ResolveRequest: opts.ResolveRequest, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if err := f.Out(res, func() error { return present.ResolutionText(f.IO.Term(), res, opts.All, opts.Explain) }); err != nil {
		return err
	}
	return usecase.ResolveOutcome(res)
}
