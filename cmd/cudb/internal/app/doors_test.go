package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cudb/cudb/cmd/cudb/internal/httpapi"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query/querytest"
)

// doors runs one `cudb check` through the three front doors over one
// database: the command tree, POST /v1/check and the MCP check tool.
type doors struct {
	f   *cli.Factory
	srv *httptest.Server
	cs  *mcp.ClientSession
}

func newDoors(t *testing.T) *doors {
	t.Helper()
	s, _, _ := cli.TestStreams("")
	f := NewFactory(s)
	f.DBPath = querytest.Path(t)
	ctx := context.Background()
	d, err := f.DB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer((&httpapi.Server{DB: d, Version: "test"}).Handler())
	t.Cleanup(srv.Close)
	return &doors{f: f, srv: srv, cs: connectMCP(t, f)}
}

// cli runs `cudb check - <flags>` with content on standard input.
func (d *doors) cli(content string, flags map[string]string) error {
	s, _, _ := cli.TestStreams(content)
	sub := d.f.Sub(s)
	args := []string{"check", "--json"}
	for k, v := range flags {
		args = append(args, "--"+k+"="+v)
	}
	root := cli.NewRootCmd(sub)
	root.SetArgs(append(args, "-"))
	return root.ExecuteContext(context.Background())
}

func (d *doors) http(t *testing.T, name, content string, flags map[string]string) (int, string) {
	t.Helper()
	q := url.Values{"name": {name}}
	for k, v := range flags {
		q.Set(k, v)
	}
	resp, err := http.Post(d.srv.URL+"/v1/check?"+q.Encode(), "text/plain", strings.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func (d *doors) mcp(t *testing.T, content string, flags map[string]string) (bool, string) {
	t.Helper()
	args := map[string]any{"content": content}
	for k, v := range flags {
		args[k] = v
	}
	res, err := d.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res.IsError, b.String()
}

// alive asserts that the server and the MCP session still answer.
func (d *doors) alive(t *testing.T) {
	t.Helper()
	resp, err := http.Get(d.srv.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("server not alive: %v %v", err, resp)
	}
	resp.Body.Close()
	if err := d.cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("MCP session not alive: %v", err)
	}
}

// TestOneValidationPerValue runs each rule on a target value through the
// CLI, HTTP and MCP: every door refuses it as a usage error (exit 2,
// HTTP 400, a tool error) with the same words.
func TestOneValidationPerValue(t *testing.T) {
	d := newDoors(t)
	const file = "torch==2.1.0\n"
	for _, tc := range []struct {
		flags map[string]string
		words string
	}{
		{map[string]string{"python": "1e309"}, `invalid --python "1e309"`},
		{map[string]string{"python": "abc"}, `invalid --python "abc"`},
		{map[string]string{"python": "9"}, `invalid --python "9"`},
		{map[string]string{"python": "3"}, `invalid --python "3"`},
		{map[string]string{"gpu": "RTX 4090", "sm": "3.0"}, "give either --gpu or --sm, not both"},
		{map[string]string{"sm": "99.9"}, "out of range"},
		{map[string]string{"sm": "abc"}, "is not a compute capability"},
		{map[string]string{"driver": "abc"}, "is not a driver version"},
		{map[string]string{"platform": "plan9"}, `invalid --platform "plan9"`},
	} {
		t.Run(fmt.Sprint(tc.flags), func(t *testing.T) {
			err := d.cli(file, tc.flags)
			if errs.CodeOf(err) != errs.CodeUsage || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("CLI: %v (code %s), want a usage error with %q", err, errs.CodeOf(err), tc.words)
			}
			if code, body := d.http(t, "requirements.txt", file, tc.flags); code != http.StatusBadRequest || !strings.Contains(body, strings.ReplaceAll(tc.words, `"`, `\"`)) {
				t.Errorf("HTTP: %d %s, want 400 with %q", code, body, tc.words)
			}
			if isErr, text := d.mcp(t, file, tc.flags); !isErr || !strings.Contains(text, tc.words) {
				t.Errorf("MCP: error=%v %s, want a tool error with %q", isErr, text, tc.words)
			}
		})
	}
	d.alive(t)
}

// TestCheckBoundsEveryDoor: the blow-up inputs of the adversarial pass
// answer a limit error naming the bound in each door, and the server and
// the MCP session go on answering.
func TestCheckBoundsEveryDoor(t *testing.T) {
	d := newDoors(t)
	var dockerfile strings.Builder
	dockerfile.WriteString("FROM python:3.11\nARG A0=x\n")
	for i := 1; i <= 28; i++ {
		fmt.Fprintf(&dockerfile, "ARG A%d=${A%d}${A%d}\n", i, i-1, i-1)
	}
	dockerfile.WriteString("RUN pip install torch==${A28}\n")
	header := "[project]\nname = \"x\"\n[tool." + strings.TrimSuffix(strings.Repeat("a.", 100_000), ".") + "]\nx = 1\n"
	inline := "[project]\nname = " + strings.Repeat("{a = ", 40_000) + "1" + strings.Repeat("}", 40_000) + "\n"
	for _, tc := range []struct{ name, file, content, words string }{
		{"doubling ARGs", "Dockerfile", dockerfile.String(), "after $VAR expansion"},
		{"100,000-part table header", "pyproject.toml", header, "nesting depth of a dotted key or table header"},
		{"40,000 nested inline tables", "pyproject.toml", inline, "nesting depth of arrays and inline tables"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := d.cli(tc.content, nil)
			if errs.CodeOf(err) != errs.CodeLimit || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("CLI: %v, want a limit error with %q", err, tc.words)
			}
			code, body := d.http(t, tc.file, tc.content, nil)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, tc.words) {
				t.Errorf("HTTP: %d %.300s, want 422 with %q", code, body, tc.words)
			}
			if isErr, text := d.mcp(t, tc.content, nil); !isErr || !strings.Contains(text, tc.words) {
				t.Errorf("MCP: error=%v %.300s, want a tool error with %q", isErr, text, tc.words)
			}
			d.alive(t)
		})
	}
}

// TestMCPBadLinesKeepTheSession: each malformed line of the adversarial
// pass draws a JSON-RPC error, and the ping after it is answered.
func TestMCPBadLinesKeepTheSession(t *testing.T) {
	bad := []struct {
		line string
		code int
	}{
		{"{not json", -32700},
		{"\x00\x01\x02", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700},
		{"[]", -32600},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600},
		{`{"id":4,"method":"ping"}`, -32600},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
		{`"str"`, -32600},
		{"42", -32600},
		{"null", -32600},
		{`{"jsonrpc":"2.0"}`, -32600},
		{`{"jsonrpc":"2.0","id":6,"method":7}`, -32600},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600},
		{`{"x":"` + strings.Repeat("a", 17<<20) + `"}`, -32600},
	}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i, b := range bad {
		in.WriteString(b.line + "\n")
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":"ping%d","method":"ping"}`+"\n", i)
	}
	// A call still being answered when the input ends is answered.
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"check","arguments":{"content":"torch==2.1.0\n"}}}` + "\n")
	s, out, _ := cli.TestStreams(in.String())
	f := NewFactory(s)
	f.DBPath = querytest.Path(t)
	root := cli.NewRootCmd(f)
	root.SetArgs([]string{"mcp"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var codes []int
	answered := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID    any `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON on stdout: %.200s", l)
		}
		if m.Error != nil && m.ID == nil {
			codes = append(codes, m.Error.Code)
		} else if m.Error != nil {
			codes = append(codes, m.Error.Code) // an invalid request with a readable id
		}
		if id, ok := m.ID.(string); ok && m.Error == nil {
			answered[id] = true
		}
	}
	for i := range bad {
		if !answered[fmt.Sprintf("ping%d", i)] {
			t.Errorf("the ping after %.40q was not answered", bad[i].line)
		}
	}
	if !answered["last"] {
		t.Error("the call in flight at the end of input was not answered")
	}
	if len(codes) != len(bad) {
		t.Fatalf("%d error answers for %d bad lines: %v", len(codes), len(bad), codes)
	}
	for i, b := range bad {
		if codes[i] != b.code {
			t.Errorf("%.40q: code %d, want %d", b.line, codes[i], b.code)
		}
	}
}
