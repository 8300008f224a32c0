package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/usecase"
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
type DBInfo struct {
	Origin        string            `json:"origin"`
	SchemaVersion int               `json:"schema_version"`
	Meta          map[string]string `json:"meta"`
	Sources       []db.SourceInfo   `json:"sources"`
	Tables        map[string]int    `json:"tables"`
	// DataAsOf is the newest date any fact carries (meta data_as_of).
	DataAsOf string `json:"data_as_of,omitempty"`
	// Newest is the newest release of every line the data holds: each
	// framework and companion, CUDA, cuDNN and the driver branch.
	Newest []usecase.Newest `json:"newest"`
}

// DBCheck is `cudb db check --json`: the database's checks, and what was
// found about a refresh journal beside a --db file.
type DBCheck struct {
	*db.CheckResult
	Journal string `json:"journal,omitempty"`
}

// tables lists the fact tables in dump order.

func newDBInfoCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "info",
		Short:   "Show the schema version, sources and row counts",
		Example: "  cudb db info\n  cudb db info --json\n  cudb db info --db data/cudb.db",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			d, err := f.DB(ctx)
			if err != nil {
				return err
			}
			info := DBInfo{Origin: d.Origin, SchemaVersion: db.SchemaVersion, Tables: map[string]int{}}
			if info.Meta, err = d.Meta(ctx); err != nil {
				return err
			}
			if info.Sources, err = d.Sources(ctx); err != nil {
				return err
			}
			if info.Sources == nil {
				info.Sources = []db.SourceInfo{}
			}
			info.DataAsOf = info.Meta["data_as_of"]
			if info.Newest, err = usecase.NewestReleases(ctx, d); err != nil {
				return err
			}
			for _, t := range db.Tables {
				n, err := d.Count(ctx, t)
				if err != nil {
					return err
				}
				info.Tables[t] = n
			}
			return f.Out(info, func() error {
				fmt.Fprintf(f.IO.Out, "database: %s (schema %d)\ndata as of: %s\n\n", info.Origin, info.SchemaVersion, orUnknown(info.DataAsOf))
				t := &Table{Header: []string{"source", "rows", "fetched_at", "sha256", "url"}}
				for _, s := range info.Sources {
					t.Add(s.Name, fmt.Sprint(s.Rows), s.FetchedAt, shortHash(s.SHA256), s.URL)
				}
				if err := t.Render(f.IO); err != nil {
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
				if err := t.Render(f.IO); err != nil {
					return err
				}
				fmt.Fprintln(f.IO.Out)
				t = &Table{Header: []string{"table", "rows"}}
				for _, name := range db.Tables {
					t.Add(name, fmt.Sprint(info.Tables[name]))
				}
				return t.Render(f.IO)
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
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := f.recoverBesideDB(); err != nil {
				return err
			}
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			res, err := d.Check(c.Context())
			if err != nil {
				return err
			}
			rep := DBCheck{CheckResult: res}
			switch j := f.journal; {
			case j.Pending != nil:
				rep.Journal = "pending: " + j.Pending.Error()
			case j.Recovered != "":
				rep.Journal = fmt.Sprintf("an interrupted refresh was pending in %s; recovery %s it", j.Dir, j.Recovered)
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
				return t.Render(f.IO)
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
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			d, err := f.DB(ctx)
			if err != nil {
				return err
			}
			names := db.Tables
			if table != "" {
				if !slices.Contains(db.Tables, table) {
					return usageError(c, fmt.Sprintf("unknown table %s (tables: %s)", errs.Quote(table), strings.Join(db.Tables, ", ")))
				}
				names = []string{table}
			} else if !f.JSON {
				return usageError(c, "name a table with --table, or dump everything with --json")
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
				if err := t.Render(f.IO); err != nil {
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
	c.Flags().StringVar(&table, "table", "", "table to print: "+strings.Join(db.Tables, ", "))
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
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if st, err := os.Stat(filepath.Join(dataDir, "sources")); err != nil || !st.IsDir() {
				return errs.Errorf(errs.CodeUsage, "%s is not a cudb data directory (no sources/ folder)", dataDir).
					WithHint("cudb db build --data DIR (the folder holding sources/ and overrides.yaml)")
			}
			// scraper.Build takes the refresh lock, recovers a pending
			// journal and commits as refresh does.
			m, err := scraper.Build(c.Context(), dataDir, f.Sources())
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

// recoverBesideDB settles a refresh commit pending in the folder of the
// --db file, taking the refresh lock (datadir.RecoverPending), and keeps
// what it found for the report. While a live refresh holds the lock the
// commit is in progress, which is reported, not an error.
func (f *Factory) recoverBesideDB() error {
	if f.DBPath == "" {
		return nil
	}
	dir := filepath.Dir(f.DBPath)
	var err error
	f.journal.Dir = dir
	f.journal.Recovered, err = datadir.RecoverPending(dir)
	if errors.Is(err, datadir.ErrLocked) {
		f.journal.Pending, err = err, nil
	}
	if err != nil {
		return fmt.Errorf("failed to recover the interrupted refresh in %s: %w", dir, err)
	}
	return nil
}
