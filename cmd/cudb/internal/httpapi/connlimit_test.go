package httpapi_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
)

// healthzOn sends GET /healthz on c (keep-alive) and returns the status.
func healthzOn(t *testing.T, c net.Conn, br *bufio.Reader) int {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func dialKeep(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestConnectionCaps: past a cap (in total, or per client) a connection
// that has sent nothing yet is never dropped and the new one is refused
// with a 503; idle keep-alives are closed first to make room.
func TestConnectionCaps(t *testing.T) {
	for _, tc := range []struct {
		name            string
		total, perClent int
	}{{"total", 3, 100}, {"per client", 100, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &httpapi.Server{DB: openDB(t, testDBPath(t)), Log: io.Discard, MaxConns: tc.total, MaxConnsPerClient: tc.perClent}
			addr := strings.TrimPrefix(start(t, srv), "http://")
			// Three connections busy (they have sent nothing: not idle).
			var busy []net.Conn
			for range 3 {
				c, _ := dialKeep(t, addr)
				busy = append(busy, c)
			}
			c, br := dialKeep(t, addr)
			if st := healthzOn(t, c, br); st != http.StatusServiceUnavailable {
				t.Fatalf("a fourth connection past the cap: status %d, want 503", st)
			}
			for _, b := range busy {
				b.Close()
			}
			// Three idle keep-alives: a fourth client is served, the
			// longest-idle keep-alive closed.
			var idle []*bufio.Reader
			var idleConns []net.Conn
			for i := range 3 {
				var st int
				for try := 0; try < 100; try++ { // the closed ones leave the count as the server notices
					c, br := dialKeep(t, addr)
					if st = healthzOn(t, c, br); st == http.StatusOK {
						idle, idleConns = append(idle, br), append(idleConns, c)
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				if st != http.StatusOK {
					t.Fatalf("keep-alive %d: status %d", i, st)
				}
			}
			var st int
			for try := 0; try < 100; try++ { // until the server has marked them idle
				c, br := dialKeep(t, addr)
				if st = healthzOn(t, c, br); st == http.StatusOK {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if st != http.StatusOK {
				t.Fatalf("a new client at the cap with idle keep-alives: status %d, want 200", st)
			}
			idleConns[0].SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := idle[0].ReadByte(); err == nil {
				t.Error("the longest-idle keep-alive was not closed")
			}
		})
	}
}
