package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Connection caps (docs/http.md). Each open connection holds a file
// descriptor and a goroutine whether it works or idles in keep-alive; 24,000
// idle keep-alives once exhausted the server's descriptors. At a cap the
// longest-idle keep-alive (of that client, for the per-client cap) is
// closed to make room; only when none idles is the new connection refused
// with a 503.
const (
	DefaultMaxConns          = 2048
	DefaultMaxConnsPerClient = 512
)

// connLimiter admits connections under the caps; ConnState keeps it told
// which are idle.
type connLimiter struct {
	net.Listener
	max, perClient int
	logf           func(format string, args ...any)

	refused  atomic.Int64
	mu       sync.Mutex
	conns    map[net.Conn]*connEntry
	byClient map[string]int
}

type connEntry struct {
	client    string
	idle      bool
	idleSince time.Time
}

func newConnLimiter(ln net.Listener, max, perClient int, logf func(string, ...any)) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perClient: perClient, logf: logf,
		conns: map[net.Conn]*connEntry{}, byClient: map[string]int{}}
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if why := l.admit(c); why != "" {
			go refuse(c, why)
			// One line per power of ten refused: a flood does not flood
			// the log.
			if n := l.refused.Add(1); isPow10(n) {
				l.logf("refused connection %d (from %s): %s", n, clientOf(c), why)
			}
			continue
		}
		return c, nil
	}
}

func clientOf(c net.Conn) string {
	a := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

// admit records c, shedding an idle keep-alive to stay under a cap; it
// returns why c is refused when no idle one can go.
func (l *connLimiter) admit(c net.Conn) string {
	client := clientOf(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byClient[client] >= l.perClient && !l.shedLocked(client) {
		return "the client holds the most connections one client may open at once (" + strconv.Itoa(l.perClient) + ")"
	}
	if len(l.conns) >= l.max && !l.shedLocked("") {
		return "the server holds the most connections it opens at once (" + strconv.Itoa(l.max) + ")"
	}
	l.conns[c] = &connEntry{client: client}
	l.byClient[client]++
	return ""
}

// shedLocked closes the longest-idle keep-alive connection (of client,
// when given).
func (l *connLimiter) shedLocked(client string) bool {
	var oldest net.Conn
	var since time.Time
	for c, e := range l.conns {
		if e.idle && (client == "" || e.client == client) && (oldest == nil || e.idleSince.Before(since)) {
			oldest, since = c, e.idleSince
		}
	}
	if oldest == nil {
		return false
	}
	l.removeLocked(oldest)
	oldest.Close()
	return true
}

func (l *connLimiter) removeLocked(c net.Conn) {
	e, ok := l.conns[c]
	if !ok {
		return
	}
	delete(l.conns, c)
	if l.byClient[e.client]--; l.byClient[e.client] <= 0 {
		delete(l.byClient, e.client)
	}
}

// connState is the http.Server's ConnState hook.
func (l *connLimiter) connState(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.conns[c]
	if !ok {
		return
	}
	switch st {
	case http.StateIdle:
		e.idle, e.idleSince = true, time.Now()
	case http.StateActive:
		e.idle = false
	case http.StateClosed, http.StateHijacked:
		l.removeLocked(c)
	}
}

// refuse answers a connection over a cap with a 503 and closes it.
func refuse(c net.Conn, why string) {
	body := `{"code":"unavailable","error":"` + why + `: try again shortly"}` + "\n"
	c.SetDeadline(time.Now().Add(time.Second))
	c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	c.Close()
}

func isPow10(n int64) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}
