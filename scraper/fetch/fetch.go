// Package fetch is the one HTTP client the live scrapers share: a
// per-request timeout, retries with exponential backoff and jitter on
// 429/5xx and transport failures (honouring Retry-After), a response size
// cap, detection of truncated bodies, a descriptive User-Agent, and
// conditional GET through an injected cache. It imports nothing of cudb.
//
// Retries, the size cap and truncation checks are a few dozen lines here,
// so no retrying-client library is pulled in: none of them covers the cap,
// the truncation check or conditional GET, which are the parts that matter
// for refusing bad data.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults used when a Client field is left zero.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultAttempts    = 4
	DefaultBackoff     = time.Second
	DefaultMaxBackoff  = 30 * time.Second
	DefaultMaxBytes    = 32 << 20
	maxRetryAfterDelay = 5 * time.Minute
)

// UserAgent names cudb's refresh job to upstream servers.
func UserAgent(version string) string {
	if version == "" {
		version = "dev"
	}
	return "cudb-refresh/" + version + " (+https://github.com/cudb/cudb)"
}

// Client gets pages for the live scrapers. The zero value works; tests
// inject HTTP (an httptest client), BaseURL and Sleep.
type Client struct {
	// HTTP is the underlying client; nil means a client with no overall
	// timeout (Timeout below bounds each attempt instead).
	HTTP *http.Client
	// BaseURL, when set, replaces the scheme and host of every requested
	// URL (path and query are kept): how tests serve live pages from an
	// httptest server.
	BaseURL string
	// Timeout bounds one attempt (connect, headers and body).
	Timeout time.Duration
	// Attempts is the number of tries, the first included.
	Attempts int
	// Backoff is the first retry delay; it doubles per retry, up to
	// MaxBackoff, with up to 50% random jitter added.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// MaxBytes caps a response body; a larger one is an error, never a
	// truncated success.
	MaxBytes int64
	// UserAgent defaults to UserAgent("dev").
	UserAgent string
	// Cache remembers validators (ETag, Last-Modified) and bodies so an
	// unchanged page costs a 304. Nil disables conditional GET.
	Cache Cache
	// Sleep waits between attempts; tests replace it to not wait.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0,1); nil uses math/rand.
	Jitter func() float64
	// Log, when set, is told about retries.
	Log func(format string, args ...any)
}

// StatusError is a non-success HTTP status.
type StatusError struct {
	URL    string
	Status int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// ErrTooLarge is returned (wrapped) when a body exceeds MaxBytes.
var ErrTooLarge = errors.New("response body exceeds the size cap")

// ErrTruncated is returned (wrapped) when a body ends before its declared
// length.
var ErrTruncated = errors.New("response body truncated")

// Get returns the body of url after a 200 (or the cached body after a
// 304), retrying transient failures.
func (c *Client) Get(ctx context.Context, rawURL string) ([]byte, error) {
	target, err := c.rewrite(rawURL)
	if err != nil {
		return nil, err
	}
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	var lastErr error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			d := c.delay(i, lastErr)
			if c.Log != nil {
				c.Log("retrying %s in %s after: %v", rawURL, d.Round(time.Millisecond), lastErr)
			}
			if err := c.sleep(ctx, d); err != nil {
				return nil, fmt.Errorf("GET %s: %w (last failure: %v)", rawURL, err, lastErr)
			}
		}
		body, err := c.once(ctx, rawURL, target)
		if err == nil {
			return body, nil
		}
		lastErr = err
		if ctx.Err() != nil || !retryable(err) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("gave up after %d attempts: %w", attempts, lastErr)
}

// retryAfter carries a server's Retry-After beside the status error.
type retryAfter struct {
	*StatusError
	wait time.Duration
}

func (e *retryAfter) Unwrap() error { return e.StatusError }

// transportError marks failures worth another attempt: connection
// errors, timeouts, bodies cut short.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status == http.StatusTooManyRequests || se.Status >= 500
	}
	return false
}

func (c *Client) delay(retry int, last error) time.Duration {
	var ra *retryAfter
	if errors.As(last, &ra) && ra.wait > 0 {
		return min(ra.wait, maxRetryAfterDelay)
	}
	base, maxB := c.Backoff, c.MaxBackoff
	if base <= 0 {
		base = DefaultBackoff
	}
	if maxB <= 0 {
		maxB = DefaultMaxBackoff
	}
	d := base << (retry - 1)
	if d > maxB || d <= 0 {
		d = maxB
	}
	j := c.Jitter
	if j == nil {
		j = rand.Float64
	}
	return d + time.Duration(j()*0.5*float64(d))
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) rewrite(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad URL %q: %w", raw, err)
	}
	if c.BaseURL == "" {
		return raw, nil
	}
	b, err := url.Parse(c.BaseURL)
	if err != nil {
		return "", fmt.Errorf("bad base URL %q: %w", c.BaseURL, err)
	}
	u.Scheme, u.Host = b.Scheme, b.Host
	return u.String(), nil
}

func (c *Client) once(ctx context.Context, key, target string) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", key, err)
	}
	ua := c.UserAgent
	if ua == "" {
		ua = UserAgent("")
	}
	req.Header.Set("User-Agent", ua)
	var cached *Entry
	if c.Cache != nil {
		if e, ok := c.Cache.Get(key); ok {
			cached = &e
			if e.ETag != "" {
				req.Header.Set("If-None-Match", e.ETag)
			}
			if e.LastModified != "" {
				req.Header.Set("If-Modified-Since", e.LastModified)
			}
		}
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &transportError{fmt.Errorf("GET %s: %w", key, err)}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return cached.Body, nil
	case resp.StatusCode != http.StatusOK:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		se := &StatusError{URL: key, Status: resp.StatusCode}
		if w := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); w > 0 {
			return nil, &retryAfter{se, w}
		}
		return nil, se
	}
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("GET %s: %w (%d bytes declared, cap %d)", key, ErrTooLarge, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: %v", ErrTruncated, err)
		}
		return nil, &transportError{fmt.Errorf("GET %s: reading body: %w", key, err)}
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("GET %s: %w (cap %d bytes)", key, ErrTooLarge, limit)
	}
	if resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength {
		return nil, &transportError{fmt.Errorf("GET %s: %w: got %d of %d bytes", key, ErrTruncated, len(body), resp.ContentLength)}
	}
	if c.Cache != nil {
		e := Entry{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"), Body: body}
		if e.ETag != "" || e.LastModified != "" {
			c.Cache.Put(key, e)
		}
	}
	return body, nil
}

// parseRetryAfter reads delta-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// IsTimeout reports whether err came from a timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
