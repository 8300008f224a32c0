package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newClient points a client at srv with no real waiting.
func newClient(srv *httptest.Server, slept *[]time.Duration) *Client {
	return &Client{
		HTTP:    srv.Client(),
		BaseURL: srv.URL,
		Timeout: 2 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error {
			if slept != nil {
				*slept = append(*slept, d)
			}
			return nil
		},
		Jitter: func() float64 { return 0 },
	}
}

func TestGetRewritesURLAndSendsUserAgent(t *testing.T) {
	var gotPath, gotUA string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotUA = r.URL.RequestURI(), r.UserAgent()
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	c := newClient(srv, nil)
	c.UserAgent = UserAgent("1.2.3")
	b, err := c.Get(context.Background(), "https://docs.example.invalid/a/b.html?x=1")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "hello" || gotPath != "/a/b.html?x=1" {
		t.Fatalf("body %q path %q", b, gotPath)
	}
	if gotUA != "cudb-refresh/1.2.3 (+https://github.com/cudb/cudb)" {
		t.Fatalf("user agent %q", gotUA)
	}
}

func TestGetRetries5xxThenSucceeds(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var slept []time.Duration
	c := newClient(srv, &slept)
	c.Backoff = 100 * time.Millisecond
	b, err := c.Get(context.Background(), "http://x/p")
	if err != nil || string(b) != "ok" {
		t.Fatalf("got %q, %v", b, err)
	}
	if n.Load() != 3 {
		t.Fatalf("%d requests, want 3", n.Load())
	}
	// exponential: 100ms then 200ms (jitter 0)
	if len(slept) != 2 || slept[0] != 100*time.Millisecond || slept[1] != 200*time.Millisecond {
		t.Fatalf("slept %v", slept)
	}
}

func TestGetHonoursRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var slept []time.Duration
	c := newClient(srv, &slept)
	if _, err := c.Get(context.Background(), "http://x/p"); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 7*time.Second {
		t.Fatalf("slept %v, want [7s]", slept)
	}
}

func TestGetJitterIsBounded(t *testing.T) {
	c := &Client{Backoff: time.Second, MaxBackoff: 4 * time.Second, Jitter: func() float64 { return 0.999 }}
	for retry, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 9: 4 * time.Second} {
		d := c.delay(retry, nil)
		if d < want || d > want+want/2 {
			t.Errorf("retry %d: delay %s outside [%s, %s]", retry, d, want, want+want/2)
		}
	}
}

func TestGetDoesNotRetry404(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	_, err := newClient(srv, nil).Get(context.Background(), "http://x/missing")
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 404 || n.Load() != 1 {
		t.Fatalf("err %v after %d requests", err, n.Load())
	}
}

func TestGetGivesUpAfterAttempts(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	c := newClient(srv, nil)
	c.Attempts = 3
	_, err := c.Get(context.Background(), "http://x/p")
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || n.Load() != 3 {
		t.Fatalf("err %v after %d requests", err, n.Load())
	}
}

func TestGetTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newClient(srv, nil)
	c.Timeout = 50 * time.Millisecond
	c.Attempts = 2
	_, err := c.Get(context.Background(), "http://x/slow")
	if err == nil || !IsTimeout(err) {
		t.Fatalf("want a timeout, got %v", err)
	}
}

func TestGetTruncatedBody(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("only part of the page"))
		// returning closes the connection short of the declared length
	}))
	defer srv.Close()
	c := newClient(srv, nil)
	c.Attempts = 2
	b, err := c.Get(context.Background(), "http://x/p")
	if !errors.Is(err, ErrTruncated) || b != nil {
		t.Fatalf("want ErrTruncated and no body, got %q, %v", b, err)
	}
	if n.Load() != 2 {
		t.Fatalf("a truncated body is transient: want 2 attempts, got %d", n.Load())
	}
}

func TestGetSizeCap(t *testing.T) {
	big := strings.Repeat("x", 2048)
	for _, declared := range []bool{true, false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !declared {
				w.(http.Flusher).Flush() // chunked: no Content-Length
			}
			w.Write([]byte(big))
		}))
		c := newClient(srv, nil)
		c.MaxBytes = 1024
		b, err := c.Get(context.Background(), "http://x/big")
		srv.Close()
		if !errors.Is(err, ErrTooLarge) || b != nil {
			t.Fatalf("declared=%v: want ErrTooLarge and no body, got %d bytes, %v", declared, len(b), err)
		}
	}
}

func TestGetConditional(t *testing.T) {
	var full, notModified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") == "Mon, 02 Jan 2006 15:04:05 GMT" {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		w.Write([]byte("page v1"))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), ".fetch-cache.json")
	c := newClient(srv, nil)
	fc := LoadFileCache(path)
	c.Cache = fc
	if b, err := c.Get(context.Background(), "http://x/p"); err != nil || string(b) != "page v1" {
		t.Fatalf("first get %q %v", b, err)
	}
	if err := fc.Save(); err != nil {
		t.Fatal(err)
	}
	// a new run loads the validators from disk
	c.Cache = LoadFileCache(path)
	if b, err := c.Get(context.Background(), "http://x/p"); err != nil || string(b) != "page v1" {
		t.Fatalf("conditional get %q %v", b, err)
	}
	if full.Load() != 1 || notModified.Load() != 1 {
		t.Fatalf("full %d, 304 %d", full.Load(), notModified.Load())
	}
}

func TestGetStopsOnCancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c := newClient(srv, nil)
	c.Sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	if _, err := c.Get(ctx, "http://x/p"); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"soon":                          0,
		"Mon, 01 Jan 2024 00:00:10 GMT": 10 * time.Second,
		"Mon, 01 Jan 2023 00:00:10 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}
