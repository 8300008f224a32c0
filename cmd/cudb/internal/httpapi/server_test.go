package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query"
)

type reply struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, method, u, contentType string, body io.Reader) reply {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
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

func get(t *testing.T, u string) reply { return do(t, http.MethodGet, u, "", nil) }

// cliJSON runs the real command line with --json on the same database.
func cliJSON(t *testing.T, path string, args ...string) (string, int) {
	t.Helper()
	s, out, errOut := cli.TestStreams("")
	code := app.Main(append([]string{"--db", path, "--json"}, args...), s)
	if code != 0 && code != 3 {
		t.Fatalf("cudb %v: exit %d: %s", args, code, errOut)
	}
	return out.String(), code
}

func errorBody(t *testing.T, r reply) errs.Error {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("error content type %q", ct)
	}
	var e errs.Error
	if err := json.Unmarshal([]byte(r.body), &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.body)
	}
	if e.Message == "" || e.Code == "" {
		t.Errorf("error body lacks error or code: %s", r.body)
	}
	return e
}

func TestBodiesMatchCLI(t *testing.T) {
	path := testDBPath(t)
	base := start(t, &httpapi.Server{DB: openDB(t, path)})
	for _, tc := range []struct {
		url    string
		args   []string
		status int
	}{
		{"/v1/resolve?req=torch==2.1", []string{"resolve", "torch==2.1"}, 200},
		{"/v1/resolve?req=torch==2.1&cuda=12.1&explain=true", []string{"resolve", "torch==2.1", "--cuda", "12.1", "--explain"}, 200},
		{"/v1/resolve?req=" + url.QueryEscape("torch>=2,<2.3") + "&python=3.11&platform=windows&limit=2", []string{"resolve", "torch>=2,<2.3", "--python", "3.11", "--platform", "windows", "--limit", "2"}, 200},
		{"/v1/resolve?req=torch==2.3.1&req=tensorflow==2.17.0", []string{"resolve", "torch==2.3.1", "tensorflow==2.17.0"}, 200},
		// Frameworks that cannot share an environment: 409 with the
		// resolution (conflicts, suggestions) as the body.
		{"/v1/resolve?req=torch==2.3.1&req=tensorflow==2.14.0", []string{"resolve", "torch==2.3.1", "tensorflow==2.14.0"}, 409},
		{"/v1/resolve?req=torch==1.13.1&variant=cu117&pre", []string{"resolve", "torch==1.13.1", "--variant", "cu117", "--pre"}, 200},
		{"/v1/matrix/torch", []string{"matrix", "torch"}, 200},
	} {
		r := get(t, base+tc.url)
		want, _ := cliJSON(t, path, tc.args...)
		if r.status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.url, r.status, tc.status, r.body)
		}
		if r.body != want {
			t.Errorf("%s: body differs from `cudb %s --json`:\n%s\nwant:\n%s", tc.url, strings.Join(tc.args, " "), r.body, want)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("%s: content type %q", tc.url, ct)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Content-Length") == "" {
			t.Errorf("%s: headers %v", tc.url, r.header)
		}
	}
}

func TestConflictBody(t *testing.T) {
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t))})
	r := get(t, base+"/v1/resolve?req=torch==2.3.1&req=tensorflow==2.14.0")
	var res query.Resolution
	if err := json.Unmarshal([]byte(r.body), &res); err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusConflict || len(res.Conflicts) == 0 || res.Conflicts[0].Kind != "cuda_major" {
		t.Fatalf("status %d, conflicts %+v", r.status, res.Conflicts)
	}
}

func TestErrors(t *testing.T) {
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t))})
	for _, tc := range []struct {
		method, url string
		status      int
		code        errs.Code
		inMessage   string
		wantHint    bool
	}{
		{"GET", "/v1/resolve?req=" + url.QueryEscape("torch=>2"), 400, "usage", "invalid requirement", true},
		{"GET", "/v1/resolve?req=" + url.QueryEscape("numpy==1"), 400, "usage", "unknown component", true},
		{"GET", "/v1/resolve", 400, "usage", "at least one requirement", true},
		{"GET", "/v1/resolve?req=torch&cuda=twelve", 400, "usage", "invalid --cuda", true},
		{"GET", "/v1/resolve?req=torch&python=9", 400, "usage", "--python", true},
		{"GET", "/v1/resolve?req=torch&platform=amiga", 400, "usage", "--platform", true},
		{"GET", "/v1/resolve?req=torch&channel=apt", 400, "usage", "--channel", true},
		{"GET", "/v1/resolve?req=torch&pre=maybe", 400, "usage", "invalid pre", true},
		{"GET", "/v1/resolve?req=torch&limit=-1", 400, "usage", "invalid limit", true},
		{"GET", "/v1/resolve?req=torch&cuda=12.1&cuda=11.8", 400, "usage", "given 2 times", true},
		{"GET", "/v1/resolve?req=torch&cdua=12.1", 400, "usage", `unknown parameter "cdua"`, true},
		{"GET", "/v1/resolve?req=torch&driver=banana", 400, "usage", "driver", false},
		{"GET", "/v1/resolve?req=torch==9.9", 404, "not_found", "no torch release matches", true},
		{"GET", "/v1/resolve?req=torch==2.1&cuda=10.2", 404, "not_found", "no torch build", true},
		{"GET", "/v1/matrix/nope", 404, "not_found", `unknown table "nope"`, true},
		{"GET", "/v1/matrix/torch?channel=conda", 400, "usage", "unknown parameter", true},
		{"GET", "/v2/resolve", 404, "not_found", "no endpoint", true},
		{"GET", "/", 404, "not_found", "no endpoint", true},
		{"POST", "/v1/resolve?req=torch", 405, "method_not_allowed", "POST /v1/resolve", true},
		{"DELETE", "/v1/matrix/torch", 405, "method_not_allowed", "DELETE", true},
		{"GET", "/v1/verify", 405, "method_not_allowed", "GET /v1/verify", true},
		{"PUT", "/healthz", 405, "method_not_allowed", "PUT", true},
		{"GET", "/v1/pin?req=torch==9.9", 404, "not_found", "no torch release matches", true},
		{"POST", "/v1/verify", 400, "usage", "no known report format", true},
		{"POST", "/v1/explain", 400, "usage", "the body is empty", true},
	} {
		r := do(t, tc.method, base+tc.url, "", nil)
		if r.status != tc.status {
			t.Errorf("%s %s: status %d, want %d: %s", tc.method, tc.url, r.status, tc.status, r.body)
			continue
		}
		e := errorBody(t, r)
		if e.Code != tc.code || !strings.Contains(e.Message, tc.inMessage) {
			t.Errorf("%s %s: %+v, want code %s and %q in the message", tc.method, tc.url, e, tc.code, tc.inMessage)
		}
		if tc.wantHint && e.Hint == "" {
			t.Errorf("%s %s: no hint: %s", tc.method, tc.url, r.body)
		}
		if tc.status == 405 && r.header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.url)
		}
	}
}

func TestMetaHealthAndIndex(t *testing.T) {
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t)), Version: "1.2.3"})
	r := get(t, base+"/v1/meta")
	var m httpapi.Meta
	if err := json.Unmarshal([]byte(r.body), &m); err != nil || r.status != 200 {
		t.Fatalf("meta: %d %v %s", r.status, err, r.body)
	}
	if m.SchemaVersion != db.SchemaVersion || m.BuiltFrom != "feedface" || m.Version != "1.2.3" ||
		len(m.Sources) != 2 || m.Sources[0].Rows != 42 || m.Sources[0].SHA256 != "abc123" || len(m.Tables) == 0 {
		t.Errorf("meta = %+v", m)
	}
	if r := get(t, base+"/healthz"); r.status != 200 || strings.TrimSpace(r.body) != `{
  "status": "ok"
}` {
		t.Errorf("healthz: %d %s", r.status, r.body)
	}
	r = get(t, base+"/v1/matrix/")
	if r.status != 200 || !strings.Contains(r.body, `"torch"`) || !strings.Contains(r.body, `"torch-gpu"`) {
		t.Errorf("matrix index: %d %s", r.status, r.body)
	}
	r = get(t, base+"/v1/matrix/torch-gpu")
	var g query.GPUGrid
	if err := json.Unmarshal([]byte(r.body), &g); err != nil || r.status != 200 {
		t.Fatalf("torch-gpu: %d %v", r.status, err)
	}
	for _, row := range g.Rows {
		if row.GPU == "Tesla K80" && row.Support[0] != query.SupportNone || row.GPU == "Tesla T4" && row.Support[0] != query.SupportSASS {
			t.Errorf("grid row %+v", row)
		}
	}
	head := do(t, http.MethodHead, base+"/v1/meta", "", nil)
	if head.status != 200 || head.body != "" {
		t.Errorf("HEAD: %d %q", head.status, head.body)
	}
}

// The pin, verify and explain endpoints call query/pin, query/verify and
// the report parsers themselves: their bodies are the CLI's --json, and a
// verify report with an error finding answers 409.
func TestWiredEndpoints(t *testing.T) {
	path := testDBPath(t)
	logs := &syncBuffer{}
	base := start(t, &httpapi.Server{DB: openDB(t, path), Log: logs, Version: "dev"})

	r := get(t, base+"/v1/pin?req=torch==2.1&cuda=12.1&format=requirements")
	if r.status != 200 || !strings.Contains(r.body, "\ntorch==2.1.0\n") || !strings.Contains(r.body, "variant cu121") || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Errorf("pin requirements: %d %q %v", r.status, r.body, r.header)
	}
	want, _ := cliJSON(t, path, "pin", "torch==2.1", "--cuda", "12.1")
	if r := get(t, base+"/v1/pin?req=torch==2.1&cuda=12.1"); r.status != 200 || r.body != want {
		t.Errorf("pin json: %d\n%s\nwant\n%s", r.status, r.body, want)
	}
	if r := get(t, base+"/v1/pin?req=torch&format=yaml"); r.status != 400 || errorBody(t, r).Hint == "" {
		t.Errorf("pin bad format: %d %s", r.status, r.body)
	}

	smi := readTestdata(t, "smi_banner.txt")
	if r := do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader(smi)); (r.status != 200 && r.status != 409) || !strings.Contains(r.body, `"summary"`) {
		t.Errorf("verify: %d %s", r.status, r.body)
	}
	// A CPU-only torch wheel on a host with a GPU is an error finding.
	bad := smi + "\nPackage Version\n------- -------\ntorch 2.1.0+cpu\n"
	r = do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader(bad))
	var rep struct {
		Summary struct {
			Healthy bool `json:"healthy"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.body), &rep); err != nil || r.status != 409 || rep.Summary.Healthy {
		t.Errorf("verify incompatible: %d %v %s", r.status, err, r.body)
	}
	if r := do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader("hello")); r.status != 400 || errorBody(t, r).Code != "usage" {
		t.Errorf("verify unknown format: %d %s", r.status, r.body)
	}
	msg := "The NVIDIA driver on your system is too old (found version 11040)"
	want, _ = cliJSON(t, path, "explain", msg)
	if r := do(t, "POST", base+"/v1/explain", "text/plain", strings.NewReader(msg)); r.status != 200 || r.body != want {
		t.Errorf("explain text: %d\n%s\nwant\n%s", r.status, r.body, want)
	}
	if r := do(t, "POST", base+"/v1/explain", "application/json", strings.NewReader(`{"text": "no kernel image is available for execution on the device"}`)); r.status != 200 || !strings.Contains(r.body, `"findings"`) {
		t.Errorf("explain json: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", base+"/v1/explain", "text/plain", strings.NewReader("all is well")); r.status != 404 {
		t.Errorf("explain no match: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", base+"/v1/explain", "application/json", strings.NewReader(`{"text": `)); r.status != 400 {
		t.Errorf("explain bad json: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", base+"/v1/explain", "text/plain", strings.NewReader("  ")); r.status != 400 {
		t.Errorf("explain empty: %d %s", r.status, r.body)
	}

	// Oversized bodies: declared (Content-Length) and streamed (chunked).
	big := strings.Repeat("x", httpapi.MaxBody+1)
	if r := do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader(big)); r.status != 413 || errorBody(t, r).Code != "too_large" {
		t.Errorf("verify MaxBody + 1: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", base+"/v1/explain", "text/plain", io.MultiReader(strings.NewReader(big))); r.status != 413 {
		t.Errorf("explain chunked MaxBody + 1: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", base+"/v1/verify", "text/plain", strings.NewReader(big[:httpapi.MaxBody])); r.status != 400 {
		t.Errorf("verify exactly MaxBody of nothing: %d", r.status)
	}
	if r := get(t, base+"/healthz"); r.status != 200 {
		t.Errorf("healthz: %d", r.status)
	}
	log := logs.String()
	for _, want := range []string{"POST /v1/verify 409 ", "GET /healthz 200 ", "GET /v1/pin?req=torch==2.1&cuda=12.1&format=requirements 200 ", "POST /v1/verify 413 "} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestRequestLogLine(t *testing.T) {
	logs := &syncBuffer{}
	base := start(t, &httpapi.Server{DB: openDB(t, testDBPath(t)), Log: logs})
	get(t, base+"/v1/resolve?req=torch==2.1")
	get(t, base+"/v1/matrix/nope")
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per request, got %q", lines)
	}
	f := strings.Fields(lines[1])
	if len(f) != 5 || f[0] != "GET" || f[1] != "/v1/matrix/nope" || f[2] != "404" {
		t.Errorf("log line %q: want method, path, status, duration, size", lines[1])
	}
	if _, err := time.ParseDuration(f[3]); err != nil {
		t.Errorf("duration %q: %v", f[3], err)
	}
}

// A client that sends part of its headers and stalls is cut off by the
// server's ReadHeaderTimeout; one that stalls in its body by ReadTimeout.
func TestSlowClients(t *testing.T) {
	srv := &httpapi.Server{DB: openDB(t, testDBPath(t)), ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 400 * time.Millisecond}
	base := start(t, srv)
	addr := strings.TrimPrefix(base, "http://")
	for _, tc := range []struct{ name, send string }{
		{"headers", "GET /healthz HTTP/1.1\r\nHost: x\r\n"},
		{"body", "POST /v1/explain HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.send); err != nil {
				t.Fatal(err)
			}
			// The deadline only keeps a broken server from hanging the
			// test; what is asserted is that the server closes.
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			rest, err := io.ReadAll(conn) // returns when the server closes
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server kept a stalled connection open for 5 s")
			}
			if len(rest) > 0 && !strings.HasPrefix(string(rest), "HTTP/1.1 4") {
				t.Errorf("unexpected reply %q", rest)
			}
		})
	}
}

// Cancelling the serve context lets a request in flight finish (here a
// client still sending its body), then Serve returns nil and the port is
// closed.
func TestGracefulShutdown(t *testing.T) {
	srv := &httpapi.Server{DB: openDB(t, testDBPath(t))}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	msg := "no kernel image is available for execution on the device"
	// In the handler (100 Continue seen), ten bytes of the body sent.
	conn := inFlight(t, ln.Addr().String(), "/v1/explain", "text/plain", []byte(msg), 10)
	cancel()
	// Serve must not return while the request is in flight: the
	// request is still answered (200 below) after the cancel.
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	default:
	}
	io.WriteString(conn, msg[10:])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "no_kernel") && !strings.Contains(string(b), "findings") {
		t.Errorf("in-flight request: %d %s", resp.StatusCode, b)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("the port still accepts connections")
	}
}

// One handle answers every request at once: parallel requests on a
// server of one worker without a cache and on one of several workers
// with its cache give the same answers.
func TestWorkersAndCacheAgree(t *testing.T) {
	path := testDBPath(t)
	one := start(t, &httpapi.Server{DB: openDB(t, path), Workers: 1, CacheEntries: -1})
	many := start(t, &httpapi.Server{DB: openDB(t, path), Workers: 8})
	urls := []string{"/v1/resolve?req=torch==2.1", "/v1/resolve?req=torch==2.1&explain=1", "/v1/resolve?req=torch==9", "/v1/matrix/torch", "/v1/meta"}
	errc := make(chan error, 64)
	for w := 0; w < 8; w++ {
		go func(w int) {
			for i := 0; i < 20; i++ {
				u := urls[(w+i)%len(urls)]
				a, b := fetch(one+u), fetch(many+u)
				if a != b {
					errc <- fmt.Errorf("%s differs between servers", u)
					return
				}
			}
			errc <- nil
		}(w)
	}
	for w := 0; w < 8; w++ {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

func fetch(u string) string {
	resp, err := http.Get(u)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(bufio.NewReader(resp.Body))
	return fmt.Sprint(resp.StatusCode) + string(b)
}
