package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
	"github.com/spf13/cobra"
)

// nvidiaMatrixCmds are the `cudb matrix` subcommands over NVIDIA facts.
func nvidiaMatrixCmds(f *Factory) []*cobra.Command {
	mk := func(use, short string, run func(ctx context.Context, d *usecase.DB) (any, *Table, error)) *cobra.Command {
		return &cobra.Command{
			Use: use, Short: short, Args: NoArgs,
			Example: "  cudb matrix " + use + "\n  cudb matrix " + use + " --json",
			RunE: func(c *cobra.Command, _ []string) error {
				d, err := f.DB(c.Context())
				if err != nil {
					return err
				}
				v, t, err := run(c.Context(), d)
				if err != nil {
					return err
				}
				return f.Out(v, func() error { return t.Render(f.IO.Term()) })
			},
		}
	}
	return []*cobra.Command{
		mk("cuda", "CUDA toolkits and their minimum drivers", func(ctx context.Context, d *usecase.DB) (any, *Table, error) {
			rows, err := matrixRows[usecase.CUDARow](ctx, d, usecase.MatrixOptions{Table: "cuda"})
			return rows, present.CUDATable(rows), err
		}),
		mk("cudnn", "cuDNN support matrix", func(ctx context.Context, d *usecase.DB) (any, *Table, error) {
			rows, err := matrixRows[usecase.CUDNNRow](ctx, d, usecase.MatrixOptions{Table: "cudnn"})
			if err != nil || !f.IO.TTY {
				return rows, present.CUDNNTable(f.IO.Term(), rows), err
			}
			// On a terminal, name the releases known without a support
			// row too (JSON and TSV keep one row shape).
			known, err := usecase.CUDNNReleases(ctx, d)
			if err == nil && len(known) > 0 {
				var vs []string
				for _, k := range known {
					vs = append(vs, k.CUDNN)
				}
				fmt.Fprintf(f.IO.ErrOut, "note: %d cuDNN releases are known without a support-matrix row (%s); cudb resolve cudnn==%s says what is known of one\n",
					len(known), strings.Join(vs, ", "), known[0].CUDNN)
			}
			return rows, present.CUDNNTable(f.IO.Term(), rows), err
		}),
		newMatrixGPUCmd(f),
		mk("arch", "What each CUDA toolkit compiles for", func(ctx context.Context, d *usecase.DB) (any, *Table, error) {
			rows, err := matrixRows[usecase.ArchRow](ctx, d, usecase.MatrixOptions{Table: "arch"})
			t := &Table{Header: []string{"cuda", "sm min", "sm max", "dropped"}}
			for _, r := range rows {
				t.Add(r.CUDA, r.SMMin, r.SMMax, r.Dropped)
			}
			return rows, t, err
		}),
		mk("driver", "Driver branches and the newest CUDA each runs", func(ctx context.Context, d *usecase.DB) (any, *Table, error) {
			rows, err := matrixRows[usecase.DriverRow](ctx, d, usecase.MatrixOptions{Table: "driver"})
			t := &Table{Header: []string{"branch", "max cuda", "type", "end of life", "released", "status"}}
			for _, r := range rows {
				t.Add("R"+r.Branch, r.MaxCUDA, r.BranchType, r.EndOfLife, r.Released, r.Status)
			}
			return rows, t, err
		}),
	}
}

func newMatrixGPUCmd(f *Factory) *cobra.Command {
	var flt usecase.GPUFilter
	c := &cobra.Command{
		Use:   "gpu",
		Short: "GPU models and compute capabilities (--cuda: what a toolkit supports and drops)",
		Long: `Lists GPU models with their compute capability and architecture.

--cuda X judges every GPU against CUDA X (a major alone means its first release, X.0):
"supported" when the toolkit compiles for the GPU's own sm_ target, "dropped" when the
toolkit before it did and this one does not, "unsupported" when neither did, "unknown"
where the data does not say (a release without architecture facts, a target whose first
toolkit is not recorded). A toolkit compiles for the targets introduced up to it minus
those dropped (cudb matrix arch); the "why" column says which fact decided.
--arch keeps one architecture (an unknown name is refused, listing the known ones) and
--name the models whose name contains the text.`,
		Example: `  cudb matrix gpu
  cudb matrix gpu --cuda 13            # what does CUDA 13 drop?
  cudb matrix gpu --cuda 13 --json | jq '.[] | select(.cuda_support=="dropped") | .name'
  cudb matrix gpu --arch Ampere
  cudb matrix gpu --name 4090`,
		Args: NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			rows, err := matrixRows[usecase.GPURow](c.Context(), d, usecase.MatrixOptions{Table: "gpu", GPU: flt})
			if err != nil {
				return err
			}
			header := []string{"name", "compute capability", "architecture", "aliases"}
			if flt.CUDA != "" && len(rows) > 0 {
				header = append(header, "cuda "+rows[0].CUDA, "why")
			}
			t := &Table{Header: header, Status: map[int]func(string) Tone{4: present.CUDASupportTone}}
			for _, r := range rows {
				cells := []string{r.Name, r.ComputeCapability, r.Architecture, strings.Join(r.Aliases, ", ")}
				if flt.CUDA != "" {
					cells = append(cells, r.CUDASupport, r.CUDADetail)
				}
				t.Add(cells...)
			}
			return f.Out(rows, func() error { return t.Render(f.IO.Term()) })
		},
	}
	c.Flags().StringVar(&flt.CUDA, "cuda", "", "judge each GPU against this CUDA toolkit (13 or 12.8): supported, dropped, unsupported or unknown")
	c.Flags().StringVar(&flt.Arch, "arch", "", "only this architecture (Ampere, Hopper, ...)")
	c.Flags().StringVar(&flt.Name, "name", "", "only models whose name or alias contains this text")
	return c
}
