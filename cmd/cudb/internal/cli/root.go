// Package cli holds cudb's commands: one file per command, each an
// Options struct, a newXCmd constructor and a runX function. Commands parse
// flags, call package query, and render; behaviour lives in query so the
// HTTP API shares it.
package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/store"
)

// Build stamps, set at link time by `make release` (-ldflags -X):
// cudb's version, the commit it was built from and the data_as_of of the
// embedded database. Unstamped builds say "dev" and read data_as_of from
// the database.
var (
	Version  = "dev"
	Commit   = ""
	DataAsOf = ""
)

// Factory carries what commands share: streams, global flags and the
// lazily opened database.
type Factory struct {
	IO     *Streams
	JSON   bool
	DBPath string
	// Quiet turns off notices on standard error (the data-age notice).
	Quiet bool
	// Sources is every source refresh and db build know, in precedence
	// order: store.Sources in the binary; tests inject their own.
	Sources func() []store.Source
	// Extra are commands the CLI lists beside its own: package app adds
	// those that start the other front doors (serve, mcp, gen site), so
	// the CLI never imports another door.
	Extra []Command
	// RefreshHook, when set, hears each step of a refresh that writes
	// (store.RefreshOptions.Hook); the kill test stops the process there.
	RefreshHook func(step string)
	// Budget replaces CommandBudget when set (tests).
	Budget time.Duration

	// budgetSpent says why the command's budget ended (nil while it
	// runs); cancelBudget ends it.
	budgetSpent  func() error
	cancelBudget context.CancelFunc

	opened  *usecase.DB
	noticed bool
	// journal says what `db check` found about a refresh commit pending
	// beside the --db file: what recovery did, or that one is in progress.
	journal store.Journal
}

// NewFactory returns a factory over s with the real sources.
func NewFactory(s *Streams) *Factory { return &Factory{IO: s, Sources: store.Sources} }

// DB opens the database once: the file given by --db, else the image
// embedded in the binary.
func (f *Factory) DB(ctx context.Context) (*usecase.DB, error) {
	if f.opened != nil {
		return f.opened, nil
	}
	// Reading never writes into the folder but for the column image kept
	// beside a --db file; a pending refresh commit is reported
	// (pendingNotice), and recovered only by the commands that say so.
	d, err := store.Open(ctx, f.DBPath)
	if err != nil {
		return nil, err
	}
	f.opened = d
	f.pendingNotice(d)
	f.dataAgeNotice(ctx, d)
	return d, nil
}

// Out writes v as JSON when --json is set, else calls human.
func (f *Factory) Out(v any, human func() error) error {
	if f.JSON {
		return WriteJSON(f.IO.Out, v)
	}
	return human()
}

// NewRootCmd builds the whole command tree.
func NewRootCmd(f *Factory) *cobra.Command { return newRoot(f, "") }

// NewRootCmdFor builds the tree that args need. When args start with the
// name of one of the commands, only that command is built: the others,
// with their flags, are a measurable share of a short command's start
// (docs/benchmarks.md), and cobra consults them only to list, complete or
// suggest commands, which such a command line never asks for. Anything
// else (help, completion, mcp, a flag first, an unknown word) gets the
// whole tree.
func NewRootCmdFor(f *Factory, args []string) *cobra.Command {
	if len(args) > 0 {
		for _, c := range f.commands() {
			if c.Name == args[0] {
				return newRoot(f, c.Name)
			}
		}
	}
	return NewRootCmd(f)
}

// newRoot builds the root command with every command, or with only the
// command named only.
func newRoot(f *Factory, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "cudb",
		Short: "Which NVIDIA driver, CUDA, cuDNN, framework build and GPU go together",
		Long: `cudb answers compatibility questions about the NVIDIA driver, the CUDA runtime,
cuDNN, framework builds (PyTorch, TensorFlow, JAX, ONNX Runtime) and GPU compute
capability, from a database embedded in the binary (offline; every fact cites its source).`,
		Example: `  cudb resolve torch==2.1
  cudb resolve torch==2.1 --cuda 12.1 --json
  cudb matrix torch
  cudb db info`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	root.PersistentFlags().BoolVar(&f.JSON, "json", false, "print JSON (documented in docs/json.md)")
	root.PersistentFlags().StringVar(&f.DBPath, "db", "", "read this database file (or data directory's cudb.db, as refresh writes) instead of the embedded one; also CUDB_DB")
	root.PersistentFlags().BoolVarP(&f.Quiet, "quiet", "q", false, "no notices on standard error (the data-age notice; also CUDB_NO_DATA_AGE_NOTICE=1)")
	var showVersion bool
	root.Flags().BoolVar(&showVersion, "version", false, "print cudb's version, commit and data_as_of (the version command says more)")
	root.Args = unknownSubcommand
	root.RunE = func(c *cobra.Command, _ []string) error {
		if showVersion {
			v, err := f.versionInfo(c.Context())
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(f.IO.Out, v.line())
			return err
		}
		return c.Help()
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return UsageError(c, err.Error())
	})
	// cobra's completion command: cudb completion bash|zsh|fish|powershell.
	root.CompletionOptions.HiddenDefaultCmd = false
	root.PersistentPreRunE = f.preRun
	for _, c := range f.commands() {
		if only == "" || c.Name == only {
			root.AddCommand(c.New(f))
		}
	}
	if only == "" {
		addListedOnly(root)
	}
	registerCompletions(f, root)
	groupCommands(root)
	return root
}

// addListedOnly adds what only the whole tree has: the exit-codes topic
// and cobra's completion command.
func addListedOnly(root *cobra.Command) {
	root.AddCommand(newExitCodesTopic())
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = "  source <(cudb completion bash)\n  cudb completion zsh > \"${fpath[1]}/_cudb\"\n  cudb completion fish > ~/.config/fish/completions/cudb.fish\n  cudb completion powershell | Out-String | Invoke-Expression"
			c.Args = unknownSubcommand
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
}

// Command is a top-level command: its name and its constructor.
type Command struct {
	Name string
	New  func(*Factory) *cobra.Command
}

// commands lists the CLI's own top-level commands, by name, with their
// constructors: adding a command is its file plus one line here
// (TestCommandTableNames holds each name to its command's).
var commands = []Command{
	{"check", newCheckCmd}, {"db", newDBCmd}, {"explain", newExplainCmd}, {"matrix", newMatrixCmd},
	{"pin", newPinCmd}, {"probe", newProbeCmd}, {"refresh", newRefreshCmd}, {"resolve", newResolveCmd},
	{"verify", newVerifyCmd}, {"version", newVersionCmd},
}

// commands is the CLI's own commands and the Extra ones.
func (f *Factory) commands() []Command {
	return append(append([]Command(nil), commands...), f.Extra...)
}

// UsageError is a usage error whose hint is the command's help.
func UsageError(c *cobra.Command, msg string) error {
	return (&errs.Error{Code: errs.CodeUsage, Message: msg}).WithHint("%s --help", c.CommandPath())
}

// NoArgs rejects positional arguments with a usage error.
func NoArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return UsageError(c, fmt.Sprintf("unexpected argument %s", errs.Quote(args[0])))
	}
	return nil
}

// exactArgs requires n positional arguments.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return UsageError(c, fmt.Sprintf("expected %s, got %d argument(s)", what, len(args)))
		}
		return nil
	}
}

func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What cudb's exit statuses mean",
		Long: strings.TrimSpace(`
cudb exits with:

  0  ok
  1  unexpected error (a bug, an unreadable database, a failed probe)
  2  usage error: bad flag, bad requirement or version syntax
  3  incompatible: verify or check found a problem, or resolve found a conflict
     (for example two frameworks that cannot share one environment)
  4  no match: the request is well-formed but nothing in the database fits it
     (check: the only errors are pins that match no known build)

Errors go to standard error, once; with --json, standard output carries only JSON.`),
		Run: func(c *cobra.Command, _ []string) { c.Help() },
	}
}

// Sub returns a factory for another command line over s that shares f's
// open database and --db, quiet (a program that runs many command lines
// over one handle: the door tests).
func (f *Factory) Sub(s *Streams) *Factory {
	return &Factory{IO: s, DBPath: f.DBPath, opened: f.opened, Quiet: true, Sources: f.Sources, Extra: f.Extra}
}
