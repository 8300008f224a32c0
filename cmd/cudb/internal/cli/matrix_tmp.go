package cli

// TEMPORARY: the lead's matrix.go owns `cudb matrix`; delete this file at
// merge and have matrix.go call c.AddCommand(frameworkMatrixCmds(f)...).

import "github.com/spf13/cobra"

func init() { register(newMatrixTmpCmd) }

func newMatrixTmpCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "matrix", Short: "Compatibility tables per framework"}
	c.AddCommand(frameworkMatrixCmds(f)...)
	return c
}
