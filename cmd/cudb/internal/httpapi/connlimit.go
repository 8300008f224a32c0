package httpapi

import (
	"errors"
	"io"
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
// closed to make room; when none idles the new connection waits, beside
// the accept loop, up to admitWait for one to go idle or close, and only
// then is refused with a 503.
const (
	DefaultMaxConns          = 2048
	DefaultMaxConnsPerClient = 512
)

const (
	// admitWait is how long a connection over a cap waits for a slot. A
	// keep-alive goes idle a moment after its answer is written, so a new
	// client arriving in that moment is served, not refused.
	admitWait = time.Second
	// maxWaiting bounds connections waiting for a slot and maxRefusing
	// the refusals being written; past them a connection is closed at
	// once, so a flood holds few descriptors and never blocks the accept
	// loop.
	maxWaiting, maxRefusing = 64, 64
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
	seq      uint64        // orders idle transitions
	changed  chan struct{} // closed (and replaced) when a slot may have freed
	waiting  int           // connections waiting for a slot
	refusing int           // refusals being written

	start  sync.Once
	ready  chan net.Conn
	failed chan error
	closed chan struct{}
	close  sync.Once
}

type connEntry struct {
	client string
	idle   uint64 // when it went idle (a sequence number); 0 while not idle
}

func newConnLimiter(ln net.Listener, max, perClient int, logf func(string, ...any)) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perClient: perClient, logf: logf,
		conns: map[net.Conn]*connEntry{}, byClient: map[string]int{}, changed: make(chan struct{}),
		ready: make(chan net.Conn), failed: make(chan error, 1), closed: make(chan struct{})}
}

// Accept returns the next connection admitted under the caps. The accept
// loop runs beside it, so a connection waiting for a slot never delays
// the next one.
func (l *connLimiter) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.loop() })
	select {
	case c := <-l.ready:
		return c, nil
	case err := <-l.failed:
		l.failed <- err // every later Accept fails the same way
		return nil, err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops the waiting connections as well as the listener.
func (l *connLimiter) Close() error {
	l.close.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

func (l *connLimiter) loop() {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				l.failed <- err
				return
			}
			// Out of descriptors (EMFILE) or another passing failure: the
			// server lives on. Back off as net/http does, then try again.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			l.logf("accept: %v; retrying in %s", err, delay)
			select {
			case <-time.After(delay):
				continue
			case <-l.closed:
				l.failed <- net.ErrClosed
				return
			}
		}
		delay = 0
		client := clientOf(c)
		l.mu.Lock()
		why := l.admitLocked(c, client)
		wait := why != "" && l.waiting < maxWaiting
		if wait {
			l.waiting++
		}
		l.mu.Unlock()
		switch {
		case why == "":
			l.hand(c)
		case wait:
			go l.await(c, client)
		default:
			l.refuse(c, client, why)
		}
	}
}

// hand gives an admitted connection to the server.
func (l *connLimiter) hand(c net.Conn) {
	select {
	case l.ready <- c:
	case <-l.closed:
		c.Close()
	}
}

// await waits up to admitWait for a slot for c, then refuses it.
func (l *connLimiter) await(c net.Conn, client string) {
	timer := time.NewTimer(admitWait)
	defer timer.Stop()
	for {
		l.mu.Lock()
		why := l.admitLocked(c, client)
		changed := l.changed
		if why == "" {
			l.waiting--
		}
		l.mu.Unlock()
		if why == "" {
			l.hand(c)
			return
		}
		select {
		case <-changed:
			continue
		case <-timer.C:
			l.refuse(c, client, why)
		case <-l.closed:
			c.Close()
		}
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
		return
	}
}

func clientOf(c net.Conn) string {
	a := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

// admitLocked records c, shedding an idle keep-alive to stay under a cap;
// it returns why c cannot be admitted now when no idle one can go.
func (l *connLimiter) admitLocked(c net.Conn, client string) string {
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
	var since uint64
	for c, e := range l.conns {
		if e.idle != 0 && (client == "" || e.client == client) && (oldest == nil || e.idle < since) {
			oldest, since = c, e.idle
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
	l.signalLocked()
}

// signalLocked wakes the connections waiting for a slot.
func (l *connLimiter) signalLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
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
		l.seq++
		e.idle = l.seq
		l.signalLocked()
	case http.StateActive:
		e.idle = 0
	case http.StateClosed, http.StateHijacked:
		l.removeLocked(c)
	}
}

// refuse answers a connection over a cap with a 503 and closes it: the
// answer, a FIN, then what the client sent is read off, so the close does
// not reset the connection before the client has read the answer.
func (l *connLimiter) refuse(c net.Conn, client, why string) {
	// One line per power of ten refused: a flood does not flood the log.
	if n := l.refused.Add(1); isPow10(n) {
		l.logf("refused connection %d (from %s): %s", n, client, why)
	}
	l.mu.Lock()
	busy := l.refusing >= maxRefusing
	if !busy {
		l.refusing++
	}
	l.mu.Unlock()
	if busy {
		c.Close()
		return
	}
	go func() {
		defer func() {
			l.mu.Lock()
			l.refusing--
			l.mu.Unlock()
		}()
		body := `{"code":"unavailable","error":"` + why + `: try again shortly"}` + "\n"
		c.SetDeadline(time.Now().Add(time.Second))
		c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body))
		if cw, ok := c.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			io.Copy(io.Discard, io.LimitReader(c, MaxBody))
		}
		c.Close()
	}()
}

func isPow10(n int64) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}
