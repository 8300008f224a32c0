// Command loadgen drives `cudb serve`'s /v1/resolve on loopback and
// reports requests/s, latency percentiles and memory over the run; the
// numbers in docs/benchmarks.md come from it.
//
//	go run ./cmd/cudb/internal/loadgen -duration 60s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/querytest"
)

// Config is one load run.
type Config struct {
	DBPath      string        // "" = the query test fixture, written to a temporary file
	Paths       []string      // requested in turn by every worker
	Concurrency int           // client connections (keep-alive)
	Duration    time.Duration // stop after this long
	MaxRequests int64         // or after this many (0 = no cap)
	Workers     int           // requests the server answers at once (0 = GOMAXPROCS)
	NoCache     bool          // measure the query path, not the cache
	Log         io.Writer     // request log; nil discards
}

// Result is what a run measured.
type Result struct {
	Requests  int64
	Errors    int64
	Elapsed   time.Duration
	P50, P99  time.Duration
	Max       time.Duration
	HeapMiB   []float64 // live heap sampled every second (after the run's warm-up)
	GOMAXPROC int
}

// RPS is requests per second.
func (r Result) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

var defaultPaths = []string{
	"/v1/resolve?req=torch==2.1",
	"/v1/resolve?req=torch==2.1&cuda=12.1",
	"/v1/resolve?req=torch&python=3.11",
	"/v1/resolve?req=torch==2.3.1&req=tensorflow==2.17.0",
	"/v1/resolve?req=torch%3E%3D2,%3C2.3&platform=windows&limit=3",
	"/v1/resolve?req=tensorflow==2.16.1",
}

// histogram buckets latencies in 5 µs steps up to 50 ms (then one
// overflow bucket), so a 60 s run needs no per-request memory.
type histogram struct {
	counts [10001]int64
	max    time.Duration
}

const bucket = 5 * time.Microsecond

func (h *histogram) add(d time.Duration) {
	i := int(d / bucket)
	if i >= len(h.counts) {
		i = len(h.counts) - 1
	}
	h.counts[i]++
	if d > h.max {
		h.max = d
	}
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if o.max > h.max {
		h.max = o.max
	}
}

func (h *histogram) quantile(q float64) time.Duration {
	var total int64
	for _, c := range h.counts {
		total += c
	}
	want := int64(q * float64(total))
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen > want {
			return time.Duration(i+1) * bucket
		}
	}
	return h.max
}

// Run starts a server on a loopback port and loads it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{GOMAXPROC: runtime.GOMAXPROCS(0)}
	path := cfg.DBPath
	if path == "" {
		dir, err := os.MkdirTemp("", "cudb-loadgen-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "cudb.db")
		srcs := []db.SourceInfo{{Name: "fixture", URL: "https://example.test/torch", SHA256: "x", Rows: 1}, {Name: "fixture-tf", URL: "https://example.test/tf", SHA256: "y", Rows: 1}}
		if err := db.Write(ctx, path, querytest.Facts(), srcs, nil); err != nil {
			return res, err
		}
	}
	d, err := db.OpenFile(ctx, path)
	if err != nil {
		return res, err
	}
	defer d.Close()
	srv := &httpapi.Server{DB: d, Workers: cfg.Workers, Log: cfg.Log}
	if cfg.NoCache {
		srv.CacheEntries = -1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() { stop(); <-served }()

	base := "http://" + ln.Addr().String()
	paths := cfg.Paths
	if len(paths) == 0 {
		paths = defaultPaths
	}
	conc := cfg.Concurrency
	if conc <= 0 {
		conc = 16
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true}}
	defer client.CloseIdleConnections()

	var sent, errs atomic.Int64
	var firstErr atomic.Value
	hists := make([]*histogram, conc)
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	began := time.Now()
	for w := 0; w < conc; w++ {
		hists[w] = &histogram{}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			h := hists[w]
			buf := make([]byte, 64<<10)
			for i := w; runCtx.Err() == nil; i++ {
				if cfg.MaxRequests > 0 && sent.Add(1) > cfg.MaxRequests {
					return
				}
				t0 := time.Now()
				resp, err := client.Get(base + paths[i%len(paths)])
				if err != nil {
					if runCtx.Err() == nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
					continue
				}
				for {
					if _, err := resp.Body.Read(buf); err != nil {
						break
					}
				}
				resp.Body.Close()
				h.add(time.Since(t0))
				// 409 is an answer too: frameworks that cannot share an
				// environment, with the conflict in the body.
				if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusConflict {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: status %d", paths[i%len(paths)], resp.StatusCode))
				}
			}
		}(w)
	}
	// Sample the live heap once a second (GC'd first, so the number is
	// what the process keeps, not garbage waiting for collection).
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			res.HeapMiB = append(res.HeapMiB, float64(ms.HeapAlloc)/(1<<20))
		}
	}
	res.Elapsed = time.Since(began)
	total := &histogram{}
	for _, h := range hists {
		total.merge(h)
	}
	for _, c := range total.counts {
		res.Requests += c
	}
	res.Errors = errs.Load()
	res.P50, res.P99, res.Max = total.quantile(0.50), total.quantile(0.99), total.max
	if res.Errors > 0 {
		return res, fmt.Errorf("%d failed requests, first: %v", res.Errors, firstErr.Load())
	}
	return res, nil
}

func (r Result) String() string {
	heap := "n/a"
	if n := len(r.HeapMiB); n > 0 {
		s := append([]float64(nil), r.HeapMiB...)
		sort.Float64s(s)
		heap = fmt.Sprintf("first %.1f, last %.1f, min %.1f, max %.1f MiB over %d samples", r.HeapMiB[0], r.HeapMiB[n-1], s[0], s[n-1], n)
	}
	return fmt.Sprintf("requests %d in %s: %.0f req/s, p50 %s, p99 %s, max %s, errors %d, GOMAXPROCS %d\nlive heap: %s",
		r.Requests, r.Elapsed.Round(time.Millisecond), r.RPS(), r.P50, r.P99, r.Max.Round(time.Microsecond), r.Errors, r.GOMAXPROC, heap)
}

func main() {
	var cfg Config
	var paths string
	var logReqs bool
	flag.StringVar(&cfg.DBPath, "db", "", "database file (default: the query test fixture)")
	flag.StringVar(&paths, "paths", "", "comma-free list of request paths separated by spaces (default: a mix of resolve queries)")
	flag.IntVar(&cfg.Concurrency, "c", 16, "client connections")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long to run")
	flag.Int64Var(&cfg.MaxRequests, "n", 0, "stop after this many requests (0 = no cap)")
	flag.IntVar(&cfg.Workers, "workers", 0, "requests the server answers at once (0 = GOMAXPROCS)")
	flag.BoolVar(&cfg.NoCache, "nocache", false, "disable the answer cache (measure the query path)")
	flag.BoolVar(&logReqs, "log", false, "write the request log to stderr (as cudb serve does)")
	flag.Parse()
	if paths != "" {
		cfg.Paths = strings.Fields(paths)
	}
	if logReqs {
		cfg.Log = os.Stderr
	}
	res, err := Run(context.Background(), cfg)
	fmt.Println(res)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
