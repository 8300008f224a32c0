package mcptools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
	"github.com/cudb/cudb/usecase"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves NewServer over in-memory transports on the embedded
// database.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	d := querytest.Embedded(t)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := NewServer("test", func(context.Context) (*usecase.DB, error) { return d, nil }).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestToolsCallUseCases: each tool's structured result is the JSON of
// its use case called with the same inputs (what the CLI prints with
// --json), a requirement that starts with a dash included.
func TestToolsCallUseCases(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	cs := connect(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want func() (any, error)
	}{
		{"resolve", map[string]any{"requirements": []string{"torch==2.1"}, "cuda": "12.1", "limit": 2}, func() (any, error) {
			return usecase.Resolve(ctx, d, usecase.ResolveOptions{ResolveRequest: usecase.ResolveRequest{Requirements: []string{"torch==2.1"}, CUDA: "12.1"}, Limit: 2})
		}},
		{"pin", map[string]any{"requirements": []string{"torch==2.1"}, "format": "docker", "devel": true, "cuda": "12.1"}, func() (any, error) {
			return usecase.Pin(ctx, d, usecase.PinOptions{ResolveRequest: usecase.ResolveRequest{Requirements: []string{"torch==2.1"}, CUDA: "12.1"}, Format: "docker", Devel: true, CudbVersion: "test"})
		}},
		{"verify_report", map[string]any{"report": "NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4\n"}, func() (any, error) {
			return usecase.Verify(ctx, d, usecase.VerifyOptions{Reports: []usecase.ReportText{{Name: "<stdin>", Text: []byte("NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4\n")}}})
		}},
		{"explain", map[string]any{"message": "no kernel image is available for execution on the device"}, func() (any, error) {
			return usecase.Explain(ctx, d, usecase.ExplainOptions{Text: "no kernel image is available for execution on the device"})
		}},
		{"matrix", map[string]any{"table": "gpu", "cuda": "13", "arch": "Pascal"}, func() (any, error) {
			return usecase.Matrix(ctx, d, usecase.MatrixOptions{Table: "gpu", GPU: usecase.GPUFilter{CUDA: "13", Arch: "Pascal"}})
		}},
		{"check", map[string]any{"content": "torch==2.1.0\n", "driver": "470.82.01", "sm": "8.6"}, func() (any, error) {
			return usecase.Check(ctx, d, usecase.CheckOptions{Files: []usecase.CheckInput{{Name: "-", Data: []byte("torch==2.1.0\n")}},
				Target: usecase.CheckTarget{Driver: "470.82.01", SM: "8.6", From: "flags"}})
		}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tc.tool, err, res)
		}
		want, err := tc.want()
		if err != nil {
			t.Fatalf("%s: the use case failed: %v", tc.tool, err)
		}
		var got, exp any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(want)
		if err := json.Unmarshal(b, &exp); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("%s: tool result differs from the use case (-use case +tool):\n%s", tc.tool, diff)
		}
	}
}

// TestOutputSchemas: every tool declares an object output schema, the
// matrix tool wraps the CLI's array in an object, and an answer that does
// not fit the schema is never sent as a result.
func TestOutputSchemas(t *testing.T) {
	cs := connect(t)
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
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "matrix", Arguments: map[string]any{"table": "cuda"}})
	if err != nil || res.IsError {
		t.Fatalf("matrix: %v %v", err, res)
	}
	m, ok := res.StructuredContent.(map[string]any)
	if rows, isRows := m["rows"].([]any); !ok || m["table"] != "cuda" || !isRows || len(rows) == 0 {
		t.Errorf("matrix structured content %v, want {table: cuda, rows: [...]}", res.StructuredContent)
	}
}

func TestToolErrors(t *testing.T) {
	cs := connect(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"resolve", map[string]any{"requirements": []string{"torch==99"}}, "Try: "},
		{"matrix", map[string]any{"table": "cuda", "arch": "Pascal"}, "gpu table only"},
		{"pin", map[string]any{"requirements": []string{"torch==2.1"}, "format": "nope"}, "unknown format"},
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
	cs := connect(t)
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
