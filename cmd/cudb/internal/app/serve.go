package app

import (
	"fmt"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/internal/errs"
)

// ServeOptions are `cudb serve`'s flags.
type ServeOptions struct {
	Addr         string
	Workers      int
	AllowOrigins []string
	Grace        time.Duration
	// MaxConns and MaxConnsPerClient cap open connections (0: defaults).
	MaxConns, MaxConnsPerClient int
}

func newServeCmd(f *cli.Factory) *cobra.Command {
	opts := &ServeOptions{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the database as a JSON API over HTTP (documented in docs/http.md)",
		Long: `Serve resolve, matrix, meta (and, where built in, pin, verify and explain) as JSON
over HTTP, with the same bodies as the commands' --json output. The database is
read-only; answers are cached in memory. One log line per request goes to standard
error. SIGINT or SIGTERM stops the server after the requests in flight finish
(at most --grace; the exit status is 0 either way).

Every request has a work budget (5 s) and reports are judged within bounds
(docs/http.md). GET answers are public (CORS *, with ETag and Cache-Control);
POST /v1/verify and /v1/explain refuse a request from a web page (one with an
Origin header) unless --allow-origin names its origin, so no page a user opens
can make the server work. curl and scripts send no Origin and are served.`,
		Example: `  cudb serve
  cudb serve --addr 127.0.0.1:9000 --db data/cudb.db
  cudb serve --allow-origin http://localhost:3000
  curl 'http://127.0.0.1:8080/v1/resolve?req=torch==2.1&cuda=12.1'`,
		Args: cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServe(c, f, opts) },
	}
	c.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	c.Flags().IntVar(&opts.Workers, "workers", 0, "requests answered at once (0 = one per CPU); the others wait their turn")
	// --handles named the replicas of the database the server once kept
	// (one SQLite connection each); one handle now serves every request.
	c.Flags().IntVar(&opts.Workers, "handles", 0, "")
	c.Flags().MarkDeprecated("handles", "use --workers")
	c.Flags().DurationVar(&opts.Grace, "grace", httpapi.DefaultShutdownGrace, "at SIGINT/SIGTERM, how long requests in flight may finish before they are cut (the exit status is 0 either way)")
	c.Flags().IntVar(&opts.MaxConns, "max-conns", 0, fmt.Sprintf("open connections at most, in total (0 = %d); at the cap the longest-idle keep-alive is closed first", httpapi.DefaultMaxConns))
	c.Flags().IntVar(&opts.MaxConnsPerClient, "max-conns-per-client", 0, fmt.Sprintf("open connections at most from one client address (0 = %d); behind a reverse proxy every client is the proxy: raise it to the proxy's upstream pool", httpapi.DefaultMaxConnsPerClient))
	c.Flags().StringArrayVar(&opts.AllowOrigins, "allow-origin", nil, "let web pages from this `ORIGIN` (https://host[:port], or *) POST to /v1/verify and /v1/explain (repeatable; default none: scripts and curl send no Origin and are always served)")
	return c
}

func runServe(c *cobra.Command, f *cli.Factory, opts *ServeOptions) error {
	if opts.Workers < 0 {
		return cli.UsageError(c, "--workers must be 0 or more")
	}
	if opts.MaxConns < 0 || opts.MaxConnsPerClient < 0 {
		return cli.UsageError(c, "--max-conns and --max-conns-per-client must be 0 (the default) or more")
	}
	for _, o := range opts.AllowOrigins {
		if !validOrigin(o) {
			return cli.UsageError(c, fmt.Sprintf("--allow-origin %s: expected * or an origin such as https://example.org or http://localhost:3000 (scheme, host and port, no path)", errs.Quote(o)))
		}
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := f.DB(ctx)
	if err != nil {
		return err
	}
	srv := &httpapi.Server{DB: d, Workers: opts.Workers, Version: cli.Version, Log: f.IO.ErrOut, AllowOrigins: opts.AllowOrigins, ShutdownGrace: opts.Grace,
		MaxConns: opts.MaxConns, MaxConnsPerClient: opts.MaxConnsPerClient}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("failed to listen on %s: %w", opts.Addr, err)
	}
	fmt.Fprintf(f.IO.ErrOut, "cudb %s serving %s on http://%s\n", cli.Version, d.Origin, ln.Addr())
	return srv.Serve(ctx, ln)
}

// validOrigin reports whether o is "*" or what a browser sends as Origin:
// http(s)://host[:port], nothing after.
func validOrigin(o string) bool {
	if o == "*" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil && u.String() == o
}
