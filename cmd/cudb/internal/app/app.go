// Package app wires the cudb command tree and turns errors into exit
// codes, printing each error once. It is the composition root: the CLI's
// own commands (package cli) plus the commands that start the other front
// doors, which only this package imports: serve (httpapi), mcp (mcptools)
// and gen site (site).
package app

import (
	"errors"
	"fmt"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/internal/errs"
)

// Exit codes; `cudb help exit-codes` documents them.
const (
	ExitOK           = 0
	ExitError        = 1
	ExitUsage        = 2
	ExitIncompatible = 3
	ExitNoMatch      = 4
)

// exitCodes is the one table from error code to exit status.
var exitCodes = map[errs.Code]int{
	errs.CodeInternal:     ExitError,
	errs.CodeUsage:        ExitUsage,
	errs.CodeIncompatible: ExitIncompatible,
	errs.CodeNotFound:     ExitNoMatch,
	errs.CodeLimit:        ExitUsage,
}

// Main runs cudb with args (without the program name) and returns the
// exit status.
func Main(args []string, s *cli.Streams) int {
	return Run(cli.NewFactory(s), args)
}

// Doors are the commands that start the other front doors; Run hands
// them to the CLI (cli.Factory.Extra).
var Doors = []cli.Command{{Name: "gen", New: newGenCmd}, {Name: "mcp", New: newMCPCmd}, {Name: "serve", New: newServeCmd}}

// NewFactory is cli.NewFactory with the door commands added.
func NewFactory(s *cli.Streams) *cli.Factory {
	f := cli.NewFactory(s)
	f.Extra = Doors
	return f
}

// Run runs cudb over the factory f (its streams, its sources), so tests
// drive the real command tree with their own dependencies.
func Run(f *cli.Factory, args []string) int {
	if f.Extra == nil {
		f.Extra = Doors
	}
	s := f.IO
	root := cli.NewRootCmdFor(f, args)
	root.SetArgs(args)
	err := f.Finish(root.Execute())
	if err == nil {
		return ExitOK
	}
	var qe *errs.Error
	if errors.As(err, &qe) && qe.Reported {
		return exitCodes[qe.Code]
	}
	code, ok := exitCodes[errs.CodeOf(err)]
	if !ok {
		code = ExitError
	}
	fmt.Fprintf(s.ErrOut, "error: %s\n", err.Error())
	if errors.As(err, &qe) && qe.Hint != "" {
		fmt.Fprintf(s.ErrOut, "Try: %s\n", qe.Hint)
	}
	return code
}
