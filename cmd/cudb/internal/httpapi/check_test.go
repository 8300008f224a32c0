package httpapi_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
)

// POST /v1/check is `cudb check FILE --json` over HTTP: the same report
// byte for byte (but for where the target came from), 409 when a finding
// is an error, 400 for an unknown parameter or a body check cannot read.
func TestCheckEndpoint(t *testing.T) {
	path := testDBPath(t)
	base := start(t, &httpapi.Server{DB: openDB(t, path), Version: "dev"})
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "query", "check", "testdata", "peer", "Dockerfile.valid"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "Dockerfile")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, driver := range []string{"535.104.05", "470.82.01"} {
		want, code := cliJSON(t, path, "check", file, "--driver", driver, "--sm", "8.9")
		q := url.Values{"name": {file}, "driver": {driver}, "sm": {"8.9"}}
		r := do(t, "POST", base+"/v1/check?"+q.Encode(), "text/plain", strings.NewReader(string(src)))
		wantStatus := 200
		if code == 3 {
			wantStatus = 409
		}
		// Only where the target came from differs.
		got := strings.NewReplacer(`"from": "request"`, `"from": "flags"`, "(request)", "(flags)").Replace(r.body)
		if r.status != wantStatus || got != want {
			t.Errorf("driver %s: %d (want %d)\n%s\nwant\n%s", driver, r.status, wantStatus, r.body, want)
		}
	}
	if r := do(t, "POST", base+"/v1/check?cuda=12.1", "text/plain", strings.NewReader(string(src))); r.status != 400 || errorBody(t, r).Hint == "" {
		t.Errorf("unknown parameter: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", base+"/v1/check", "text/plain", strings.NewReader("hello world\n")); r.status != 400 {
		t.Errorf("unreadable body: %d %s", r.status, r.body)
	}
	if r := get(t, base+"/v1/check"); r.status != 405 {
		t.Errorf("GET: %d", r.status)
	}
}
