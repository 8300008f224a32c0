package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/verify"
)

// ExplainResult is `cudb explain --json`.
type ExplainResult = verify.ExplainResult

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
			x, err := verify.ExplainAll(c.Context(), d, text)
			if err != nil {
				return err
			}
			fs := x.Findings
			return f.Out(ExplainResult{Findings: fs, Lines: x.Lines, Skipped: x.Skipped}, func() error {
				var b strings.Builder
				for i, fd := range fs {
					if i > 0 {
						b.WriteString("\n")
					}
					fmt.Fprintf(&b, "%s [%s] %s\n", fd.Severity, fd.Category, fd.Message)
					for _, e := range fd.Evidence {
						fmt.Fprintf(&b, "    seen: %s\n", e)
					}
					if fd.Fix != "" {
						fmt.Fprintf(&b, "    fix:  %s\n", fd.Fix)
					}
				}
				if x.Skipped > 0 {
					fmt.Fprintf(&b, "\n%d more error lines not explained (at most %d per input)\n", x.Skipped, verify.MaxExplainedLines)
				}
				_, err := io.WriteString(f.IO.Out, b.String())
				return err
			})
		},
	}
	return c
}
