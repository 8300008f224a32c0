package cli

import (
	"fmt"

	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/scraper"
	"github.com/spf13/cobra"
)

func init() { register(newRefreshCmd) }

// RefreshOptions are `cudb refresh`'s flags.
type RefreshOptions struct {
	Snapshots string
	DataDir   string
	Sources   []string
}

func newRefreshCmd(f *Factory) *cobra.Command {
	opts := &RefreshOptions{}
	c := &cobra.Command{
		Use:   "refresh",
		Short: "Re-scrape the sources, check them, and rebuild the data",
		Example: `  cudb refresh --snapshots ../shared/sources --data data
  cudb refresh --snapshots ../shared/sources --source pytorch`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Snapshots == "" {
				return usageError(c, "name a snapshot directory with --snapshots")
			}
			srcs, err := selectSources(opts.Sources)
			if err != nil {
				return err
			}
			in := scraper.Input{Snapshots: opts.Snapshots}
			results, rerr := scraper.Refresh(c.Context(), in, opts.DataDir, srcs)
			out := f.Out(results, func() error {
				for _, r := range results {
					if r.Err != nil {
						fmt.Fprintf(f.IO.ErrOut, "%s: FAILED: %v\n", r.Source, r.Err)
						continue
					}
					fmt.Fprintf(f.IO.ErrOut, "%s: %d rows\n", r.Source, r.Rows)
				}
				return nil
			})
			if rerr != nil {
				return rerr
			}
			return out
		},
	}
	c.Flags().StringVar(&opts.Snapshots, "snapshots", "", "read sources from this directory (laid out like shared/sources) instead of the network")
	c.Flags().StringVar(&opts.DataDir, "data", "data", "data directory to update")
	c.Flags().StringArrayVar(&opts.Sources, "source", nil, "refresh only this source (repeatable)")
	return c
}

// selectSources returns the named sources, or all of them.
func selectSources(names []string) ([]scraper.Source, error) {
	all := scraper.Sources()
	if len(names) == 0 {
		return all, nil
	}
	var out []scraper.Source
	for _, n := range names {
		s, ok := scraper.Lookup(n)
		if !ok {
			var known []string
			for _, s := range all {
				known = append(known, s.Name())
			}
			return nil, query.Errorf(query.CodeUsage, "unknown source %q (sources: %v)", n, known).WithHint("cudb refresh --help")
		}
		out = append(out, s)
	}
	return out, nil
}
