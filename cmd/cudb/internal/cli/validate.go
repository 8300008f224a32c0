package cli

import (
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
		return usageError(c, msg)
	}
	return nil
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
				bad = usageError(c, fmt.Sprintf("--%s needs a value (it was given an empty one)", fl.Name))
			}
		case "stringArray", "stringSlice":
			sv, ok := fl.Value.(pflag.SliceValue)
			if !ok {
				return
			}
			for _, v := range sv.GetSlice() {
				if strings.TrimSpace(v) == "" {
					bad = usageError(c, fmt.Sprintf("--%s needs a value (it was given an empty one)", fl.Name))
					return
				}
			}
		case "duration":
			d, err := time.ParseDuration(fl.Value.String())
			if err == nil && d <= 0 {
				bad = usageError(c, fmt.Sprintf("--%s must be a positive duration such as 5s, not %s", fl.Name, fl.Value.String()))
			}
		}
	})
	return bad
}
