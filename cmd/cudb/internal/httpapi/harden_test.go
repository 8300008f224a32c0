package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/internal/host/report"
)

// Malformed query strings are 400s naming the parameter and the bad
// text, never answered as if the parameter were absent.
func TestMalformedParameters(t *testing.T) {
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t))})
	for _, tc := range []struct{ query, want string }{
		{"req=torch&cuda=11%zz8", `parameter "cuda": bad percent-encoding "%zz"`},
		{"req=torch&cuda=11.8;", `parameter "cuda" holds ';'`},
		{"req=torch&driver=450.%GG", `parameter "driver": bad percent-encoding "%GG"`},
		{"req=torch%zz", `parameter "req": bad percent-encoding "%zz"`},
		{"req=torch&cuda=12.1%", `bad percent-encoding "%"`},
		{"req%zz=torch", `bad percent-encoding "%zz" in a parameter name`},
		{"req=torch&gpu=T4%00", `parameter "gpu" holds a control character`},
		{"req=torch&cuda=", `parameter "cuda" is empty`},
		{"req=", `parameter "req" is empty`},
	} {
		r := get(t, base+"/v1/resolve?"+tc.query)
		if r.status != 400 {
			t.Errorf("%s: status %d: %s", tc.query, r.status, r.body)
			continue
		}
		if e := errorBody(t, r); e.Code != "usage" || !strings.Contains(e.Message, tc.want) || e.Hint == "" {
			t.Errorf("%s: %+v, want %q", tc.query, e, tc.want)
		}
	}
	// The same checks guard every endpoint.
	if r := get(t, base+"/v1/matrix/torch?x=%zz"); r.status != 400 {
		t.Errorf("matrix: %d %s", r.status, r.body)
	}
	huge := strings.Repeat("9", 5000)
	r := get(t, base+"/v1/resolve?req=torch&cuda="+huge)
	if e := errorBody(t, r); r.status != 400 || !strings.Contains(e.Message, "longer than 128 bytes") || len(r.body) > 600 {
		t.Errorf("5,000-digit cuda: %d %s", r.status, r.body)
	}
}

// Browsers: GET answers are public (CORS *), OPTIONS is answered, and no
// page can make the server work unless its origin is allowed.
func TestOriginsAndPreflight(t *testing.T) {
	path := testDBPath(t)
	closed := start(t, &httpapi.Server{DB: openDB(t, path)})
	open := start(t, &httpapi.Server{DB: openDB(t, path), AllowOrigins: []string{"https://tool.example"}})
	msg := "Torch not compiled with CUDA enabled"
	post := func(base, origin string) reply {
		req, _ := http.NewRequest("POST", base+"/v1/explain", strings.NewReader(msg))
		req.Header.Set("Content-Type", "text/plain")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		return send(t, req)
	}
	// curl and scripts send no Origin: served.
	if r := post(closed, ""); r.status != 200 {
		t.Errorf("no origin: %d %s", r.status, r.body)
	}
	// A page (any origin, "null" included) is refused by default.
	for _, o := range []string{"https://evil.example", "null", "http://127.0.0.1:8080"} {
		r := post(closed, o)
		if r.status != 403 || errorBody(t, r).Code != "forbidden_origin" || r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("origin %s: %d %v %s", o, r.status, r.header, r.body)
		}
	}
	r := post(open, "https://tool.example")
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://tool.example" || !strings.Contains(r.header.Get("Vary"), "Origin") {
		t.Errorf("allowed origin: %d %v", r.status, r.header)
	}
	if r := post(open, "https://evil.example"); r.status != 403 {
		t.Errorf("other origin on an open server: %d", r.status)
	}
	verify := readTestdata(t, "smi_banner.txt")
	req, _ := http.NewRequest("POST", closed+"/v1/verify", strings.NewReader(verify))
	req.Header.Set("Origin", "https://evil.example")
	if r := send(t, req); r.status != 403 {
		t.Errorf("verify from a page: %d", r.status)
	}

	preflight := func(base, path, origin, method string) reply {
		req, _ := http.NewRequest("OPTIONS", base+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", method)
		req.Header.Set("Access-Control-Request-Headers", "content-type")
		return send(t, req)
	}
	r = preflight(open, "/v1/explain", "https://tool.example", "POST")
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "https://tool.example" ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "POST") || !strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("preflight allowed: %d %v", r.status, r.header)
	}
	if r := preflight(closed, "/v1/verify", "https://evil.example", "POST"); r.status != 403 {
		t.Errorf("preflight refused: %d %v", r.status, r.header)
	}
	r = preflight(closed, "/v1/resolve?req=torch", "https://any.example", "GET")
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.header.Get("Allow"), "GET") {
		t.Errorf("preflight GET: %d %v", r.status, r.header)
	}
	if r := get(t, closed+"/v1/resolve?req=torch==2.1"); r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET lost CORS *: %v", r.header)
	}
}

// Answers that change only with the data carry Cache-Control and an
// ETag; sending the ETag back gets 304 with no body.
func TestCacheHeaders(t *testing.T) {
	path := testDBPath(t)
	base := start(t, &httpapi.Server{DB: openDB(t, path)})
	for _, u := range []string{"/v1/resolve?req=torch==2.1", "/v1/matrix/torch", "/v1/meta", "/v1/pin?req=torch==2.1&format=pip", "/v1/resolve?req=torch==9.9"} {
		r := get(t, base+u)
		tag := r.header.Get("ETag")
		if tag == "" || !strings.HasPrefix(tag, `"`) || !strings.Contains(r.header.Get("Cache-Control"), "max-age") {
			t.Errorf("%s: %v", u, r.header)
			continue
		}
		req, _ := http.NewRequest("GET", base+u, nil)
		req.Header.Set("If-None-Match", tag)
		if r2 := send(t, req); r2.status != 304 || r2.body != "" || r2.header.Get("ETag") != tag {
			t.Errorf("%s revalidated: %d %q", u, r2.status, r2.body)
		}
	}
	a, b := get(t, base+"/v1/resolve?req=torch==2.1"), get(t, base+"/v1/resolve?req=torch==2.1&cuda=12.1")
	if a.header.Get("ETag") == b.header.Get("ETag") {
		t.Error("two questions share an ETag")
	}
	// Another server over the same data gives the same tags.
	other := start(t, &httpapi.Server{DB: openDB(t, path)})
	if c := get(t, other+"/v1/resolve?req=torch==2.1"); c.header.Get("ETag") != a.header.Get("ETag") {
		t.Error("the ETag is not a function of the data and the question")
	}
	if r := get(t, base+"/healthz"); r.header.Get("ETag") != "" || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("healthz: %v", r.header)
	}
}

// Over a cap: 413 for the body, 422 for error lines, each naming the
// cap, before any judging.
func TestCaps(t *testing.T) {
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t))})
	var b strings.Builder
	for i := 0; i <= report.MaxErrors; i++ {
		fmt.Fprintf(&b, "RuntimeError: The NVIDIA driver on your system is too old (found version %d)\n", 10000+i)
	}
	r := do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader(b.String()))
	if e := errorBody(t, r); r.status != 422 || e.Code != "limit" || !strings.Contains(e.Message, fmt.Sprintf("at most %d", report.MaxErrors)) {
		t.Errorf("error lines: %d %s", r.status, r.body)
	}
	big := strings.Repeat("x", httpapi.MaxBody+1)
	r = do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader(big))
	if e := errorBody(t, r); r.status != 413 || !strings.Contains(e.Message, "256 KiB") {
		t.Errorf("body: %d %s", r.status, r.body)
	}
	// A probe JSON with more environments than are judged.
	var js strings.Builder
	js.WriteString(`{"origin":"host","pythons":[`)
	for i := 0; i <= report.MaxPythons; i++ {
		if i > 0 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, `{"executable":"/env%d/bin/python","kind":"venv","source":"x"}`, i)
	}
	js.WriteString("]}")
	r = do(t, "POST", base+"/v1/verify", "application/json", strings.NewReader(js.String()))
	if r.status != 422 || !strings.Contains(r.body, "Python environments") {
		t.Errorf("pythons: %d %s", r.status, r.body)
	}
}

// The worst body the server accepts is judged, /healthz answers 200 at
// once while two of them run on one handle, and the server's work is
// bounded by its budget.
func TestWorstBodyKeepsHealth(t *testing.T) {
	// Generous limits: this test is about health, and CI runs it under
	// -race, which makes the judgement ten times slower.
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t)), Budget: 5 * time.Minute, WriteTimeout: 5 * time.Minute})
	body := httpapi.WorstVerifyBody()
	statuses := make(chan string, 2)
	for i := 0; i < 2; i++ {
		// In the handler (100 Continue seen) before healthz is asked.
		conn := inFlight(t, strings.TrimPrefix(base, "http://"), "/v1/verify", "text/plain", body, len(body))
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				statuses <- err.Error()
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses <- fmt.Sprint(resp.StatusCode)
		}()
	}
	for i := 0; i < 5; i++ {
		if r := get(t, base+"/healthz"); r.status != 200 {
			t.Errorf("healthz under load: %d %s", r.status, r.body)
		}
	}
	for i := 0; i < 2; i++ {
		if s := <-statuses; s != "200" && s != "409" {
			t.Errorf("worst body: %s", s)
		}
	}
	tight := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t)), Budget: time.Millisecond})
	r := do(t, "POST", tight+"/v1/verify", "text/plain", bytes.NewReader(body))
	if e := errorBody(t, r); r.status != 503 || !strings.Contains(e.Message, "work budget of 1ms") {
		t.Errorf("over budget: %d %s", r.status, r.body)
	}
}

// A client that hangs up stops the work: the whole request is sent, the
// connection closed at once, and the request ends cancelled (503 in the
// log) rather than judged to the end.
func TestHangUpStopsWork(t *testing.T) {
	logs, logged := watching("POST /v1/verify ")
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t)), Log: logs})
	body := httpapi.WorstVerifyBody()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(body))
	conn.Write(body)
	conn.Close()
	select {
	case <-logged:
	case <-time.After(time.Minute): // only a guard: -race on a busy machine
		t.Fatal("the request was never logged")
	}
	switch log := logs.String(); {
	case strings.Contains(log, "POST /v1/verify 503 "):
	case strings.Contains(log, "POST /v1/verify 200 "), strings.Contains(log, "POST /v1/verify 409 "):
		t.Skip("the judgement finished before the hang-up was seen")
	default:
		t.Errorf("the work did not stop: %q", log)
	}
}

// A request still running when the grace period ends is cut, and Serve
// still returns nil: SIGTERM exits 0.
func TestShutdownGraceCutsLongRequests(t *testing.T) {
	srv := &httpapi.Server{DB: openDB(t, testDBPath(t)), ShutdownGrace: 200 * time.Millisecond}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	// A body that never finishes arriving keeps the request in flight.
	inFlight(t, ln.Addr().String(), "/v1/explain", "text/plain", bytes.Repeat([]byte("no kernel "), 100), 9)
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

func send(t *testing.T, req *http.Request) reply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}
