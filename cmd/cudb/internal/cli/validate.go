package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudb/cudb/internal/errs"
)

// groupCommands makes every command that only groups others (cudb, gen,
// db, ...) runnable with cobra's argument check: a word that names no
// subcommand is then a usage error found by cobra's own lookup ("unknown
// command"), and a bare group prints its help. A group left
// non-runnable would print its help and exit 0 for `cudb gen page`.
func groupCommands(c *cobra.Command) {
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = unknownSubcommand
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	for _, sub := range c.Commands() {
		groupCommands(sub)
	}
}

// unknownSubcommand is a group's positional-argument check.
func unknownSubcommand(c *cobra.Command, args []string) error {
	if err := cobra.NoArgs(c, args); err != nil {
		msg := fmt.Sprintf("unknown command %s for %q", errs.Quote(args[0]), c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
		}
		return UsageError(c, msg)
	}
	return nil
}

// CommandBudget bounds the work of a command that answers from the
// database (resolve, pin, matrix, explain, verify --from, db, gen site):
// their inputs are bounded, so reaching it means a bug or a hostile input,
// and the command stops with an error rather than running on.
const CommandBudget = 2 * time.Minute

// ErrBudget is the error of a command that ran past its budget.
var ErrBudget = errors.New("the command ran past its work budget")

// unbudgeted are the commands whose work is bounded otherwise: by the
// network and the sources (refresh, db build), by a signal (serve), or
// by per-command timeouts (probe, and verify when it probes the host).
func unbudgeted(c *cobra.Command) bool {
	switch c.Name() {
	case "refresh", "serve", "probe", "build":
		return true
	case "verify":
		return !c.Flags().Changed("from")
	}
	return false
}

// preRun runs before every command: flag values are checked, and the
// command's context gets its work budget.
func (f *Factory) preRun(c *cobra.Command, args []string) error {
	if err := checkFlagValues(c, args); err != nil {
		return err
	}
	if err := f.resolveDBPath(); err != nil {
		return err
	}
	if !unbudgeted(c) {
		budget := f.Budget
		if budget == 0 {
			budget = CommandBudget
		}
		ctx, cancel := context.WithTimeoutCause(c.Context(), budget, fmt.Errorf("%w of %s", ErrBudget, budget))
		f.cancelBudget = cancel
		f.budgetSpent = func() error {
			if ctx.Err() == nil {
				return nil
			}
			return context.Cause(ctx)
		}
		c.SetContext(ctx)
	}
	return nil
}

// Finish ends the command's budget and names it in err when the command
// stopped because the budget ran out.
func (f *Factory) Finish(err error) error {
	if f.cancelBudget == nil {
		return err
	}
	defer f.cancelBudget()
	if spent := f.budgetSpent(); err != nil && errors.Is(err, context.DeadlineExceeded) && spent != nil {
		return errs.Errorf(errs.CodeInternal, "%v", spent).
			WithHint("report it: inputs are bounded, so this is a bug or a hostile input")
	}
	return err
}

// checkFlagValues runs before every command: a flag given an empty value
// (--gpu "") is a usage error, like a blank one, rather than the flag
// silently not applying; a duration must be positive.
func checkFlagValues(c *cobra.Command, _ []string) error {
	var bad error
	c.Flags().Visit(func(fl *pflag.Flag) {
		if bad != nil {
			return
		}
		switch fl.Value.Type() {
		case "string":
			if strings.TrimSpace(fl.Value.String()) == "" {
				bad = UsageError(c, fmt.Sprintf("--%s needs a value (it was given an empty one)", fl.Name))
			}
		case "stringArray", "stringSlice":
			sv, ok := fl.Value.(pflag.SliceValue)
			if !ok {
				return
			}
			for _, v := range sv.GetSlice() {
				if strings.TrimSpace(v) == "" {
					bad = UsageError(c, fmt.Sprintf("--%s needs a value (it was given an empty one)", fl.Name))
					return
				}
			}
		case "duration":
			d, err := time.ParseDuration(fl.Value.String())
			if err == nil && d <= 0 {
				bad = UsageError(c, fmt.Sprintf("--%s must be a positive duration such as 5s, not %s", fl.Name, fl.Value.String()))
			}
		}
	})
	return bad
}
