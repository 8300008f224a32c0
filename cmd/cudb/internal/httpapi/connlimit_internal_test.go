package httpapi

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
)

// flakyListener fails its first accepts with EMFILE (out of descriptors),
// then hands out one end of a pipe, then is closed.
type flakyListener struct {
	mu    sync.Mutex
	fails int
	conn  net.Conn
	calls int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	switch {
	case l.fails > 0:
		l.fails--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	case l.conn != nil:
		c := l.conn
		l.conn = nil
		return c, nil
	}
	return nil, net.ErrClosed
}

func (l *flakyListener) Close() error   { return nil }
func (l *flakyListener) Addr() net.Addr { return &net.TCPAddr{} }

// TestConnLimiterSurvivesEMFILE: running out of descriptors fails an
// accept, not the server: the limiter backs off and accepts again, and
// only a closed listener ends Accept.
func TestConnLimiterSurvivesEMFILE(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	fl := &flakyListener{fails: 3, conn: server}
	var logged []string
	var mu sync.Mutex
	l := newConnLimiter(fl, 10, 10, func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, format)
		mu.Unlock()
	})
	c, err := l.Accept()
	if err != nil || c != server {
		t.Fatalf("after three EMFILEs: %v %v, want the connection", c, err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a closed listener: %v, want net.ErrClosed", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a second Accept after close: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 3 {
		t.Errorf("logged %d accept failures, want 3", len(logged))
	}
}
