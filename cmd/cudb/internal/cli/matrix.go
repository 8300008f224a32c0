package cli

import (
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
	"github.com/spf13/cobra"
)

// matrixTables are constructors of `cudb matrix` subcommands beyond
// torch, in the order help lists them.
var matrixTables = []func(*Factory) []*cobra.Command{nvidiaMatrixCmds, frameworkMatrixCmds}

func newMatrixCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "matrix TABLE",
		Short: "Print a compatibility table",
		Example: `  cudb matrix torch
  cudb matrix torch --json
  cudb matrix torch --channel conda`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				var names []string
				for _, sc := range c.Commands() {
					names = append(names, sc.Name())
				}
				return UsageError(c, fmt.Sprintf("unknown table %s (tables: %s)", errs.Quote(args[0]), strings.Join(names, ", ")))
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			return UsageError(c, "name a table")
		},
	}
	c.AddCommand(newMatrixTorchCmd(f))
	for _, add := range matrixTables {
		c.AddCommand(add(f)...)
	}
	return c
}

func newMatrixTorchCmd(f *Factory) *cobra.Command {
	var channel string
	c := &cobra.Command{
		Use:     frameworks.Torch,
		Short:   "Every torch release × variant × channel: CUDA, cuDNN, NCCL, Python, torchvision, torchaudio, GPU archs",
		Example: "  cudb matrix torch\n  cudb matrix torch --json | jq '.[] | select(.variant==\"cu121\")'\n  cudb matrix torch --channel conda",
		Args:    NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if channel != "" && channel != "pip" && channel != "conda" {
				return UsageError(c, fmt.Sprintf("invalid --channel %s: expected pip or conda", errs.Quote(channel)))
			}
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			rows, err := matrixRows[usecase.TorchRow](c.Context(), d, usecase.MatrixOptions{Table: frameworks.Torch, Channel: channel})
			if err != nil {
				return err
			}
			return f.Out(rows, func() error {
				t := &Table{Header: []string{frameworks.Torch, "variant", "default", "channel", "cuda", "cudnn", "nccl", "python", frameworks.TorchVision, frameworks.TorchAudio, "platforms", "archs"}}
				for _, r := range rows {
					v := r.Variant
					if r.Status != "" {
						v = "(" + r.Status + ")"
					}
					t.Add(r.Torch, v, present.YesNo(r.Default), r.Channel, r.CUDA, r.CUDNN, r.NCCL, present.RangeText(f.IO.Term(), r.PythonMin, r.PythonMax), r.Torchvision, r.Torchaudio, strings.Join(r.Platforms, ","), strings.Join(r.ComputeCapabilities, " "))
				}
				return t.Render(f.IO.Term())
			})
		},
	}
	c.Flags().StringVar(&channel, "channel", "", "only pip wheels or only conda packages (default: both)")
	return c
}
