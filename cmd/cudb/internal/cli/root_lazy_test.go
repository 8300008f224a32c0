package cli

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
	"github.com/spf13/cobra"
)

// TestCommandTableNames holds each entry of the command table to the name
// of the command its constructor builds: NewRootCmdFor finds a command by
// that name before building it.
func TestCommandTableNames(t *testing.T) {
	s, _, _ := TestStreams("")
	for _, c := range commands {
		if got := c.New(NewFactory(s)).Name(); got != c.Name {
			t.Errorf("the table names %q, its constructor builds %q", c.Name, got)
		}
	}
}

// TestRootForOneCommandAnswersAsTheWholeTree runs command lines through
// the tree NewRootCmdFor builds (one command) and through the whole tree,
// and wants the same output, errors and exit status from both: help, a
// query, a usage error and an unknown subcommand.
func TestRootForOneCommandAnswersAsTheWholeTree(t *testing.T) {
	path := querytest.Path(t)
	run := func(build func(*Factory, []string) *cobra.Command, args []string) (string, string, string) {
		s, out, errOut := TestStreams("")
		f := NewFactory(s)
		root := build(f, args)
		root.SetArgs(args)
		err := f.Finish(root.Execute())
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		return out.String(), errOut.String(), msg
	}
	lazy := NewRootCmdFor
	whole := func(f *Factory, _ []string) *cobra.Command { return NewRootCmd(f) }
	var lines [][]string
	for _, c := range commands {
		lines = append(lines, []string{c.Name, "--help"})
	}
	lines = append(lines,
		[]string{"resolve", "torch==2.1", "--db", path},
		[]string{"resolve", "torch==2.1", "--json", "--db", path},
		[]string{"resolve", "--no-such-flag"},
		[]string{"db", "no-such-subcommand"},
		[]string{"matrix", "cuda", "--db", path},
		[]string{"pin", "torch==2.1", "--db", path},
	)
	for _, args := range lines {
		o1, e1, err1 := run(lazy, args)
		o2, e2, err2 := run(whole, args)
		if o1 != o2 || e1 != e2 || err1 != err2 {
			t.Errorf("%s: one-command tree and whole tree differ:\n--- one\n%s%s%s\n--- whole\n%s%s%s",
				strings.Join(args, " "), o1, e1, err1, o2, e2, err2)
		}
		if o1 == "" && err1 == "" {
			t.Errorf("%s: no output at all", strings.Join(args, " "))
		}
	}
	// A line that names no command, or asks for the list, gets every
	// command.
	for _, args := range [][]string{{"help"}, {"--json", "resolve"}, {"completion", "bash"}, {"mcp", "--help"}, {"reslove"}, {}} {
		s, _, _ := TestStreams("")
		if n := len(NewRootCmdFor(NewFactory(s), args).Commands()); n < len(commands) {
			t.Errorf("%q: %d commands built, want the whole tree", args, n)
		}
	}
	s, _, _ := TestStreams("")
	if n := len(NewRootCmdFor(NewFactory(s), []string{"resolve", "torch"}).Commands()); n != 1 {
		t.Errorf("resolve: %d commands built, want 1", n)
	}
}
