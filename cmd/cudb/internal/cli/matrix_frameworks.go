package cli

import (
	"context"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/usecase"
	"github.com/spf13/cobra"
)

// frameworkMatrixCmds returns `matrix tensorflow|jax|onnxruntime`; the
// matrix command adds them as subcommands.
func frameworkMatrixCmds(f *Factory) []*cobra.Command {
	return []*cobra.Command{
		matrixCmd(f, frameworks.TensorFlow, "TensorFlow GPU builds: tested Python, compiler, build tool, CUDA and cuDNN",
			[]string{frameworks.TensorFlow, "package", "platform", "python", "compiler", "build tools", "cuda", "cudnn"},
			func(ctx context.Context, c *usecase.DB) (any, [][]string, error) {
				rows, err := matrixRows[usecase.TensorFlowRow](ctx, c, usecase.MatrixOptions{Table: frameworks.TensorFlow})
				var cells [][]string
				for _, r := range rows {
					cells = append(cells, []string{r.TensorFlow, orStatus(r.Package, r.Status), r.Platform, pyRange(r.PythonMin, r.PythonMax), r.Compiler, r.BuildTools, r.CUDA, r.CUDNN})
				}
				return rows, cells, err
			}),
		matrixCmd(f, frameworks.JAX, "JAX CUDA variants: paired jaxlib, CUDA, cuDNN, pip extra and driver floor",
			[]string{frameworks.JAX, frameworks.JAXLib, "cuda", "cudnn", "extra", "driver min"},
			func(ctx context.Context, c *usecase.DB) (any, [][]string, error) {
				rows, err := matrixRows[usecase.JAXRow](ctx, c, usecase.MatrixOptions{Table: frameworks.JAX})
				var cells [][]string
				for _, r := range rows {
					cells = append(cells, []string{r.JAX, orStatus(r.JAXLib, r.Status), r.CUDA, r.CUDNN, r.Extra, r.DriverMin})
				}
				return rows, cells, err
			}),
		matrixCmd(f, frameworks.Must(frameworks.ONNXRuntime).Matrix, "onnxruntime-gpu builds: CUDA, cuDNN and notes",
			[]string{frameworks.Must(frameworks.ONNXRuntime).Matrix, "platform", "cuda", "cudnn", "notes"},
			func(ctx context.Context, c *usecase.DB) (any, [][]string, error) {
				rows, err := matrixRows[usecase.ONNXRuntimeRow](ctx, c, usecase.MatrixOptions{Table: frameworks.Must(frameworks.ONNXRuntime).Matrix})
				var cells [][]string
				for _, r := range rows {
					plat := r.Platform
					if plat == "" && r.Status == "" {
						plat = "all"
					}
					plat = orStatus(plat, r.Status)
					cells = append(cells, []string{r.ONNXRuntime, plat, r.CUDA, r.CUDNN, r.Notes})
				}
				return rows, cells, err
			}),
	}
}

// orStatus is cell, or "(facts pending)" on a pending release's row.
func orStatus(cell, status string) string {
	if status != "" {
		return "(" + status + ")"
	}
	return cell
}

func pyRange(lo, hi string) string {
	if lo == hi {
		return lo
	}
	return lo + "-" + hi
}

func matrixCmd(f *Factory, name, short string, header []string, load func(context.Context, *usecase.DB) (any, [][]string, error)) *cobra.Command {
	var aliases []string
	if fw, ok := frameworks.Get(name); ok && fw.Name != name {
		aliases = []string{fw.Name} // matrix onnxruntime-gpu, the package's name
	}
	return &cobra.Command{
		Use:     name,
		Aliases: aliases,
		Short:   short,
		Example: "  cudb matrix " + name + "\n  cudb matrix " + name + " --json",
		Args:    NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			rows, cells, err := load(c.Context(), d)
			if err != nil {
				return err
			}
			return f.Out(rows, func() error {
				t := &Table{Header: header, Rows: cells}
				return t.Render(f.IO.Term())
			})
		},
	}
}
