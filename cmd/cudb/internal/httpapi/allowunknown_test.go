package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/query/querytest"
)

// TestPinAllowUnknown: /v1/pin refuses a stack cudb cannot vouch for
// (torch 2.4.0 cu124, whose nvidia-* pins the data lacks) with a 404
// whose hint names the API's allow_unknown, and with allow_unknown=true
// answers the file `cudb pin --allow-unknown` writes, the gap in its
// header.
func TestPinAllowUnknown(t *testing.T) {
	base := start(t, &httpapi.Server{DB: querytest.Embedded(t), Log: &syncBuffer{}, Version: "dev"})

	r := get(t, base+"/v1/pin?req=torch==2.4.0&cuda=12.4&format=requirements")
	e := errorBody(t, r)
	if r.status != http.StatusNotFound || !strings.Contains(e.Message, "cannot vouch for") ||
		!strings.HasPrefix(e.Hint, "GET /v1/pin?req=torch==2.4.0&cuda=12.4&format=requirements&allow_unknown=true to write it anyway") ||
		!strings.Contains(e.Hint, "GET /v1/resolve?req=torch==2.4.0 ") || strings.Contains(e.Hint, "--allow-unknown") {
		t.Errorf("refusal: %d %+v", r.status, e)
	}
	// allow_unknown=false is the refusal too, and the hint replaces it.
	r = get(t, base+"/v1/pin?allow_unknown=false&req=torch==2.4.0&cuda=12.4")
	if e := errorBody(t, r); r.status != http.StatusNotFound || !strings.HasPrefix(e.Hint, "GET /v1/pin?req=torch==2.4.0&cuda=12.4&allow_unknown=true ") {
		t.Errorf("allow_unknown=false: %d %+v", r.status, e)
	}

	s, out, errOut := cli.TestStreams("")
	if code := app.Main([]string{"pin", "torch==2.4.0", "--cuda", "12.4", "--allow-unknown", "-q"}, s); code != 0 {
		t.Fatalf("cudb pin --allow-unknown: exit %d: %s", code, errOut)
	}
	for _, v := range []string{"allow_unknown=true", "allow_unknown", "allow_unknown=1"} {
		r = get(t, base+"/v1/pin?req=torch==2.4.0&cuda=12.4&format=requirements&"+v)
		if r.status != http.StatusOK || r.body != out.String() {
			t.Errorf("%s: %d\n%s\nwant the CLI's\n%s", v, r.status, r.body, out.String())
		}
	}
	if !strings.Contains(out.String(), "# UNKNOWN (written with --allow-unknown): torch 2.4.0 cu124: the wheel's nvidia-* requirements") {
		t.Errorf("the file does not name the gap:\n%s", out)
	}
	// A known-good stack is the same file with or without it.
	a := get(t, base+"/v1/pin?req=torch==2.1.0&cuda=12.1&format=requirements")
	b := get(t, base+"/v1/pin?req=torch==2.1.0&cuda=12.1&format=requirements&allow_unknown=false")
	if a.status != 200 || a.body != b.body {
		t.Errorf("known-good: %d %d", a.status, b.status)
	}
	if r := get(t, base+"/v1/pin?req=torch==2.4.0&cuda=12.4&allow_unknown=maybe"); r.status != http.StatusBadRequest {
		t.Errorf("allow_unknown=maybe: %d %s", r.status, r.body)
	}
	// resolve takes no allow_unknown: it reports unknown stacks anyway.
	if r := get(t, base+"/v1/resolve?req=torch==2.4.0&allow_unknown=true"); r.status != http.StatusBadRequest {
		t.Errorf("resolve allow_unknown: %d", r.status)
	}
}

// TestEveryTorchStackResolveAndPinAgreeOverHTTP: the API's walk of the
// torch matrix: /v1/resolve's ok is /v1/pin's 200, its unknown is pin's
// 404 without allow_unknown and 200 with it (the CLI's walk is in app).
func TestEveryTorchStackResolveAndPinAgreeOverHTTP(t *testing.T) {
	base := start(t, &httpapi.Server{DB: querytest.Embedded(t), Log: &syncBuffer{}, Version: "dev"})
	var rows []struct {
		Torch, Variant, Channel, Status string
	}
	if r := get(t, base+"/v1/matrix/torch"); r.status != 200 || json.Unmarshal([]byte(r.body), &rows) != nil {
		t.Fatalf("matrix: %d %.200s", r.status, r.body)
	}
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Status != "" || row.Variant == "" || row.Channel != "pip" || seen[row.Torch+row.Variant] {
			continue
		}
		seen[row.Torch+row.Variant] = true
		q := "req=torch==" + row.Torch + "&variant=" + row.Variant
		var res struct{ Status string }
		if r := get(t, base+"/v1/resolve?"+q); r.status != 200 || json.Unmarshal([]byte(r.body), &res) != nil {
			t.Errorf("%s: resolve %d", q, r.status)
			continue
		}
		counts[res.Status]++
		p := get(t, base+"/v1/pin?"+q)
		switch res.Status {
		case "ok":
			if p.status != 200 {
				t.Errorf("%s: resolve ok, pin %d", q, p.status)
			}
		case "unknown":
			if p.status != http.StatusNotFound || !strings.Contains(errorBody(t, p).Hint, "allow_unknown=true") {
				t.Errorf("%s: resolve unknown, pin %d %s", q, p.status, p.body)
			}
			if a := get(t, base+"/v1/pin?"+q+"&allow_unknown=true"); a.status != 200 {
				t.Errorf("%s: pin allow_unknown %d", q, a.status)
			}
		default:
			t.Errorf("%s: status %q", q, res.Status)
		}
	}
	if counts["ok"] < 100 || counts["unknown"] == 0 {
		t.Errorf("walked %v", counts)
	}
}
