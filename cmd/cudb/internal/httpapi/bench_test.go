package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

// The handler alone (no network): what one resolve costs with and
// without the answer cache. docs/benchmarks.md records the numbers.
func benchResolve(b *testing.B, cacheEntries int) {
	s := &Server{DB: querytest.Open(b), CacheEntries: cacheEntries}
	h := s.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest(http.MethodGet, "/v1/resolve?req=torch==2.1&cuda=12.1", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body)
		}
	}
}

func BenchmarkResolveCached(b *testing.B)   { benchResolve(b, 0) }
func BenchmarkResolveUncached(b *testing.B) { benchResolve(b, -1) }
