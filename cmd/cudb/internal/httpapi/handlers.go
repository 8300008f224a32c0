package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query"
)

// cached answers from the cache or computes, stores and sends the answer.
// Every outcome but an internal error is cached: with a read-only
// database the same question always gets the same answer.
func (s *Server) cached(w http.ResponseWriter, r *http.Request, key string, compute func(d *db.DB) (*response, error)) error {
	if resp, ok := s.cache.get(key); ok {
		s.send(w, resp)
		return nil
	}
	var resp *response
	err := s.withDB(r.Context(), func(d *db.DB) error {
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
	s.cache.add(key, resp)
	s.send(w, resp)
	return nil
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
	return s.cached(w, r, cacheKey("resolve", req, limit, ""), func(d *db.DB) (*response, error) {
		res, err := query.Resolve(r.Context(), d, req)
		if err != nil {
			return nil, err
		}
		if limit > 0 && len(res.Stacks) > limit {
			res.Stacks = res.Stacks[:limit]
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
	build, ok := query.Matrices[name]
	if !ok {
		return errs.Errorf(errs.CodeNotFound, "unknown table %q", name).
			WithHint("one of: %s (GET /v1/matrix/ lists them)", strings.Join(query.MatrixNames(), ", "))
	}
	return s.cached(w, r, "matrix\x00"+name, func(d *db.DB) (*response, error) {
		v, err := build(r.Context(), d)
		if err != nil {
			return nil, err
		}
		return jsonResponse(http.StatusOK, v)
	})
}

func (s *Server) matrixIndex(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Path != "/v1/matrix/" {
		return errs.Errorf(errs.CodeNotFound, "no endpoint %s", r.URL.Path).WithHint("GET /v1/matrix/{table}")
	}
	return s.sendJSON(w, http.StatusOK, map[string][]string{"tables": query.MatrixNames()})
}

func (s *Server) pin(w http.ResponseWriter, r *http.Request) error {
	if s.Pin == nil {
		return unimplemented("pin")
	}
	req, limit, err := parseResolve(r.URL.Query(), "format")
	if err != nil {
		return err
	}
	if limit != 0 {
		return errs.Errorf(errs.CodeUsage, "limit does not apply to pins").WithHint("GET /v1/pin?req=torch==2.1&cuda=12.1")
	}
	format := r.URL.Query().Get("format")
	// format=json (the default) answers the pin result as JSON; any pin
	// format (requirements, constraints, pip, uv, conda, apt, docker)
	// answers the file itself as text. Pin validates the name.
	if format == "" {
		format = "json"
	}
	return s.cached(w, r, cacheKey("pin", req, 0, format), func(d *db.DB) (*response, error) {
		v, err := s.Pin(r.Context(), d, req, format)
		if err != nil {
			return nil, err
		}
		switch t := v.(type) {
		case string:
			return &response{status: http.StatusOK, contentType: "text/plain; charset=utf-8", body: []byte(t)}, nil
		case []byte:
			return &response{status: http.StatusOK, contentType: "text/plain; charset=utf-8", body: t}, nil
		}
		return jsonResponse(http.StatusOK, v)
	})
}

// incompatible is what a verify report implements to ask for a 409.
type incompatible interface{ Incompatible() bool }

func (s *Server) verify(w http.ResponseWriter, r *http.Request) error {
	if s.Verify == nil {
		return unimplemented("verify")
	}
	if err := checkParams(r.URL.Query(), nil, "", "POST /v1/verify with the report as the body"); err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var v any
	err = s.withDB(r.Context(), func(d *db.DB) error {
		v, err = s.Verify(r.Context(), d, body)
		return err
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if ic, ok := v.(incompatible); ok && ic.Incompatible() {
		status = http.StatusConflict
	}
	return s.sendJSON(w, status, v)
}

func (s *Server) explain(w http.ResponseWriter, r *http.Request) error {
	if s.Explain == nil {
		return unimplemented("explain")
	}
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
	var v any
	err = s.withDB(r.Context(), func(d *db.DB) error {
		v, err = s.Explain(r.Context(), d, text)
		return err
	})
	if err != nil {
		return err
	}
	return s.sendJSON(w, http.StatusOK, v)
}

// Meta is GET /v1/meta: the data's description and the server's version.
type Meta struct {
	query.DataInfo
	Version string `json:"version,omitempty"`
}

func (s *Server) meta(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r.URL.Query(), nil, "", "GET /v1/meta"); err != nil {
		return err
	}
	return s.cached(w, r, "meta", func(d *db.DB) (*response, error) {
		info, err := query.Info(r.Context(), d)
		if err != nil {
			return nil, err
		}
		return jsonResponse(http.StatusOK, Meta{DataInfo: *info, Version: s.Version})
	})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	err := s.withDB(r.Context(), func(d *db.DB) error { return d.Ping(r.Context()) })
	if err != nil {
		return err
	}
	return s.sendJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func unimplemented(what string) error {
	return errs.Errorf(codeUnimplemented, "%s is not available in this build of the server", what).
		WithHint("cudb %s (the command line)", what)
}

// readBody reads at most MaxBody bytes; more is a 413.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := errs.Errorf(codeTooLarge, "the body is larger than %d bytes", MaxBody).
		WithHint("send the relevant part of the report (at most 1 MiB)")
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
