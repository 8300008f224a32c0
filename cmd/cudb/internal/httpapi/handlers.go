package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/usecase"
)

// cached answers from the cache or computes, stores and sends the answer.
// Every outcome but an internal error is cached: with a read-only
// database the same question always gets the same answer.
//
// The answer's ETag is a hash of the data's description and the key, so
// a client that sends it back in If-None-Match gets 304 without the
// answer being computed or even looked up.
func (s *Server) cached(w http.ResponseWriter, r *http.Request, key string, compute func(d *usecase.DB) (*response, error)) error {
	// A cached answer carries its ETag: the hash is computed once per
	// question, not once per request.
	if resp, ok := s.cache.get(key); ok {
		if !s.notModified(w, r, resp.etag) {
			s.send(w, resp)
		}
		return nil
	}
	etag := s.etag(key)
	if s.notModified(w, r, etag) {
		return nil
	}
	// Concurrent askers of the same uncached question wait for the first
	// one's answer instead of each computing it (a burst of one costly
	// resolve would otherwise take every handle).
	if wait, leader := s.flight.join(key); !leader {
		select {
		case <-wait:
			if resp, ok := s.cache.get(key); ok {
				s.send(w, resp)
				return nil
			}
		case <-r.Context().Done():
			return r.Context().Err()
		}
	} else {
		defer s.flight.leave(key)
	}
	var resp *response
	err := s.withDB(r.Context(), func(d *usecase.DB) error {
		var err error
		resp, err = compute(d)
		return err
	})
	if err != nil {
		resp = s.errorResponse(r, err)
		if resp.status >= 500 {
			s.send(w, resp)
			return nil
		}
	}
	resp.etag = etag
	resp.prepare()
	s.cache.add(key, resp)
	s.send(w, resp)
	return nil
}

// notModified answers 304 when the client already holds etag.
func (s *Server) notModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	if etag == "" || r.Header.Get("If-None-Match") != etag {
		return false
	}
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl)
	w.WriteHeader(http.StatusNotModified)
	return true
}

// cacheControl is sent with answers that change only with the data: the
// ETag revalidates them after that.
const cacheControl = "public, max-age=300"

// dataTagOf hashes the data's description (build, sources and their
// hashes) and the server's version: the base of every ETag. Empty when
// the description cannot be read (no caching headers then).
func dataTagOf(d *usecase.DB, version string) string {
	if d == nil {
		return ""
	}
	info, err := usecase.Info(context.Background(), d)
	if err != nil {
		return ""
	}
	b, err := json.Marshal(info)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(append(b, version...))
	return hex.EncodeToString(sum[:])
}

// etag is the entity tag of key's answer: data tag and key hashed.
func (s *Server) etag(key string) string {
	if s.dataTag == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(s.dataTag + "\x00" + key))
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func jsonResponse(status int, v any) (*response, error) {
	body, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	return &response{status: status, contentType: jsonType, body: body}, nil
}

func (s *Server) resolve(w http.ResponseWriter, r *http.Request) error {
	req, limit, err := parseResolve(r.URL.Query())
	if err != nil {
		return err
	}
	return s.cached(w, r, cacheKey("resolve", req, limit, ""), func(d *usecase.DB) (*response, error) {
		res, err := usecase.Resolve(r.Context(), d, usecase.ResolveOptions{ResolveRequest: req, Limit: limit})
		if err != nil {
			return nil, err
		}
		status := http.StatusOK
		if len(res.Conflicts) > 0 {
			status = http.StatusConflict
		}
		return jsonResponse(status, res)
	})
}

func (s *Server) matrix(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("table")
	if err := checkParams(r.URL.Query(), nil, "", "GET /v1/matrix/"+name); err != nil {
		return err
	}
	if !slices.Contains(usecase.MatrixNames(), name) {
		return errs.Errorf(errs.CodeNotFound, "unknown table %q", name).
			WithHint("one of: %s (GET /v1/matrix/ lists them)", strings.Join(usecase.MatrixNames(), ", "))
	}
	return s.cached(w, r, "matrix\x00"+name, func(d *usecase.DB) (*response, error) {
		res, err := usecase.Matrix(r.Context(), d, usecase.MatrixOptions{Table: name})
		if err != nil {
			return nil, err
		}
		return jsonResponse(http.StatusOK, res.Rows)
	})
}

func (s *Server) matrixIndex(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Path != "/v1/matrix/" {
		return errs.Errorf(errs.CodeNotFound, "no endpoint %s", r.URL.Path).WithHint("GET /v1/matrix/{table}")
	}
	return s.sendJSON(w, http.StatusOK, map[string][]string{"tables": usecase.MatrixNames()})
}

func (s *Server) pin(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	req, limit, err := parseResolve(q, "format", "allow_unknown")
	if err != nil {
		return err
	}
	// allow_unknown is `cudb pin --allow-unknown`: write a stack cudb
	// cannot vouch for, each gap in the file's header.
	allowUnknown, err := boolParam(q, "allow_unknown")
	if err != nil {
		return err
	}
	if limit != 0 {
		return errs.Errorf(errs.CodeUsage, "limit does not apply to pins").WithHint("GET /v1/pin?req=torch==2.1&cuda=12.1")
	}
	format := r.URL.Query().Get("format")
	// format=json (the default) answers the pin result as JSON; any pin
	// format (requirements, constraints, pip, uv, conda, apt, docker)
	// answers the file itself as text. Pins validates the name.
	if format == "" {
		format = "json"
	}
	return s.cached(w, r, cacheKey("pin", req, 0, format+"\x00"+strconv.FormatBool(allowUnknown)), func(d *usecase.DB) (*response, error) {
		pinFormat := format
		if format == "json" {
			pinFormat = "requirements"
		}
		res, err := usecase.Pin(r.Context(), d, usecase.PinOptions{ResolveRequest: req, Format: pinFormat, CudbVersion: s.Version, AllowUnknown: allowUnknown})
		if err != nil {
			return nil, apiUnknownHint(err, r.URL.RawQuery)
		}
		if format == "json" {
			return jsonResponse(http.StatusOK, res)
		}
		return &response{status: http.StatusOK, contentType: "text/plain; charset=utf-8", body: []byte(res.Content)}, nil
	})
}

// verify answers a report: parsed here (a malformed one is a 400, one
// over the report's bounds a 422 naming the bound), judged under the
// work budget; a report with an error finding answers 409.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r.URL.Query(), nil, "", "POST /v1/verify with the report as the body"); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var res *usecase.VerifyResult
	err = s.withHeavy(r.Context(), func(d *usecase.DB) error {
		res, err = usecase.Verify(r.Context(), d, usecase.VerifyOptions{Reports: []usecase.ReportText{{Input: "request body", Text: body}},
			ParseHint: "POST cudb's probe JSON or a pasted report (collect_env, nvidia-smi, pip list)"})
		return err
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if !res.Healthy() {
		status = http.StatusConflict
	}
	return s.sendJSON(w, status, res)
}

// checkParams are POST /v1/check's: the file's name (its kind is
// detected from it, else from the content) and the target host.
var checkParamNames = map[string]bool{"name": true, "driver": true, "gpu": true, "sm": true, "platform": true, "python": true}

// check judges one project file sent as the body, as `cudb check` does;
// files it refers to (a compose build, a -r include) are not followed,
// and say so. A file with an error finding answers 409.
func (s *Server) check(w http.ResponseWriter, r *http.Request) error {
	const hint = "curl --data-binary @Dockerfile 'http://127.0.0.1:8080/v1/check?name=Dockerfile&driver=535.104.05&gpu=RTX%204090'"
	q := r.URL.Query()
	if err := checkParams(q, checkParamNames, "", hint); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	name := q.Get("name")
	if name == "" {
		name = "request body"
	}
	target := usecase.CheckTarget{Driver: q.Get("driver"), GPU: q.Get("gpu"), SM: q.Get("sm"), Platform: q.Get("platform"), Python: q.Get("python"), From: "request"}
	var rep *usecase.CheckReport
	err = s.withHeavy(r.Context(), func(d *usecase.DB) error {
		rep, err = usecase.Check(r.Context(), d, usecase.CheckOptions{Files: []usecase.CheckInput{{Name: name, Data: body}}, Target: target})
		return err
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if !rep.Summary.Healthy {
		status = http.StatusConflict
	}
	return s.sendJSON(w, status, rep)
}

func (s *Server) explain(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r.URL.Query(), nil, "", "POST /v1/explain with the error text as the body"); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	text := string(body)
	// A JSON body {"text": "..."} is accepted too, for clients that only
	// speak JSON.
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var in struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return errs.Errorf(errs.CodeUsage, "invalid JSON body: %v", err).WithHint(`POST /v1/explain with {"text": "<error message>"} or the plain text`)
		}
		text = in.Text
	}
	if strings.TrimSpace(text) == "" {
		return errs.Errorf(errs.CodeUsage, "the body is empty: send the error message to explain").
			WithHint("curl --data-binary @error.txt http://127.0.0.1:8080/v1/explain")
	}
	var x *usecase.ExplainResult
	err = s.withHeavy(r.Context(), func(d *usecase.DB) error {
		x, err = usecase.Explain(r.Context(), d, usecase.ExplainOptions{Text: text})
		return err
	})
	if err != nil {
		return err
	}
	return s.sendJSON(w, http.StatusOK, x)
}

// Meta is GET /v1/meta: the data's description and the server's version.
type Meta struct {
	usecase.DataInfo
	Version string `json:"version,omitempty"`
}

func (s *Server) meta(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r.URL.Query(), nil, "", "GET /v1/meta"); err != nil {
		return err
	}
	return s.cached(w, r, "meta", func(d *usecase.DB) (*response, error) {
		info, err := usecase.Info(r.Context(), d)
		if err != nil {
			return nil, err
		}
		return jsonResponse(http.StatusOK, Meta{DataInfo: *info, Version: s.Version})
	})
}

// health pings the database when a worker is free. When every worker is
// busy answering, the database evidently works: the server is up, and
// /healthz must not queue behind the work it is meant to report on.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	if s.DB == nil {
		return errors.New("the server has no database")
	}
	select {
	case s.workers <- struct{}{}:
		err := s.DB.Ping(r.Context())
		<-s.workers
		if err != nil {
			return err
		}
	default:
	}
	return s.sendJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readBody reads at most MaxBody bytes; more is a 413.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := errs.Errorf(codeTooLarge, "the body is larger than the cap of %d KiB", MaxBody>>10).
		WithHint("send the relevant part of the report (at most %d KiB)", MaxBody>>10)
	if r.ContentLength > MaxBody {
		return nil, tooLarge
	}
	var buf bytes.Buffer
	_, err := io.Copy(&buf, http.MaxBytesReader(w, r.Body, MaxBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge
	}
	if err != nil {
		return nil, errs.Errorf(errs.CodeUsage, "failed to read the body: %v", err)
	}
	return buf.Bytes(), nil
}

// apiUnknownHint rewrites the hint of a refused unknown stack, which names
// the CLI's --allow-unknown, to name this API's parameter: the request as
// it was sent (rawQuery) with allow_unknown=true.
func apiUnknownHint(err error, rawQuery string) error {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeNotFound {
		return err
	}
	if d, ok := e.Detail.(map[string]any); !ok || d["status"] != usecase.StatusUnknown {
		return err
	}
	var allow, reqs []string
	for _, part := range strings.Split(rawQuery, "&") {
		name, _, _ := strings.Cut(part, "=")
		switch name {
		case "", "allow_unknown":
			continue
		case "req":
			reqs = append(reqs, part)
		}
		allow = append(allow, part)
	}
	out := *e
	out.Hint = fmt.Sprintf("GET /v1/pin?%s to write it anyway (the gap goes into the file's header), or GET /v1/resolve?%s for the known-good stacks",
		strings.Join(append(allow, "allow_unknown=true"), "&"), strings.Join(reqs, "&"))
	return &out
}
