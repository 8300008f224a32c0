package app

import (
	"errors"
	"fmt"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/cmd/cudb/internal/site"
	"github.com/cudb/cudb/internal/safewrite"
)

// isRefusal reports whether err is safewrite refusing the target (the
// user's choice of --out), not a failure while writing.
func isRefusal(err error) bool {
	var r *safewrite.RefusedError
	return errors.As(err, &r)
}

func newGenCmd(f *cli.Factory) *cobra.Command {
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
	Out   string
	Force bool
}

// SiteMarker is the file gen site writes into every site it makes: a
// folder holding it may be replaced, any other non-empty folder only
// with --force.
const SiteMarker = ".cudb-site"

// GenSiteResult is `cudb gen site --json`.
type GenSiteResult struct {
	Out   string   `json:"out"`
	Files []string `json:"files"`
}

func newGenSiteCmd(f *cli.Factory) *cobra.Command {
	opts := &GenSiteOptions{}
	c := &cobra.Command{
		Use:   "site",
		Short: "Write a static site of the compatibility tables (HTML + JSON)",
		Long: `Write index.html, one page per table (cudb matrix), gpu.html (which torch builds
carry kernels for which GPU), install.html (the install selector: framework,
release, OS, package manager, GPU and driver give the stack, the install command
and the cudb pin file, all precomputed into data/install.js and
data/install/<framework>-<version>.js), data/<table>.json and meta.json into --out. Pages
use only embedded assets, so the site works from file:// and any static host; the
same database always gives the same bytes.

The site is written into a new folder beside --out and renamed into place, so
--out holds the old site or the new one, never a mix, and a failure (a full
disk) leaves the old one. --out is replaced whole: a non-empty folder that gen
site did not make (it holds no ` + SiteMarker + ` file) is refused unless --force, and
the file-system root or a folder holding the current one is always refused.`,
		Example: "  cudb gen site --out public\n  cudb gen site --out public --db data/cudb.db\n  cudb gen site --out old-docs --force",
		Args:    cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Out == "" {
				return cli.UsageError(c, "--out is required")
			}
			d, err := f.DB(c.Context())
			if err != nil {
				return err
			}
			var files site.Written
			err = safewrite.Dir(opts.Out, safewrite.DirOptions{Marker: SiteMarker, Force: opts.Force,
				MarkerText: "made by cudb gen site: the next run replaces this folder whole\n"},
				func(tmp string) error {
					var err error
					files, err = site.Generate(c.Context(), d, tmp)
					return err
				})
			if err != nil {
				if isRefusal(err) {
					return cli.UsageError(c, fmt.Sprintf("cannot write the site: %v", err))
				}
				return fmt.Errorf("failed to write the site to %s: %w", opts.Out, err)
			}
			res := GenSiteResult{Out: opts.Out, Files: files}
			return f.Out(res, func() error {
				_, err := fmt.Fprintf(f.IO.Out, "wrote %d files to %s (open %s/index.html)\n", len(files), opts.Out, opts.Out)
				return err
			})
		},
	}
	c.Flags().StringVar(&opts.Out, "out", "", "folder to write the site into; it is replaced whole (written beside it, then renamed into place)")
	c.Flags().BoolVar(&opts.Force, "force", false, "replace a non-empty --out folder that gen site did not make")
	return c
}
