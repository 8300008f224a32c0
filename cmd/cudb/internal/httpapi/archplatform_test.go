package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/query/querytest"
)

// The API answers per platform with the same arch judgement as the CLI
// (embedded data): torch 2.8.0+cu128 has no Pascal kernels on Linux (404)
// and no known Windows list (200, the stack unknown, the gap named).
func TestResolveArchPerPlatform(t *testing.T) {
	h := (&httpapi.Server{DB: querytest.Embedded(t)}).Handler()
	get := func(plat string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/resolve?req=torch%3D%3D2.8.0&cuda=12.8&sm=6.1&platform="+plat, nil))
		return w
	}
	if w := get("linux"); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "not among the kernels") {
		t.Errorf("linux: %d %s", w.Code, w.Body)
	}
	w := get("windows")
	var res struct {
		Stacks []struct {
			Status string `json:"status"`
			GPU    struct {
				Support, Detail string
			} `json:"gpu"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &res); w.Code != http.StatusOK || err != nil {
		t.Fatalf("windows: %d %s (%v)", w.Code, w.Body, err)
	}
	if len(res.Stacks) != 1 || res.Stacks[0].Status != "unknown" || res.Stacks[0].GPU.Support != "unknown" ||
		res.Stacks[0].GPU.Detail != "no Windows arch list is known for torch 2.8.0+cu128" {
		t.Errorf("windows: %s", w.Body)
	}
}

// An unknown Python range is an unknown answer over HTTP too (200, the
// gap named), as on the command line.
func TestResolveUnknownPythonRange(t *testing.T) {
	h := (&httpapi.Server{DB: querytest.Embedded(t)}).Handler()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/resolve?req=onnxruntime-gpu%3D%3D1.18.0&python=3.12", nil))
	var res struct {
		Status  string   `json:"status"`
		Unknown []string `json:"unknown"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &res); w.Code != http.StatusOK || err != nil {
		t.Fatalf("%d %s (%v)", w.Code, w.Body, err)
	}
	if res.Status != "unknown" || !strings.Contains(strings.Join(res.Unknown, "\n"), "the Python range of this build is not in the data") {
		t.Errorf("%s", w.Body)
	}
}
