package httpapi

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/usecase"
)

// resolveParams are the query parameters of /v1/resolve (and /v1/pin,
// which adds format); each mirrors a `cudb resolve` flag.
var resolveParams = map[string]bool{
	"req": true, "cuda": true, "driver": true, "gpu": true, "sm": true, "python": true, "platform": true,
	"variant": true, "channel": true, "pre": true, "explain": true, "limit": true,
}

// checkParams rejects parameters outside allowed and repeats of any but
// the repeatable ones, so a typo is a 400 rather than silently ignored.
func checkParams(q url.Values, allowed map[string]bool, repeatable string, hint string) error {
	var names []string
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !allowed[k] {
			var known []string
			for a := range allowed {
				known = append(known, a)
			}
			sort.Strings(known)
			if len(known) == 0 {
				return errs.Errorf(errs.CodeUsage, "unknown parameter %q: this endpoint takes none", k).WithHint("%s", hint)
			}
			return errs.Errorf(errs.CodeUsage, "unknown parameter %q (parameters: %s)", k, strings.Join(known, ", ")).WithHint("%s", hint)
		}
		if k != repeatable && len(q[k]) > 1 {
			return errs.Errorf(errs.CodeUsage, "parameter %q given %d times", k, len(q[k])).WithHint("%s", hint)
		}
	}
	return nil
}

const resolveHint = "GET /v1/resolve?req=torch==2.1&cuda=12.1"

// parseResolve reads a ResolveRequest and the stack limit from q.
func parseResolve(q url.Values, extra ...string) (usecase.ResolveRequest, int, error) {
	allowed := resolveParams
	if len(extra) > 0 {
		allowed = map[string]bool{}
		for k := range resolveParams {
			allowed[k] = true
		}
		for _, k := range extra {
			allowed[k] = true
		}
	}
	var r usecase.ResolveRequest
	if err := checkParams(q, allowed, "req", resolveHint); err != nil {
		return r, 0, err
	}
	// An empty value is a mistake, not "absent" (the CLI's --gpu ""
	// is a usage error too); the flag-like booleans take none.
	for k, vs := range q {
		if k == "pre" || k == "explain" || k == "allow_unknown" {
			continue
		}
		for _, v := range vs {
			if strings.TrimSpace(v) == "" {
				return r, 0, errs.Errorf(errs.CodeUsage, "parameter %q is empty", k).WithHint("%s", resolveHint)
			}
		}
	}
	r.Requirements = q["req"]
	r.CUDA, r.Driver, r.GPU, r.SM = q.Get("cuda"), q.Get("driver"), q.Get("gpu"), q.Get("sm")
	r.Python, r.Platform, r.Variant, r.Channel = q.Get("python"), q.Get("platform"), q.Get("variant"), q.Get("channel")
	var err error
	if r.Pre, err = boolParam(q, "pre"); err != nil {
		return r, 0, err
	}
	if r.Explain, err = boolParam(q, "explain"); err != nil {
		return r, 0, err
	}
	limit := 0
	if s := q.Get("limit"); s != "" {
		limit, err = strconv.Atoi(s)
		if err != nil || limit < 0 {
			return r, 0, errs.Errorf(errs.CodeUsage, "invalid limit %q: expected a whole number, 0 or more", s).WithHint("GET /v1/resolve?req=torch&limit=3")
		}
	}
	return r, limit, nil
}

// boolParam reads a flag-like parameter: absent is false, present with
// no value (?pre) is true.
func boolParam(q url.Values, name string) (bool, error) {
	vs, ok := q[name]
	if !ok {
		return false, nil
	}
	if vs[0] == "" {
		return true, nil
	}
	b, err := strconv.ParseBool(vs[0])
	if err != nil {
		return false, errs.Errorf(errs.CodeUsage, "invalid %s %q: expected true or false", name, vs[0]).WithHint("GET /v1/resolve?req=torch==2.1&%s=true", name)
	}
	return b, nil
}

// cacheKey normalizes a request so equal questions share an answer:
// parameter order and spelling of booleans do not matter, requirement
// order does (it orders the answer's echo).
func cacheKey(endpoint string, r usecase.ResolveRequest, limit int, format string) string {
	var b strings.Builder
	b.WriteString(endpoint)
	for _, s := range []string{strings.Join(r.Requirements, "\x01"), r.CUDA, r.Driver, r.GPU, r.SM, r.Python, r.Platform, r.Variant, r.Channel,
		strconv.FormatBool(r.Pre), strconv.FormatBool(r.Explain), strconv.Itoa(limit), format} {
		b.WriteByte(0)
		b.WriteString(s)
	}
	return b.String()
}
