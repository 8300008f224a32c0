package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/usecase/store"
	"github.com/spf13/cobra"
)

func newDBCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "db",
		Short: "Inspect, check and build the database",
		Example: `  cudb db info
  cudb db check
  cudb db dump --table gpu
  cudb db build --data data`,
	}
	c.AddCommand(newDBInfoCmd(f), newDBCheckCmd(f), newDBDumpCmd(f), newDBBuildCmd(f))
	return c
}

// DBInfo is `cudb db info --json`.
type DBInfo = store.Info

// DBCheck is `cudb db check --json`.
type DBCheck = store.CheckReport

func newDBInfoCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "info",
		Short:   "Show the schema version, sources and row counts",
		Example: "  cudb db info\n  cudb db info --json\n  cudb db info --db data/cudb.db",
		Args:    NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			d, err := f.DB(ctx)
			if err != nil {
				return err
			}
			info, err := store.Describe(ctx, d)
			if err != nil {
				return err
			}
			return f.Out(info, func() error {
				fmt.Fprintf(f.IO.Out, "database: %s (schema %d)\ndata as of: %s\n\n", info.Origin, info.SchemaVersion, orUnknown(info.DataAsOf))
				t := &Table{Header: []string{"source", "rows", "fetched_at", "sha256", "url"}}
				for _, s := range info.Sources {
					t.Add(s.Name, fmt.Sprint(s.Rows), s.FetchedAt, shortHash(s.SHA256), s.URL)
				}
				if err := t.Render(f.IO.Term()); err != nil {
					return err
				}
				fmt.Fprintln(f.IO.Out)
				t = &Table{Header: []string{"line", "newest", "released", "source", "newest with facts"}}
				for _, l := range info.Newest {
					v := l.Version
					if l.FactsPending {
						v += " (facts pending)"
					}
					t.Add(l.Line, v, l.ReleasedOn, l.Source, l.WithFacts)
				}
				if err := t.Render(f.IO.Term()); err != nil {
					return err
				}
				fmt.Fprintln(f.IO.Out)
				t = &Table{Header: []string{"table", "rows"}}
				for _, name := range store.Tables {
					t.Add(name, fmt.Sprint(info.Tables[name]))
				}
				return t.Render(f.IO.Term())
			})
		},
	}
}

// orUnknown is s, or "unknown" when the data does not say.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func shortHash(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func newDBCheckCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check integrity and foreign keys; list conflicts between sources",
		Long: `Runs SQLite's integrity and foreign-key checks and lists every recorded conflict:
two sources (or two rows of one source, or a curated override) that state the
same fact differently, with the value kept, the value refused, and both citations.
Exits 1 when the database is damaged; conflicts alone are not a failure.
With --db, it first recovers a refresh that was killed while moving files
into the file's folder (the one command that reads and recovers; the others
only say that one is pending), and reports what it did.`,
		Example: "  cudb db check\n  cudb db check --json --db data/cudb.db",
		Args:    NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			j, err := store.RecoverBeside(f.DBPath)
			if err != nil {
				return err
			}
			f.journal = j
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			rep, err := store.Check(c.Context(), d, j)
			if err != nil {
				return err
			}
			err = f.Out(rep, func() error {
				if rep.Journal != "" {
					fmt.Fprintf(f.IO.Out, "refresh journal: %s\n", rep.Journal)
				}
				fmt.Fprintf(f.IO.Out, "integrity: %s\n", strings.Join(rep.Integrity, "; "))
				if len(rep.ForeignKeys) == 0 {
					fmt.Fprintln(f.IO.Out, "foreign keys: ok")
				} else {
					fmt.Fprintf(f.IO.Out, "foreign keys: %s\n", strings.Join(rep.ForeignKeys, "; "))
				}
				fmt.Fprintf(f.IO.Out, "conflicts: %d\n", len(rep.Conflicts))
				if len(rep.Conflicts) == 0 {
					return nil
				}
				t := &Table{Header: []string{"subject", "field", "kept", "kept source", "refused", "refused source", "note"}}
				for _, k := range rep.Conflicts {
					t.Add(k.Subject, k.Field, k.Kept, k.KeptSource, k.Other, k.OtherSource, k.Note)
				}
				return t.Render(f.IO.Term())
			})
			if err != nil {
				return err
			}
			if !rep.OK() {
				return fmt.Errorf("database check failed")
			}
			if f.journal.Pending != nil {
				return fmt.Errorf("a refresh is moving files into %s right now: check again when it is done", f.journal.Dir)
			}
			return nil
		},
	}
}

func newDBDumpCmd(f *Factory) *cobra.Command {
	var table string
	c := &cobra.Command{
		Use:   "dump",
		Short: "Print the rows of one table (or all tables with --json)",
		Example: `  cudb db dump --table cuda_driver
  cudb db dump --json > facts.json`,
		Args: NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			d, err := f.DB(ctx)
			if err != nil {
				return err
			}
			names := store.Tables
			if table != "" {
				if !slices.Contains(store.Tables, table) {
					return UsageError(c, fmt.Sprintf("unknown table %s (tables: %s)", errs.Quote(table), strings.Join(store.Tables, ", ")))
				}
				names = []string{table}
			} else if !f.JSON {
				return UsageError(c, "name a table with --table, or dump everything with --json")
			}
			all := map[string][]map[string]any{}
			for _, name := range names {
				cols, rows, err := d.Dump(ctx, name)
				if err != nil {
					return err
				}
				if f.JSON {
					list := []map[string]any{}
					for _, r := range rows {
						m := map[string]any{}
						for i, col := range cols {
							m[col] = r[i]
						}
						list = append(list, m)
					}
					all[name] = list
					continue
				}
				t := &Table{Header: cols}
				for _, r := range rows {
					cells := make([]string, len(r))
					for i, v := range r {
						cells[i] = fmt.Sprint(v)
					}
					t.Add(cells...)
				}
				if err := t.Render(f.IO.Term()); err != nil {
					return err
				}
			}
			if f.JSON {
				if table != "" {
					return WriteJSON(f.IO.Out, all[table])
				}
				return WriteJSON(f.IO.Out, all)
			}
			return nil
		},
	}
	c.Flags().StringVar(&table, "table", "", "table to print: "+strings.Join(store.Tables, ", "))
	return c
}

func newDBBuildCmd(f *Factory) *cobra.Command {
	var dataDir string
	c := &cobra.Command{
		Use:   "build",
		Short: "Build cudb.db and manifest.json from the source snapshots in a data directory",
		Long: `Normalizes every data/sources/<source>.json in precedence order, applies
data/overrides.yaml, and writes a fresh data/cudb.db and data/manifest.json.
It takes the refresh lock (a running refresh makes it fail), first recovers a
refresh that was interrupted while moving files, and replaces both files as
one set: a failed build writes nothing. The same input always gives
byte-identical output.`,
		Example: "  cudb db build --data data",
		Args:    NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if st, err := os.Stat(filepath.Join(dataDir, datadir.SourcesDir)); err != nil || !st.IsDir() {
				return errs.Errorf(errs.CodeUsage, "%s is not a cudb data directory (no sources/ folder)", dataDir).
					WithHint("cudb db build --data DIR (the folder holding sources/ and overrides.yaml)")
			}
			// Build takes the refresh lock, recovers a pending journal and
			// commits as refresh does.
			m, err := store.Build(c.Context(), dataDir, f.Sources())
			if err != nil {
				return err
			}
			return f.Out(m, func() error {
				names := make([]string, 0, len(m.Sources))
				for _, s := range m.Sources {
					names = append(names, fmt.Sprintf("%s (%d rows)", s.Name, s.Rows))
				}
				sort.Strings(names)
				fmt.Fprintf(f.IO.ErrOut, "built %s/cudb.db from %d sources: %s\n", dataDir, len(names), strings.Join(names, ", "))
				return nil
			})
		},
	}
	c.Flags().StringVar(&dataDir, "data", "data", "data directory holding sources/ and overrides.yaml")
	return c
}
