package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/internal/safewrite"
	"github.com/cudb/cudb/usecase/store"
)

// RefreshOptions are `cudb refresh`'s flags.
type RefreshOptions struct {
	Snapshots   string
	DataDir     string
	Sources     []string
	DryRun      bool
	AllowShrink bool
	Markdown    string
	BaseURL     string
	List        bool
	Init        bool
}

func newRefreshCmd(f *Factory) *cobra.Command {
	opts := &RefreshOptions{}
	c := &cobra.Command{
		Use:   "refresh",
		Short: "Re-scrape the sources, check them, and rebuild the data",
		Long: `Scrapes each source (live over HTTP, or from a snapshot directory with
--snapshots), checks it (rows found, few malformed rows, versions and dates
parse, no large drop in rows, canary facts present), and replaces
data/sources/<source>.json only for the sources that passed; a failed source
keeps its previous file and makes the exit status 1. The database is then
rebuilt and checked before it replaces data/cudb.db. Prints what changed per
source (records added, removed, changed); progress goes to standard error.
Nothing is written when nothing changed. --list prints the sources (name,
family, URL) in precedence order and does nothing else.

Where it writes: into --data, which is ./data relative to the current
folder unless given (a cudb checkout's data/; elsewhere pass --data DIR, with
--init for a new one). The cudb binary does not read it there: every command
keeps answering from the database built into the binary until told otherwise.
To use the refreshed one, pass --db DIR/cudb.db (or --db DIR) to later commands,
or set CUDB_DB=DIR/cudb.db once; or rebuild the binary from the checkout (make
build) so it embeds the new data. refresh prints these paths when it writes.`,
		Example: `  cudb refresh
  cudb refresh --list --json
  cudb refresh --source pytorch --dry-run
  cudb refresh --snapshots ../shared/sources --data data
  cudb refresh --markdown pr-body.md --json > report.json
  cudb refresh --data ~/cudb-data --init && cudb resolve torch --db ~/cudb-data`,
		Args: NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runRefresh(c, f, opts)
		},
	}
	c.Flags().StringVar(&opts.Snapshots, "snapshots", "", "read sources from this directory (laid out like shared/sources) instead of the network")
	c.Flags().StringVar(&opts.DataDir, "data", "data", "data directory to update (./data by default; other commands read it with --db DIR/cudb.db)")
	c.Flags().StringArrayVar(&opts.Sources, "source", nil, "refresh only this source (repeatable)")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "check and print the diff, write nothing")
	c.Flags().BoolVar(&opts.AllowShrink, "allow-shrink", false, "accept a source losing more than 10% of its rows")
	c.Flags().StringVar(&opts.Markdown, "markdown", "", "also write the diff as markdown (a pull-request body) to this file")
	c.Flags().BoolVar(&opts.Init, "init", false, "start a new data directory: create --data (its parent must exist) or adopt an empty one")
	c.Flags().BoolVar(&opts.List, "list", false, "print the sources in precedence order (name, family, URL) and exit")
	c.Flags().StringVar(&opts.BaseURL, "base-url", "", "send every live request to this scheme://host instead (a mirror or a test server)")
	c.Flags().MarkHidden("base-url")
	return c
}

func runRefresh(c *cobra.Command, f *Factory, opts *RefreshOptions) error {
	if opts.Markdown != "" {
		// Checked before the refresh: a typo must not cost a whole run
		// (and the folder is never created).
		if st, err := os.Stat(filepath.Dir(opts.Markdown)); err != nil || !st.IsDir() {
			return UsageError(c, fmt.Sprintf("--markdown %s: folder %s does not exist", opts.Markdown, filepath.Dir(opts.Markdown)))
		}
	}
	all := f.Sources()
	if opts.List {
		return listSources(f, all)
	}
	srcs, err := store.Select(all, opts.Sources)
	if err != nil {
		return err
	}
	created, err := openDataDir(opts.DataDir, opts.Init, opts.DryRun)
	if err != nil {
		return err
	}
	p := &progress{s: f.IO}
	rep, rerr := store.Refresh(c.Context(), store.RefreshOptions{
		DataDir:     opts.DataDir,
		All:         all,
		Sources:     srcs,
		Snapshots:   opts.Snapshots,
		BaseURL:     opts.BaseURL,
		Version:     Version,
		AllowShrink: opts.AllowShrink,
		DryRun:      opts.DryRun,
		Log: func(format string, args ...any) {
			fmt.Fprintf(f.IO.ErrOut, "refresh: "+format+"\n", args...)
		},
		Progress: p.event,
		Hook:     f.RefreshHook,
	})
	if created && rep.Error != "" {
		// A new data directory whose first refresh wrote nothing goes
		// again (Remove only removes an empty folder).
		os.Remove(opts.DataDir)
	}
	if opts.Markdown != "" {
		var b bytes.Buffer
		if err := store.WriteMarkdown(&b, rep); err != nil {
			return err
		}
		if err := safewrite.File(opts.Markdown, b.Bytes()); err != nil {
			return fmt.Errorf("failed to write %s: %w", opts.Markdown, err)
		}
	}
	out := f.Out(rep, func() error {
		if err := store.WriteText(f.IO.Out, rep); err != nil {
			return err
		}
		switch {
		case opts.DryRun && len(rep.Written) > 0:
			fmt.Fprintf(f.IO.ErrOut, "refresh: dry run: would write %s\n", strings.Join(rep.Written, ", "))
		case opts.DryRun:
			fmt.Fprintln(f.IO.ErrOut, "refresh: dry run: nothing would change")
		case rep.Error == "" && len(rep.Written) > 0:
			fmt.Fprintf(f.IO.ErrOut, "refresh: wrote %s into %s\n%s\n", strings.Join(rep.Written, ", "), absDir(opts.DataDir), refreshWhere(opts.DataDir))
		case rep.Error == "":
			fmt.Fprintf(f.IO.ErrOut, "refresh: nothing changed in %s\n", absDir(opts.DataDir))
		}
		return nil
	})
	if rerr != nil {
		return rerr
	}
	return out
}

// progress reports each source on standard error: a line redrawn in place
// on a terminal, plain log lines otherwise.
type progress struct {
	s *Streams
}

func (p *progress) event(e store.Event) {
	var msg string
	switch e.Stage {
	case store.StageDone:
		r := e.Result
		state := "unchanged"
		if r.Changed {
			state = "updated"
		}
		msg = fmt.Sprintf("%s: %d rows (was %d), %d warnings, %s", e.Source, r.Rows, r.PrevRows, len(r.Warnings), state)
		if r.Diff != nil && !r.Diff.Empty() {
			msg += fmt.Sprintf(": +%d -%d ~%d", len(r.Diff.Added), len(r.Diff.Removed), len(r.Diff.Changed))
		}
	case store.StageFailed:
		msg = fmt.Sprintf("%s: FAILED, previous data kept: %v", e.Source, e.Result.Err)
	default:
		msg = fmt.Sprintf("%s: %s…", e.Source, e.Stage)
	}
	final := e.Stage == store.StageDone || e.Stage == store.StageFailed
	if !p.s.ErrTTY {
		fmt.Fprintf(p.s.ErrOut, "refresh: %s\n", msg)
		return
	}
	// \r and erase-line redraw the source's line until its result is in.
	fmt.Fprintf(p.s.ErrOut, "\r\x1b[K%s", msg)
	if final {
		fmt.Fprintln(p.s.ErrOut)
	}
}

// SourceEntry is one line of `cudb refresh --list`.
type SourceEntry struct {
	Precedence int    `json:"precedence"`
	Name       string `json:"name"`
	Family     string `json:"family"`
	URL        string `json:"url"`
}

// listSources prints every source, earliest (highest precedence) first.
func listSources(f *Factory, all []store.Source) error {
	list := struct {
		Sources []SourceEntry `json:"sources"`
	}{Sources: []SourceEntry{}}
	t := &Table{Header: []string{"#", "source", "family", "url"}}
	for i, s := range all {
		e := SourceEntry{Precedence: i + 1, Name: s.Name(), Family: store.Family(s), URL: s.URL()}
		list.Sources = append(list.Sources, e)
		t.Add(fmt.Sprint(e.Precedence), e.Name, e.Family, e.URL)
	}
	return f.Out(list, func() error { return t.Render(f.IO.Term()) })
}

// absDir is dir made absolute for messages (as given if that fails).
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
