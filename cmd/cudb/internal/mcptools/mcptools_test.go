package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves NewServer over in-memory transports with run as the
// command runner.
func connect(t *testing.T, run Runner) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := NewServer("test", run).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestToolsBuildCommandLines: inputs become --flag=value arguments, and
// requirements come after "--" so none is read as a flag.
func TestToolsBuildCommandLines(t *testing.T) {
	var gotArgs []string
	var gotStdin string
	cs := connect(t, func(_ context.Context, args []string, stdin string) ([]byte, error) {
		gotArgs, gotStdin = args, stdin
		return []byte(minimalAnswers[args[0]]), nil
	})
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		want  []string
		stdin string
	}{
		{"resolve", map[string]any{"requirements": []string{"torch==2.1", "-o"}, "cuda": "-12", "pre": true, "limit": 2},
			[]string{"resolve", "--cuda=-12", "--pre", "--limit=2", "--", "torch==2.1", "-o"}, ""},
		{"pin", map[string]any{"requirements": []string{"jax"}, "format": "docker", "devel": true, "gpu": "Tesla T4"},
			[]string{"pin", "--gpu=Tesla T4", "--format=docker", "--devel", "--", "jax"}, ""},
		{"verify_report", map[string]any{"report": "NVIDIA-SMI 550.54.15"}, []string{"verify", "--from=-"}, "NVIDIA-SMI 550.54.15"},
		{"explain", map[string]any{"message": "--json"}, []string{"explain", "-"}, "--json"},
		{"matrix", map[string]any{"table": "torch", "channel": "conda"}, []string{"matrix", "torch", "--channel=conda"}, ""},
		{"matrix", map[string]any{"table": "gpu", "cuda": "13", "arch": "Pascal", "name": "-x"}, []string{"matrix", "gpu", "--cuda=13", "--arch=Pascal", "--name=-x"}, ""},
		{"pin", map[string]any{"requirements": []string{"torch"}, "format": "uv", "allow_unknown": true, "name": "app", "project_version": "2.0"},
			[]string{"pin", "--format=uv", "--allow-unknown", "--name=app", "--project-version=2.0", "--", "torch"}, ""},
		{"check", map[string]any{"content": "torch==2.1.0\n", "driver": "470.82.01", "sm": "8.6"}, []string{"check", "--driver=470.82.01", "--sm=8.6", "--", "-"}, "torch==2.1.0\n"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tc.tool, err, res)
		}
		if !slices.Equal(gotArgs, tc.want) || gotStdin != tc.stdin {
			t.Errorf("%s: ran %q with stdin %q, want %q with %q", tc.tool, gotArgs, gotStdin, tc.want, tc.stdin)
		}
	}
}

// minimalAnswers are the smallest JSON answers of each command that its
// tool's output schema accepts (the real answers are checked against the
// schemas in cmd/cudb's TestMCPServerMatchesCLI).
var minimalAnswers = map[string]string{
	"resolve": `{"query": {"requirements": []}, "status": "ok", "unknown": [], "stacks": [], "conflicts": []}`,
	"pin":     `{"format": "requirements", "content": "", "query": {"requirements": []}, "data": {"schema_version": "6"}, "notes": []}`,
	"verify":  `{"summary": {"errors": 0, "warnings": 0, "infos": 0, "healthy": true}, "findings": []}`,
	"explain": `{"findings": [], "lines": 1, "skipped": 0}`,
	"check":   `{"files": [], "summary": {"errors": 0, "warnings": 0, "infos": 0, "healthy": true}, "findings": []}`,
	"matrix":  `[]`,
}

// TestOutputSchemas: every tool declares an object output schema, the
// matrix tool wraps the CLI's array in an object, and an answer that does
// not fit the schema is never sent as a result.
func TestOutputSchemas(t *testing.T) {
	var answer string
	cs := connect(t, func(context.Context, []string, string) ([]byte, error) { return []byte(answer), nil })
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		schema, ok := tool.OutputSchema.(map[string]any)
		if !ok || schema["type"] != "object" || len(schema["required"].([]any)) == 0 {
			t.Errorf("%s: output schema %v is not an object schema with required keys", tool.Name, tool.OutputSchema)
		}
	}
	answer = `[{"cuda": "12.1"}]`
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "matrix", Arguments: map[string]any{"table": "cuda"}})
	if err != nil || res.IsError {
		t.Fatalf("matrix: %v %v", err, res)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if string(got) != `{"rows":[{"cuda":"12.1"}],"table":"cuda"}` {
		t.Errorf("matrix structured content %s", got)
	}
	// A resolve answer without its stacks breaks the contract: an error,
	// not a result a client would reject.
	answer = `{"query": {"requirements": []}, "status": "ok", "conflicts": []}`
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve", Arguments: map[string]any{"requirements": []string{"torch"}}})
	if err == nil && !res.IsError {
		t.Errorf("an answer without stacks was sent as a result: %v", res.StructuredContent)
	}
}

func TestToolErrors(t *testing.T) {
	cs := connect(t, func(_ context.Context, args []string, _ string) ([]byte, error) {
		return nil, errors.New("no torch release matches torch==99\nTry: one of: 2.1.0")
	})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"resolve", map[string]any{"requirements": []string{"torch==99"}}, "Try: one of"},
		{"pin", map[string]any{"requirements": []string{}}, "name at least one"},
		{"verify_report", map[string]any{"report": ""}, "paste the text"},
		{"explain", map[string]any{"message": ""}, "paste the error"},
		{"matrix", map[string]any{"table": ""}, "name a table"},
		{"check", map[string]any{"content": ""}, "paste the text"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		if len(res.Content) > 0 {
			text = res.Content[0].(*mcp.TextContent).Text
		}
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s: isError %v %q, want %q", tc.tool, res.IsError, text, tc.want)
		}
	}
}

// TestDocsCoverSchemas: docs/mcp.md names every tool and every property
// of its input schema.
func TestDocsCoverSchemas(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if !strings.Contains(string(doc), "### "+tool.Name+"\n") {
			t.Errorf("docs/mcp.md has no section for %s", tool.Name)
		}
		schema, ok := tool.InputSchema.(map[string]any)
		if !ok {
			t.Fatalf("%s: schema %T", tool.Name, tool.InputSchema)
		}
		for prop := range schema["properties"].(map[string]any) {
			if !strings.Contains(string(doc), "`"+prop+"`") {
				t.Errorf("docs/mcp.md does not document %s.%s", tool.Name, prop)
			}
		}
	}
	slices.Sort(names)
	want := slices.Clone(Tools)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, Tools %v", names, want)
	}
}
