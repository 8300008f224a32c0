package cli

import (
	"context"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query"
	"github.com/spf13/cobra"
)

// nvidiaMatrixCmds are the `cudb matrix` subcommands over NVIDIA facts.
func nvidiaMatrixCmds(f *Factory) []*cobra.Command {
	mk := func(use, short string, run func(ctx context.Context, d *db.DB) (any, *Table, error)) *cobra.Command {
		return &cobra.Command{
			Use: use, Short: short, Args: noArgs,
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
				return f.Out(v, func() error { return t.Render(f.IO) })
			},
		}
	}
	return []*cobra.Command{
		mk("cuda", "CUDA toolkits and their minimum drivers", func(ctx context.Context, d *db.DB) (any, *Table, error) {
			rows, err := query.MatrixCUDA(ctx, d)
			return rows, cudaTable(rows), err
		}),
		mk("cudnn", "cuDNN support matrix", func(ctx context.Context, d *db.DB) (any, *Table, error) {
			rows, err := query.MatrixCUDNN(ctx, d)
			return rows, cudnnTable(rows), err
		}),
		mk("gpu", "GPU models and compute capabilities", func(ctx context.Context, d *db.DB) (any, *Table, error) {
			rows, err := query.MatrixGPU(ctx, d)
			t := &Table{Header: []string{"name", "compute capability", "architecture", "aliases"}}
			for _, r := range rows {
				t.Add(r.Name, r.ComputeCapability, r.Architecture, strings.Join(r.Aliases, ", "))
			}
			return rows, t, err
		}),
		mk("arch", "What each CUDA toolkit compiles for", func(ctx context.Context, d *db.DB) (any, *Table, error) {
			rows, err := query.MatrixArch(ctx, d)
			t := &Table{Header: []string{"cuda", "sm min", "sm max", "dropped"}}
			for _, r := range rows {
				t.Add(r.CUDA, r.SMMin, r.SMMax, r.Dropped)
			}
			return rows, t, err
		}),
		mk("driver", "Driver branches and the newest CUDA each runs", func(ctx context.Context, d *db.DB) (any, *Table, error) {
			rows, err := query.MatrixDriver(ctx, d)
			t := &Table{Header: []string{"branch", "max cuda", "type", "end of life"}}
			for _, r := range rows {
				t.Add("R"+r.Branch, r.MaxCUDA, r.BranchType, r.EndOfLife)
			}
			return rows, t, err
		}),
	}
}

// cudaTable is `cudb matrix cuda`'s table, also what `resolve cuda==…` prints.
func cudaTable(rows []query.CUDARow) *Table {
	t := &Table{Header: []string{"cuda", "label", "linux min", "windows min", "minor-compat linux", "minor-compat windows", "released"}}
	for _, r := range rows {
		t.Add(r.CUDA, r.Label, r.LinuxMinDriver, r.WindowsMinDriver, r.MinorCompatLinuxMinDriver, r.MinorCompatWindowsMinDriver, r.Released)
	}
	return t
}

// cudnnTable is `cudb matrix cudnn`'s table, also what `resolve cudnn==…` prints.
func cudnnTable(rows []query.CUDNNRow) *Table {
	t := &Table{Header: []string{"cudnn", "cuda major", "cuda versions", "linux min", "windows min", "compute capabilities"}}
	for _, r := range rows {
		cudas, ccs := strings.Join(r.CUDAVersions, " "), strings.Join(r.ComputeCapabilities, " ")
		if cudas == "" && r.CUDAMin != "" {
			cudas = r.CUDAMin + "–" + r.CUDAMax
		}
		if ccs == "" && r.ComputeCapabilityMin != "" {
			ccs = ">= " + r.ComputeCapabilityMin
		}
		t.Add(r.CUDNN, r.CUDAMajor, cudas, r.LinuxMinDriver, r.WindowsMinDriver, ccs)
	}
	return t
}
