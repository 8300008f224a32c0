package mcptools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine bounds one inbound JSON-RPC line (a check tool call carries a
// whole project file: internal/input.MaxFileSize, escaped).
const MaxLine = 16 << 20

// DrainTimeout bounds how long the end of input waits for calls still
// being answered.
const DrainTimeout = 2 * time.Minute

// Transport is the SDK's stdio transport behind a line filter. The SDK
// ends the session on the first line it cannot decode; the filter answers
// such a line itself, as JSON-RPC asks, and the session goes on:
//   - a line that is not JSON: -32700 (parse error);
//   - JSON that is not one JSON-RPC message (a batch, no "jsonrpc":"2.0",
//     a bad id): -32600 (invalid request), with the id when one is readable;
//   - a line over MaxLine bytes: -32600, naming the bound; it is skipped
//     without being held in memory.
//
// At the end of input the filter waits (up to DrainTimeout) until every
// request it passed on has been answered, so answers still in flight are
// written before the session closes.
func Transport(in io.Reader, out io.Writer) mcp.Transport {
	w := &lineWriter{w: out, pending: map[string]bool{}}
	w.cond = sync.NewCond(&w.mu)
	pr, pw := io.Pipe()
	go filterLines(in, pw, w)
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: MaxLine + 1}
}

func filterLines(in io.Reader, pw *io.PipeWriter, w *lineWriter) {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over && len(line)+len(chunk) > MaxLine+1 {
			over, line = true, line[:0]
		}
		if !over {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case over:
			w.reply(nil, -32600, fmt.Sprintf("invalid request: the line is longer than %d bytes: not read", MaxLine))
		case len(bytes.TrimSpace(line)) > 0 && judgeLine(line, w):
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			if _, werr := pw.Write(line); werr != nil {
				return // the session closed
			}
		}
		line, over = line[:0], false
		if err != nil {
			w.drain(DrainTimeout)
			pw.Close()
			return
		}
	}
}

// judgeLine reports whether line is one JSON-RPC message to pass on; it
// answers any other line and records requests awaiting an answer.
func judgeLine(line []byte, w *lineWriter) bool {
	t := bytes.TrimSpace(line)
	if !json.Valid(t) {
		w.reply(nil, -32700, "parse error: the line is not JSON")
		return false
	}
	msg, err := jsonrpc.DecodeMessage(t)
	if err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		var id json.RawMessage
		if json.Unmarshal(t, &probe) == nil && validID(probe.ID) {
			id = probe.ID
		}
		why := `not a JSON-RPC 2.0 message: it needs "jsonrpc": "2.0", a "method" and, for a call, a string or number "id"`
		if t[0] == '[' {
			why = "batches are not accepted: send one message per line"
		}
		w.reply(id, -32600, "invalid request: "+why)
		return false
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		w.expect(req.ID.Raw())
	}
	return true
}

func validID(raw json.RawMessage) bool {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// lineWriter serialises whole lines to out: the SDK's messages and the
// filter's answers never interleave. It tracks the requests that await
// an answer.
type lineWriter struct {
	mu      sync.Mutex
	cond    *sync.Cond
	w       io.Writer
	pending map[string]bool
}

func idKey(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (w *lineWriter) expect(id any) {
	w.mu.Lock()
	w.pending[idKey(id)] = true
	w.mu.Unlock()
}

func (w *lineWriter) Write(p []byte) (int, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(p)
	if json.Unmarshal(p, &m) == nil && m.Method == nil && len(m.ID) > 0 {
		var id any
		if json.Unmarshal(m.ID, &id) == nil {
			delete(w.pending, idKey(id))
			w.cond.Broadcast()
		}
	}
	return n, err
}

func (w *lineWriter) Close() error { return nil }

// reply writes a JSON-RPC error response.
func (w *lineWriter) reply(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w.Write(append(b, '\n'))
}

// drain waits until every passed-on request is answered, or d passes.
func (w *lineWriter) drain(d time.Duration) {
	timer := time.AfterFunc(d, func() {
		w.mu.Lock()
		w.pending = map[string]bool{}
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	w.mu.Lock()
	for len(w.pending) > 0 {
		w.cond.Wait()
	}
	w.mu.Unlock()
}
