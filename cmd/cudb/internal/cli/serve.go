package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/pin"
	"github.com/cudb/cudb/query/verify"
)

func init() { register(newServeCmd) }

// ServeOptions are `cudb serve`'s flags.
type ServeOptions struct {
	Addr    string
	Handles int
}

func newServeCmd(f *Factory) *cobra.Command {
	opts := &ServeOptions{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the database as a JSON API over HTTP (documented in docs/http.md)",
		Long: `Serve resolve, matrix, meta (and, where built in, pin, verify and explain) as JSON
over HTTP, with the same bodies as the commands' --json output. The database is
read-only; answers are cached in memory. One log line per request goes to standard
error. SIGINT or SIGTERM stops the server after the requests in flight finish.`,
		Example: `  cudb serve
  cudb serve --addr 127.0.0.1:9000 --db data/cudb.db
  curl 'http://127.0.0.1:8080/v1/resolve?req=torch==2.1&cuda=12.1'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServe(c, f, opts) },
	}
	c.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	c.Flags().IntVar(&opts.Handles, "handles", 0, "database handles queried in parallel (0 = one per CPU)")
	return c
}

func runServe(c *cobra.Command, f *Factory, opts *ServeOptions) error {
	if opts.Handles < 0 {
		return usageError(c, "--handles must be 0 or more")
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := f.DB(ctx)
	if err != nil {
		return err
	}
	n := opts.Handles
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	srv := &httpapi.Server{DB: d, Version: Version, Log: f.IO.ErrOut}
	srv.Pin = func(ctx context.Context, d *db.DB, r query.ResolveRequest, format string) (any, error) {
		if format == "json" {
			return pin.Pins(ctx, d, r, "requirements", pin.PinOptions{CudbVersion: Version})
		}
		res, err := pin.Pins(ctx, d, r, format, pin.PinOptions{CudbVersion: Version})
		if err != nil {
			return nil, err
		}
		return res.Content, nil
	}
	srv.Verify = func(ctx context.Context, d *db.DB, body []byte) (any, error) {
		facts, _, err := report.Parse(body)
		if err != nil {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: err.Error()}).
				WithHint("POST cudb's probe JSON or a pasted report (collect_env, nvidia-smi, pip list)")
		}
		return verify.Verify(ctx, d, facts)
	}
	srv.Explain = func(ctx context.Context, d *db.DB, text string) (any, error) {
		findings, err := verify.Explain(ctx, d, text)
		if err != nil {
			return nil, err
		}
		return ExplainResult{Findings: findings}, nil
	}
	for i := 1; i < n; i++ {
		r, err := f.openReplica(ctx)
		if err != nil {
			return err
		}
		defer r.Close()
		srv.Replicas = append(srv.Replicas, r)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("failed to listen on %s: %w", opts.Addr, err)
	}
	fmt.Fprintf(f.IO.ErrOut, "cudb %s serving %s on http://%s\n", Version, d.Origin, ln.Addr())
	return srv.Serve(ctx, ln)
}

// openReplica opens another handle on the database f.DB opened: an
// in-memory image lives in one connection, so parallel queries need
// their own copies (each about the size of data/cudb.db).
func (f *Factory) openReplica(ctx context.Context) (*db.DB, error) {
	if f.DBPath != "" {
		return db.OpenFile(ctx, f.DBPath)
	}
	return db.OpenImage(ctx, data.DB, "embedded database")
}
