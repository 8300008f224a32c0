package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cudb/cudb/internal/errs"
)

// allowed is the Allow header of an endpoint answering method.
func allowed(method string) string {
	if method == http.MethodGet {
		return "GET, HEAD, OPTIONS"
	}
	return method + ", OPTIONS"
}

// originAllowed reports whether a page from origin may POST. A request
// without an Origin header is not a browser's cross-origin request
// (curl, scripts, the CLI's users): it is served.
func (s *Server) originAllowed(origin string) bool {
	return origin == "" || slices.Contains(s.AllowOrigins, "*") || slices.Contains(s.AllowOrigins, origin)
}

// cors sets the CORS headers of a request to an endpoint answering
// method and reports whether the request may go on. GET answers are
// public (Access-Control-Allow-Origin: *); a POST is allowed only without
// an Origin header or from an allowed origin, which the answer names.
func (s *Server) cors(w http.ResponseWriter, r *http.Request, method string) bool {
	h := w.Header()
	if method == http.MethodGet {
		h.Set("Access-Control-Allow-Origin", "*")
		return true
	}
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if !s.originAllowed(origin) {
		return false
	}
	if origin != "" {
		h.Set("Access-Control-Allow-Origin", origin)
	}
	return true
}

// preflight answers OPTIONS: 204 with the methods and headers a browser
// may use, or 403 for a POST endpoint asked by an origin that may not.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request, method string) {
	h := w.Header()
	h.Set("Allow", allowed(method))
	if !s.cors(w, r, method) {
		s.writeError(w, r, errs.Errorf(codeForbidden, "origin %s may not %s %s", errs.Quote(r.Header.Get("Origin")), method, r.URL.Path).
			WithHint("cudb serve --allow-origin %s", originHint(r.Header.Get("Origin"))))
		return
	}
	if r.Header.Get("Origin") != "" {
		h.Set("Access-Control-Allow-Methods", allowed(method))
		h.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
		h.Set("Access-Control-Max-Age", "600")
	}
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusNoContent)
}

// originHint is the origin to suggest for --allow-origin: the request's,
// when it is a plausible scheme://host, else a placeholder.
func originHint(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(origin) > 200 || u.Path != "" {
		return "https://example.org"
	}
	return origin
}

// checkQuery refuses a query string that url.Values would read by
// silently dropping parts: bad percent-encoding (cuda=11%zz8), a ';'
// (cuda=11.8;, which Go no longer treats as a separator), control
// characters. The error names the parameter and the offending text.
func checkQuery(raw string) error {
	for rest := raw; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, "&")
		if part == "" {
			continue
		}
		rawKey, rawVal, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			return errs.Errorf(errs.CodeUsage, "bad percent-encoding %s in a parameter name", errs.Quote(badEscape(rawKey))).
				WithHint("escape %% as %%25 (curl -G --data-urlencode 'req=torch>=2')")
		}
		if strings.Contains(part, ";") {
			return errs.Errorf(errs.CodeUsage, "parameter %s holds ';': separate parameters with & (a literal ; is %%3B)", errs.Quote(key)).WithHint("%s", resolveHint)
		}
		val, err := url.QueryUnescape(rawVal)
		if err != nil {
			return errs.Errorf(errs.CodeUsage, "parameter %s: bad percent-encoding %s", errs.Quote(key), errs.Quote(badEscape(rawVal))).
				WithHint("escape %% as %%25 (curl -G --data-urlencode 'req=torch>=2')")
		}
		if hasControl(key) || hasControl(val) {
			return errs.Errorf(errs.CodeUsage, "parameter %s holds a control character", errs.Quote(key)).WithHint("%s", resolveHint)
		}
	}
	return nil
}

// hasControl reports whether s holds an ASCII control character.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// badEscape returns the first malformed %-escape in s ("%zz", "%G", "%").
func badEscape(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			i += 2
			continue
		}
		end := min(i+3, len(s))
		return s[i:end]
	}
	return s
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
