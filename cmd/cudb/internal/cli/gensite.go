package cli

import (
	"fmt"

	"github.com/cudb/cudb/cmd/cudb/internal/site"
	"github.com/spf13/cobra"
)

func init() { register(newGenCmd) }

func newGenCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "gen",
		Short:   "Generate artifacts from the database",
		Example: "  cudb gen site --out public",
	}
	c.AddCommand(newGenSiteCmd(f))
	return c
}

// GenSiteOptions are `cudb gen site`'s flags.
type GenSiteOptions struct {
	Out string
}

// GenSiteResult is `cudb gen site --json`.
type GenSiteResult struct {
	Out   string   `json:"out"`
	Files []string `json:"files"`
}

func newGenSiteCmd(f *Factory) *cobra.Command {
	opts := &GenSiteOptions{}
	c := &cobra.Command{
		Use:   "site",
		Short: "Write a static site of the compatibility tables (HTML + JSON)",
		Long: `Write index.html, one page per table (cudb matrix), gpu.html (which torch builds
carry kernels for which GPU), data/<table>.json and meta.json into --out. Pages
use only embedded assets, so the site works from file:// and any static host; the
same database always gives the same bytes.`,
		Example: "  cudb gen site --out public\n  cudb gen site --out public --db data/cudb.db",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Out == "" {
				return usageError(c, "--out is required")
			}
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			files, err := site.Generate(c.Context(), d, opts.Out)
			if err != nil {
				return err
			}
			res := GenSiteResult{Out: opts.Out, Files: files}
			return f.Out(res, func() error {
				_, err := fmt.Fprintf(f.IO.Out, "wrote %d files to %s (open %s/index.html)\n", len(files), opts.Out, opts.Out)
				return err
			})
		},
	}
	c.Flags().StringVar(&opts.Out, "out", "", "directory to write the site into")
	return c
}
