package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
)

// BenchmarkVerifyWorst is POST /v1/verify with WorstVerifyBody on the
// real (embedded) database, uncached: docs/benchmarks.md records that
// it stays under a second.
func BenchmarkVerifyWorst(b *testing.B) {
	d, err := db.OpenImage(b.Context(), data.DB, data.Columns, "embedded database")
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	h := (&Server{DB: d, CacheEntries: -1}).Handler()
	body := WorstVerifyBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest(http.MethodPost, "/v1/verify", bytes.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK && w.Code != http.StatusConflict {
			b.Fatal(w.Code, w.Body)
		}
	}
}
