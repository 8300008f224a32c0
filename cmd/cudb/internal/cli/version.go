package cli

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/usecase/store"
)

// VersionInfo is `cudb version --json`.
type VersionInfo struct {
	Version       string `json:"version"`
	Commit        string `json:"commit,omitempty"`
	SchemaVersion int    `json:"schema_version"`
	// DataAsOf is the newest release date in the database read (the
	// embedded one unless --db names another); "" when it does not say.
	DataAsOf string `json:"data_as_of,omitempty"`
	// BuiltFrom hashes the source snapshots the database was built from.
	BuiltFrom string `json:"built_from,omitempty"`
	Database  string `json:"database"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// versionInfo reads the stamps and the database's meta table.
func (f *Factory) versionInfo(ctx context.Context) (*VersionInfo, error) {
	v := &VersionInfo{Version: Version, Commit: Commit, SchemaVersion: store.SchemaVersion, DataAsOf: DataAsOf,
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	d, err := f.DB(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := d.Meta(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the database's meta table: %w", err)
	}
	v.Database = d.Origin
	v.BuiltFrom = meta["built_from"]
	if a := meta["data_as_of"]; a != "" {
		v.DataAsOf = a
	}
	return v, nil
}

// line is the one-line form `cudb --version` prints.
func (v *VersionInfo) line() string {
	parts := []string{}
	if v.Commit != "" {
		parts = append(parts, "commit "+shortHash(v.Commit))
	}
	parts = append(parts, "data as of "+orUnknown(v.DataAsOf), fmt.Sprintf("schema %d", v.SchemaVersion))
	return fmt.Sprintf("cudb %s (%s)", v.Version, strings.Join(parts, ", "))
}

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print cudb's version, commit, data_as_of and the schema version it reads",
		Long: `Prints cudb's version and commit (stamped by make release), the schema version this
binary reads, and data_as_of: the newest release date in the database it reads
(the embedded one, or the file given by --db). Answers know nothing newer than that.`,
		Example: "  cudb version\n  cudb version --json\n  cudb --version",
		Args:    NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			v, err := f.versionInfo(c.Context())
			if err != nil {
				return err
			}
			return f.Out(v, func() error {
				t := &Table{Header: []string{"field", "value"}}
				t.Add("version", v.Version)
				t.Add("commit", v.Commit)
				t.Add("data_as_of", v.DataAsOf)
				t.Add("schema", fmt.Sprint(v.SchemaVersion))
				t.Add("built_from", shortHash(v.BuiltFrom))
				t.Add("database", v.Database)
				t.Add("go", v.GoVersion)
				t.Add("platform", v.Platform)
				return t.Render(f.IO.Term())
			})
		},
	}
}
