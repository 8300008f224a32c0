// Package app wires the cudb command tree and turns errors into exit
// codes, printing each error once.
package app

import (
	"errors"
	"fmt"
	"strings"

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
}

// Main runs cudb with args (without the program name) and returns the
// exit status.
func Main(args []string, s *cli.Streams) int {
	root := cli.NewRootCmd(cli.NewFactory(s))
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var qe *errs.Error
	if errors.As(err, &qe) && qe.Reported {
		return exitCodes[qe.Code]
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = (&errs.Error{Code: errs.CodeUsage, Message: err.Error()}).WithHint("cudb --help")
	}
	code := exitCodes[errs.CodeOf(err)]
	fmt.Fprintf(s.ErrOut, "error: %s\n", err.Error())
	if errors.As(err, &qe) && qe.Hint != "" {
		fmt.Fprintf(s.ErrOut, "Try: %s\n", qe.Hint)
	}
	return code
}
