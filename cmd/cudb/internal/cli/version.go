package cli

import (
	"fmt"
	"runtime"

	"github.com/cudb/cudb/db"
	"github.com/spf13/cobra"
)

type versionInfo struct {
	Version       string `json:"version"`
	SchemaVersion int    `json:"schema_version"`
	GoVersion     string `json:"go_version"`
}

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print cudb's version and the schema version it reads",
		Example: "  cudb version\n  cudb version --json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			v := versionInfo{Version: Version, SchemaVersion: db.SchemaVersion, GoVersion: runtime.Version()}
			return f.Out(v, func() error {
				_, err := fmt.Fprintf(f.IO.Out, "cudb %s (schema %d, %s)\n", v.Version, v.SchemaVersion, v.GoVersion)
				return err
			})
		},
	}
}
