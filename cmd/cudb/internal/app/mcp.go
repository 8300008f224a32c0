package app

import (
	"context"
	"errors"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/cudb/cudb/cmd/cudb/internal/mcptools"
)

func newMCPCmd(f *cli.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve cudb's answers to AI coding agents over MCP (stdio)",
		Long: `Runs a Model Context Protocol server on standard input and output, for AI coding
agents and editors that set up environments. Its tools are resolve, pin,
verify_report (the text of a pasted report), explain, check (the text of a project
file) and matrix; each answers with
the same JSON as the command with --json. Schemas: docs/mcp.md.

Register it with a client as the command "cudb mcp" (add --db FILE to serve another
database). Nothing but protocol messages is written to standard output.`,
		Example: `  cudb mcp
  claude mcp add cudb -- cudb mcp
  {"mcpServers": {"cudb": {"command": "cudb", "args": ["mcp"]}}}`,
		Args: cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// Open (and check) the database before the first request, so a
			// bad --db fails here and the tools share one handle.
			if _, err := f.DB(c.Context()); err != nil {
				return err
			}
			err := NewMCPServer(f).Run(c.Context(), mcptools.Transport(f.IO.In, f.IO.Out))
			if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "EOF")) {
				return nil // the client closed the session
			}
			return err
		},
	}
}

// NewMCPServer returns the MCP server over f's database: each tool calls
// its use case directly.
func NewMCPServer(f *cli.Factory) *mcp.Server {
	return mcptools.NewServer(cli.Version, f.DB)
}
