package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

func TestLRUBounds(t *testing.T) {
	c := newLRU(3, 1000)
	for i := 0; i < 5; i++ {
		c.add(fmt.Sprint(i), &response{body: []byte("x")})
	}
	if c.len() != 3 {
		t.Fatalf("entries = %d, want 3", c.len())
	}
	if _, ok := c.get("0"); ok {
		t.Error("the oldest entry survived")
	}
	c.get("2") // now most recent
	c.add("5", &response{body: []byte("x")})
	if _, ok := c.get("2"); !ok {
		t.Error("a recently used entry was evicted")
	}
	// Bytes bound: entries of ~200 bytes in a 1000-byte cache.
	c = newLRU(100, 1000)
	for i := 0; i < 20; i++ {
		c.add(fmt.Sprint(i), &response{body: make([]byte, 200)})
	}
	if c.bytes > 1000 || c.len() > 5 {
		t.Errorf("bytes %d, entries %d over the bound", c.bytes, c.len())
	}
	c.add("huge", &response{body: make([]byte, 600)})
	if _, ok := c.get("huge"); ok {
		t.Error("an answer over a quarter of the bound was cached")
	}
	var nilCache *lru
	nilCache.add("k", &response{})
	if _, ok := nilCache.get("k"); ok {
		t.Error("a disabled cache answered")
	}
}

// FuzzResolveQuery: no query string makes the server panic or answer 500,
// and every answer is JSON.
func FuzzResolveQuery(f *testing.F) {
	for _, s := range []string{"req=torch==2.1", "req=torch&req=tensorflow==2.14.0", "req=torch%3E%3D2,%3C3&cuda=12", "req=", "req=torch&pre=x",
		"req=torch[cuda]==2.1&python=3.11&platform=linux", "req=cudnn==8.9", "req=torch&limit=99999999999999999999", "%zz", "req=torch==2.1.0%2Bcu121"} {
		f.Add(s)
	}
	s := &Server{DB: querytest.Open(f)}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/resolve", nil)
		r.URL.RawQuery = raw
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%q: status %d: %s", raw, w.Code, w.Body)
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%q: body is not JSON: %s", raw, w.Body)
		}
	})
}

// A panic in a handler is a logged 500 with a JSON body that names no
// internals, and the server lives on.
func TestPanicIsA500(t *testing.T) {
	var log strings.Builder
	s := &Server{DB: querytest.Open(t), Log: &log}
	h := s.logRequests(s.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("verify exploded") })))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/verify", nil))
	if w.Code != 500 || !json.Valid(w.Body.Bytes()) || strings.Contains(w.Body.String(), "exploded") {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if !strings.Contains(log.String(), "panic: POST /v1/verify: verify exploded") || !strings.Contains(log.String(), "POST /v1/verify 500 ") {
		t.Errorf("log: %s", log.String())
	}
	w = httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if w.Code != 200 {
		t.Errorf("healthz after a panic: %d", w.Code)
	}
}
