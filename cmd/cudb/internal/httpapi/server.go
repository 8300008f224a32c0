// Package httpapi serves cudb's answers as JSON over HTTP: the same query
// package the CLI calls, the same bodies `cudb ... --json` prints, and
// one table from error code to HTTP status.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/usecase"
)

// MaxBody is the largest request body accepted (POST /v1/verify,
// POST /v1/explain); a probe JSON or a pasted report is a few KiB, a
// full nvidia-smi -q of an 8-GPU host about 50 KiB. The
// report's own bounds (error lines, environments, field lengths:
// internal/host/report) keep the work behind an accepted body small.
const MaxBody = 256 << 10

// Defaults of the optional Server fields.
const (
	DefaultBudget        = 5 * time.Second
	DefaultShutdownGrace = 10 * time.Second
)

// Server is cudb's HTTP API. Zero values of the optional fields are
// usable.
type Server struct {
	// DB is the database every answer comes from (read-only). One handle
	// serves every request at once: its reads answer from the column
	// image in place, and its caches take their own lock.
	DB *usecase.DB
	// Workers bounds the requests answered at once (0: one per CPU);
	// the others wait for a free worker until their budget ends.
	Workers int
	Version string
	// Log receives one line per request; nil discards them.
	Log io.Writer
	// CacheEntries bounds the answer cache (0: 4096; negative: no cache).
	CacheEntries int
	// AllowOrigins lists the browser origins (scheme://host[:port]) whose
	// pages may POST; "*" allows any. Empty (the default): a POST that
	// carries an Origin header is refused with 403, so no web page a user
	// opens can make the server work; scripts and curl send no Origin and
	// are served. GET answers are public data and carry
	// Access-Control-Allow-Origin: * regardless.
	AllowOrigins []string
	// Budget bounds one request's work (0: DefaultBudget); past it the
	// request is cancelled and answered 503.
	Budget time.Duration
	// ShutdownGrace is how long requests in flight may finish once Serve's
	// context ends (0: DefaultShutdownGrace); then they are cancelled, the
	// connections closed, and Serve returns nil.
	ShutdownGrace time.Duration

	// MaxConns and MaxConnsPerClient cap open connections, in total and
	// per client address (0: DefaultMaxConns, DefaultMaxConnsPerClient);
	// at a cap the longest-idle keep-alive is closed first (connlimit.go).
	MaxConns, MaxConnsPerClient int

	// Timeouts of the underlying http.Server; zero picks the defaults.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration

	once    sync.Once
	workers chan struct{} // requests being answered: at most Workers
	heavy   chan struct{} // POST work in progress: fewer than the workers
	cache   *lru
	flight  flights
	handler http.Handler
	logMu   sync.Mutex

	dataTag string // hash of the data's description: the base of every ETag
}

func (s *Server) init() {
	s.once.Do(func() {
		n := orDefaultInt(s.Workers, runtime.GOMAXPROCS(0))
		s.workers = make(chan struct{}, n)
		// POST bodies (verify, explain) may hold a worker for their whole
		// budget; with two workers or more one is always left to the
		// cheap GET answers and /healthz.
		s.heavy = make(chan struct{}, max(1, n-1))
		// Read once, before any request is answered.
		s.dataTag = dataTagOf(s.DB, s.Version)
		// An uncached answer is CPU work (reads, grouping, JSON), so
		// workers beyond the CPUs cannot raise the rate; caching can
		// (docs/benchmarks.md: a cached answer costs microseconds), and is
		// safe because answers never change under a read-only database.
		// The bound is memory only: 4096 answers or 64 MiB, whichever
		// comes first.
		switch {
		case s.CacheEntries == 0:
			s.cache = newLRU(4096, 64<<20)
		case s.CacheEntries > 0:
			s.cache = newLRU(s.CacheEntries, 64<<20)
		}
		mux := http.NewServeMux()
		s.route(mux, "/v1/resolve", http.MethodGet, s.resolve)
		s.route(mux, "/v1/matrix/{table}", http.MethodGet, s.matrix)
		s.route(mux, "/v1/matrix/", http.MethodGet, s.matrixIndex)
		s.route(mux, "/v1/pin", http.MethodGet, s.pin)
		s.route(mux, "/v1/verify", http.MethodPost, s.verify)
		s.route(mux, "/v1/explain", http.MethodPost, s.explain)
		s.route(mux, "/v1/check", http.MethodPost, s.check)
		s.route(mux, "/v1/meta", http.MethodGet, s.meta)
		s.route(mux, "/healthz", http.MethodGet, s.health)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			s.writeError(w, r, errs.Errorf(errs.CodeNotFound, "no endpoint %s", r.URL.Path).
				WithHint("GET /v1/resolve, /v1/matrix/{table}, /v1/pin, /v1/meta, /healthz; POST /v1/verify, /v1/explain, /v1/check"))
		})
		s.handler = s.logRequests(s.recoverPanics(mux))
	})
}

// Handler returns the API as an http.Handler.
func (s *Server) Handler() http.Handler {
	s.init()
	return s.handler
}

// handlerFunc answers a request or returns an error for writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route registers h for path and method. Around h: OPTIONS (CORS
// preflight) is answered, other methods get a JSON 405 (ServeMux's own is
// plain text), a POST from a page whose origin is not allowed gets 403,
// a malformed query string 400, and h runs under the work budget.
func (s *Server) route(mux *http.ServeMux, path, method string, h handlerFunc) {
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			s.preflight(w, r, method)
			return
		}
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", allowed(method))
			s.cors(w, r, method)
			s.writeError(w, r, errs.Errorf(codeMethod, "%s %s is not allowed", r.Method, r.URL.Path).WithHint("%s %s", method, r.URL.Path))
			return
		}
		if !s.cors(w, r, method) {
			s.writeError(w, r, errs.Errorf(codeForbidden, "origin %s may not %s %s: this server allows no web page to make it work", errs.Quote(r.Header.Get("Origin")), method, r.URL.Path).
				WithHint("cudb serve --allow-origin %s (or send the request without an Origin header, as curl does)", originHint(r.Header.Get("Origin"))))
			return
		}
		if err := checkQuery(r.URL.RawQuery); err != nil {
			s.writeError(w, r, err)
			return
		}
		budget := orDefault(s.Budget, DefaultBudget)
		ctx, cancel := context.WithTimeout(r.Context(), budget)
		defer cancel()
		err := h(w, r.WithContext(ctx))
		if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && r.Context().Err() == nil {
			err = errs.Errorf(codeUnavailable, "the request ran past the server's work budget of %s", budget).
				WithHint("send a smaller report, or fewer requirements")
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// Serve answers on ln until ctx ends, then shuts down gracefully: new
// connections are refused and requests in flight get ShutdownGrace to
// finish. Requests still running after it are cancelled and their
// connections closed; that is still a clean stop (nil), as a signal
// asked for it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	reqCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	lim := newConnLimiter(ln, orDefaultInt(s.MaxConns, DefaultMaxConns), orDefaultInt(s.MaxConnsPerClient, DefaultMaxConnsPerClient), s.logf)
	ln = lim
	srv := &http.Server{
		ConnState:         lim.connState,
		Handler:           s.Handler(),
		ReadHeaderTimeout: orDefault(s.ReadHeaderTimeout, 5*time.Second),
		ReadTimeout:       orDefault(s.ReadTimeout, 15*time.Second),
		WriteTimeout:      orDefault(s.WriteTimeout, 30*time.Second),
		IdleTimeout:       orDefault(s.IdleTimeout, 120*time.Second),
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace := orDefault(s.ShutdownGrace, DefaultShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("failed to shut down: %w", err)
		}
		cancelRequests()
		srv.Close()
		s.logf("shutdown: requests still running after %s were cancelled", grace)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func orDefaultInt(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// withHeavy runs f, which may hold a worker for a whole budget, with at
// most cap(s.heavy) such requests at a time.
func (s *Server) withHeavy(ctx context.Context, f func(d *usecase.DB) error) error {
	select {
	case s.heavy <- struct{}{}:
		defer func() { <-s.heavy }()
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.withDB(ctx, f)
}

// withDB runs f on the database once a worker is free.
func (s *Server) withDB(ctx context.Context, f func(d *usecase.DB) error) error {
	if s.DB == nil {
		return errors.New("the server has no database")
	}
	select {
	case s.workers <- struct{}{}:
		defer func() { <-s.workers }()
		return f(s.DB)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// encodeJSON encodes v exactly as the CLI's --json does (two-space
// indent, no HTML escaping, trailing newline), so bodies match
// `cudb ... --json` byte for byte.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("failed to encode the answer: %w", err)
	}
	return buf.Bytes(), nil
}

const jsonType = "application/json; charset=utf-8"

// send writes resp. The header keys are written in canonical form
// directly (Header.Set would canonicalise each one on every request).
func (s *Server) send(w http.ResponseWriter, resp *response) {
	h, v := w.Header(), resp.headerValues()
	h["Content-Type"] = v.contentType
	h["X-Content-Type-Options"] = nosniff
	if v.etag != nil {
		h["Etag"] = v.etag
	}
	h["Cache-Control"] = v.cacheControl
	h["Content-Length"] = v.length
	w.WriteHeader(resp.status)
	w.Write(resp.body)
}

func (s *Server) sendJSON(w http.ResponseWriter, status int, v any) error {
	body, err := encodeJSON(v)
	if err != nil {
		return err
	}
	s.send(w, &response{status: status, contentType: jsonType, body: body})
	return nil
}

// errorResponse renders err as the JSON error body and its status.
func (s *Server) errorResponse(r *http.Request, err error) *response {
	qe, internal := asError(err)
	if internal {
		s.logf("error: %s %s: %v", r.Method, r.URL.Path, err)
	}
	body, encErr := encodeJSON(qe)
	if encErr != nil {
		body = []byte(`{"error": "internal error", "code": "internal"}` + "\n")
		qe = &errs.Error{Code: errs.CodeInternal}
	}
	return &response{status: statusOf[qe.Code], contentType: jsonType, body: body}
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.send(w, s.errorResponse(r, err))
}

// recoverPanics turns a panic into a logged 500 so one bad request cannot
// take the server down.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logf("panic: %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
			if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
				return // too late for a clean error; the client sees a cut body
			}
			s.send(w, &response{status: http.StatusInternalServerError, contentType: jsonType,
				body: []byte(`{"error": "internal error", "code": "internal"}` + "\n")})
		}()
		next.ServeHTTP(w, r)
	})
}

// statusWriter remembers the status and size for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// logRequests writes one line per request: method, path, status,
// duration, body size.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if s.Log == nil {
				return
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			uri := r.URL.RequestURI()
			if len(uri) > 300 {
				uri = uri[:300] + "..."
			}
			s.logLine(r.Method, uri, status, time.Since(start).Round(time.Microsecond), sw.bytes)
		}()
		next.ServeHTTP(sw, r)
	})
}

func (s *Server) logf(format string, args ...any) {
	if s.Log == nil {
		return
	}
	s.writeLog(fmt.Appendf(nil, format, args...))
}

// logLine writes the request log's line ("GET /v1/... 200 1.2ms 345B")
// without fmt: it is written once per request.
func (s *Server) logLine(method, uri string, status int, took time.Duration, size int) {
	b := make([]byte, 0, len(method)+len(uri)+32)
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, uri...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, took.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, 'B')
	s.writeLog(b)
}

// writeLog writes one line, dropping carriage returns so a request cannot
// forge a log line.
func (s *Server) writeLog(line []byte) {
	if s.Log == nil {
		return
	}
	if bytes.IndexByte(line, '\r') >= 0 {
		line = bytes.ReplaceAll(line, []byte("\r"), nil)
	}
	line = append(line, '\n')
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.Log.Write(line)
}
