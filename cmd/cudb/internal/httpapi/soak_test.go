package httpapi_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/host/report"
)

var (
	soakFor      = flag.Duration("soak", 0, "run TestSoak for this long (make soak: 5m; 0 skips it)")
	soakRequests = flag.Int64("soak.requests", 5_000_000, "stop TestSoak after this many requests")
	soakConns    = flag.Int("soak.c", 4, "TestSoak's client connections")
)

// soakReq is one kind of request in the soak's mix.
type soakReq struct {
	class  string
	weight int
	ok     []int // statuses that are the right answer; nil: the client hangs up
	make   func(i int) *http.Request
}

// TestSoak drives an in-process server on loopback with mixed traffic,
// hostile bodies included, for -soak (make soak), and reports
// throughput, latency percentiles per class and memory. It fails on any
// wrong status, a /healthz that is not 200, or memory that keeps growing.
func TestSoak(t *testing.T) {
	if *soakFor == 0 {
		t.Skip("make soak runs it (-soak 5m)")
	}
	ctx := context.Background()
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded database")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	srv := &httpapi.Server{DB: d}
	base := start(t, srv)
	mix := soakMix(t, base)

	var wheel []int
	for i, m := range mix {
		for w := 0; w < m.weight; w++ {
			wheel = append(wheel, i)
		}
	}
	type stat struct {
		mu   sync.Mutex
		lat  []time.Duration
		bad  int
		note string
	}
	stats := make([]*stat, len(mix))
	for i := range stats {
		stats[i] = &stat{}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *soakConns, DisableCompression: true}}
	defer client.CloseIdleConnections()
	var sent atomic.Int64
	runCtx, cancel := context.WithTimeout(ctx, *soakFor)
	defer cancel()
	goroutines := runtime.NumGoroutine()

	var health struct {
		mu       sync.Mutex
		n, bad   int
		max      time.Duration
		firstBad string
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // /healthz every 100 ms, on its own connection
		defer wg.Done()
		hc := &http.Client{Timeout: 5 * time.Second}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for runCtx.Err() == nil {
			t0 := time.Now()
			resp, err := hc.Get(base + "/healthz")
			d := time.Since(t0)
			health.mu.Lock()
			health.n++
			health.max = max(health.max, d)
			if err != nil || resp.StatusCode != 200 {
				health.bad++
				if health.firstBad == "" {
					health.firstBad = fmt.Sprint(err, resp)
				}
			}
			health.mu.Unlock()
			if resp != nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			select {
			case <-runCtx.Done():
			case <-tick.C:
			}
		}
	}()
	began := time.Now()
	for w := 0; w < *soakConns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; runCtx.Err() == nil && sent.Add(1) <= *soakRequests; i++ {
				k := wheel[rng.IntN(len(wheel))]
				m, st := mix[k], stats[k]
				req := m.make(rng.IntN(1 << 20))
				var cancelReq context.CancelFunc
				if m.ok == nil {
					var rctx context.Context
					rctx, cancelReq = context.WithTimeout(runCtx, 20*time.Millisecond)
					req = req.WithContext(rctx)
				} else {
					req = req.WithContext(runCtx)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				d := time.Since(t0)
				if cancelReq != nil {
					cancelReq()
				}
				if runCtx.Err() != nil {
					return
				}
				st.mu.Lock()
				st.lat = append(st.lat, d)
				if m.ok != nil && !slices.Contains(m.ok, status) {
					st.bad++
					if st.note == "" {
						st.note = fmt.Sprintf("%s %s: status %d (%v)", req.Method, req.URL.RequestURI(), status, err)
					}
				}
				st.mu.Unlock()
			}
		}(w)
	}
	var heap, rss []float64
	tick := time.NewTicker(time.Second)
	for runCtx.Err() == nil && sent.Load() < *soakRequests {
		select {
		case <-tick.C:
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap = append(heap, float64(ms.HeapAlloc)/(1<<20))
			rss = append(rss, rssMiB())
		case <-runCtx.Done():
		}
	}
	tick.Stop()
	cancel()
	wg.Wait()
	elapsed := time.Since(began)

	var all []time.Duration
	var total int64
	fmt.Printf("soak: %s, %d connections, GOMAXPROCS %d (one worker each), real embedded database\n", elapsed.Round(time.Second), *soakConns, runtime.GOMAXPROCS(0))
	fmt.Printf("%-22s %9s %10s %10s %10s %6s\n", "class", "requests", "p50", "p99", "max", "wrong")
	for i, m := range mix {
		st := stats[i]
		all = append(all, st.lat...)
		total += int64(len(st.lat))
		p50, p99, mx := pct(st.lat, 0.5), pct(st.lat, 0.99), pct(st.lat, 1)
		fmt.Printf("%-22s %9d %10s %10s %10s %6d\n", m.class, len(st.lat), p50, p99, mx, st.bad)
		if st.bad > 0 {
			t.Errorf("%s: %d wrong answers, first: %s", m.class, st.bad, st.note)
		}
	}
	fmt.Printf("total: %d requests, %.0f req/s, p50 %s, p99 %s, max %s\n", total, float64(total)/elapsed.Seconds(), pct(all, 0.5), pct(all, 0.99), pct(all, 1))
	fmt.Printf("healthz: %d probes, %d not 200, slowest %s\n", health.n, health.bad, health.max.Round(time.Microsecond))
	fmt.Printf("live heap MiB: %s\nRSS MiB: %s\n", series(heap), series(rss))
	if health.bad > 0 {
		t.Errorf("healthz failed %d times, first: %s", health.bad, health.firstBad)
	}
	// Memory: after the first minute the live heap must not keep
	// growing (the answer cache is bounded at 64 MiB).
	if n := len(heap); n > 90 {
		early, late := maxOf(heap[30:60]), maxOf(heap[n-30:])
		if late > early+64 {
			t.Errorf("live heap grew from %.1f to %.1f MiB", early, late)
		}
	}
	client.CloseIdleConnections()
	// Closed connections' goroutines end on their own time: watch the
	// count settle (at most 5 s) rather than guess a pause.
	settled := time.After(5 * time.Second)
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for g := runtime.NumGoroutine(); g > goroutines+20; g = runtime.NumGoroutine() {
		select {
		case <-poll.C:
			continue
		case <-settled:
			t.Errorf("goroutines: %d before, %d after", goroutines, g)
		}
		break
	}
}

func soakMix(t *testing.T, base string) []soakReq {
	get := func(path string) func(int) *http.Request {
		return func(int) *http.Request { r, _ := http.NewRequest("GET", base+path, nil); return r }
	}
	post := func(path string, body []byte, origin string) func(int) *http.Request {
		return func(int) *http.Request {
			r, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
			r.Header.Set("Content-Type", "text/plain")
			if origin != "" {
				r.Header.Set("Origin", origin)
			}
			return r
		}
	}
	var reports [][]byte
	for _, f := range []string{"collect_env_new.txt", "smi_banner.txt", "pip_list.txt", "mixed_paste.txt", "probe.json", "errors_only.txt"} {
		reports = append(reports, []byte(readTestdata(t, f)))
	}
	var lines strings.Builder
	for i := 0; i <= report.MaxErrors; i++ {
		fmt.Fprintf(&lines, "RuntimeError: The NVIDIA driver on your system is too old (found version %d)\n", 10000+i)
	}
	worst := httpapi.WorstVerifyBody()
	// An ETag to revalidate with.
	resp, err := http.Get(base + "/v1/resolve?req=torch==2.1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	answers := []int{200, 404, 409}
	return []soakReq{
		{"resolve (cached)", 30, answers, func(i int) *http.Request {
			qs := []string{"req=torch==2.1", "req=torch==2.1&cuda=12.1", "req=tensorflow==2.15.0", "req=jax", "req=torch&req=tensorflow", "req=onnxruntime-gpu"}
			return get("/v1/resolve?" + qs[i%len(qs)])(i)
		}},
		{"resolve (uncached)", 10, append(answers, 400), func(i int) *http.Request {
			return get(fmt.Sprintf("/v1/resolve?req=torch&cuda=12.%d&python=3.%d&driver=5%02d.%d", i%9, 8+i%5, 25+i%50, i%200))(i)
		}},
		{"matrix, meta", 5, []int{200}, func(i int) *http.Request {
			return get([]string{"/v1/matrix/torch", "/v1/meta", "/v1/matrix/cuda"}[i%3])(i)
		}},
		{"pin", 5, answers, get("/v1/pin?req=torch==2.1&format=pip")},
		{"revalidate (304)", 3, []int{304}, func(i int) *http.Request {
			r := get("/v1/resolve?req=torch==2.1")(i)
			r.Header.Set("If-None-Match", etag)
			return r
		}},
		{"verify (reports)", 10, []int{200, 409}, func(i int) *http.Request {
			return post("/v1/verify", reports[i%len(reports)], "")(i)
		}},
		{"explain", 5, []int{200}, post("/v1/explain", []byte("RuntimeError: CUDA error: no kernel image is available for execution on the device"), "")},
		{"verify (worst body)", 1, []int{200, 409}, post("/v1/verify", worst, "")},
		{"hostile: hang-up", 1, nil, post("/v1/verify", worst, "")},
		{"hostile: 413 body", 2, []int{413}, post("/v1/verify", bytes.Repeat([]byte("x"), httpapi.MaxBody+1), "")},
		{"hostile: 422 errors", 2, []int{422}, post("/v1/verify", []byte(lines.String()), "")},
		{"hostile: 400 query", 3, []int{400}, func(i int) *http.Request {
			return get([]string{"/v1/resolve?req=torch%zz", "/v1/resolve?req=torch&cuda=11.8;", "/v1/resolve?req=" + strings.Repeat("9", 5000)}[i%3])(i)
		}},
		{"hostile: 403 origin", 2, []int{403}, post("/v1/explain", []byte("no kernel image"), "https://evil.example")},
	}
}

func pct(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q * float64(len(s)-1))
	return s[i].Round(10 * time.Microsecond)
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func series(v []float64) string {
	if len(v) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("first %.1f, max %.1f, last %.1f over %d samples", v[0], maxOf(v), v[len(v)-1], len(v))
}

// rssMiB is this process's resident set (server and clients together).
func rssMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
