package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
)

func newExplainCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "explain TEXT|-",
		Short: "Name the cause of a CUDA/cuDNN/driver error message and its fix",
		Long: `Explain matches an error message (or a pasted log; "-" reads standard input) to its
cause: a driver too old for the build's CUDA, a GPU the build has no kernels for,
a cuDNN version or library problem, a toolkit mismatch, a CPU-only wheel. Each
cause comes with a fix from the database (a driver floor, a pin, a build that runs).
Shortened and reflowed messages match too ("no kernel image is available",
CUDNN_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_*); a long log costs one pass, and at most
50 distinct error lines are explained (the rest are counted).

Exit status: 0 when a cause was found, 4 when no known cause matches.`,
		Example: `  cudb explain "The NVIDIA driver on your system is too old (found version 11040)"
  cudb explain "no kernel image is available"
  cudb explain CUDNN_STATUS_NOT_INITIALIZED
  python train.py 2>&1 | tail -50 | cudb explain -
  cudb explain --json "Torch not compiled with CUDA enabled"`,
		Args: exactArgs(1, "an error message (or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			text := args[0]
			if text == "-" {
				b, err := io.ReadAll(io.LimitReader(f.IO.In, report.MaxSize+1))
				if err != nil {
					return fmt.Errorf("failed to read standard input: %w", err)
				}
				if len(b) > report.MaxSize {
					return &errs.Error{Code: errs.CodeUsage, Message: "the text is larger than 4 MiB"}
				}
				text = string(b)
			}
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			x, err := usecase.Explain(c.Context(), d, usecase.ExplainOptions{Text: text})
			if err != nil {
				return err
			}
			return f.Out(x, func() error { return present.ExplainText(f.IO.Out, x) })
		},
	}
	return c
}
