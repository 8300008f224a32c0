package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServerMatchesCLI starts `cudb mcp` from the real binary, talks to
// it with the SDK's client over stdio, lists the tools, calls each one and
// checks that every result carries the JSON the same command prints with
// --json.
func TestMCPServerMatchesCLI(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "cudb-test", Version: "1"}, nil)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "CUDB_NO_DATA_AGE_NOTICE=1")
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	// Each tool's output schema, as a client receives it: every result is
	// validated against it below, as MCP clients do.
	outSchemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s has no description, input schema or output schema", tool.Name)
			continue
		}
		raw, _ := json.Marshal(tool.OutputSchema)
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		if schema.Type != "object" {
			t.Errorf("%s: output schema type %q, want object (MCP structured content is an object)", tool.Name, schema.Type)
		}
		r, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		outSchemas[tool.Name] = r
	}
	slices.Sort(names)
	if want := []string{"check", "explain", "matrix", "pin", "resolve", "verify_report"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	reportText, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "report", "testdata", "sm120_error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	const dockerfile = "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.5.1\n"
	const kernelErr = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		cli   []string
		stdin string
	}{
		{"resolve", map[string]any{"requirements": []string{"torch==2.1"}, "cuda": "12.1"}, []string{"resolve", "torch==2.1", "--cuda", "12.1"}, ""},
		// A conflict is an answer (exit 3 from the CLI), not a tool error.
		{"resolve", map[string]any{"requirements": []string{"torch==2.3.1", "tensorflow==2.16.1"}}, []string{"resolve", "torch==2.3.1", "tensorflow==2.16.1"}, ""},
		{"pin", map[string]any{"requirements": []string{"torch==2.1.0"}, "cuda": "11.8", "format": "uv"}, []string{"pin", "torch==2.1.0", "--cuda", "11.8", "--format", "uv"}, ""},
		// The pasted text is the CLI's standard input.
		{"verify_report", map[string]any{"report": string(reportText)}, []string{"verify", "--from", "-"}, string(reportText)},
		{"explain", map[string]any{"message": kernelErr}, []string{"explain", kernelErr}, ""},
		{"matrix", map[string]any{"table": "cuda"}, []string{"matrix", "cuda"}, ""},
		// check with findings (exit 3) is an answer too.
		{"check", map[string]any{"content": dockerfile, "driver": "470.82.01"}, []string{"check", "-", "--driver", "470.82.01"}, dockerfile},
		{"matrix", map[string]any{"table": "torch", "channel": "conda"}, []string{"matrix", "torch", "--channel", "conda"}, ""},
		// The gpu table's filters, and pin's unknown stack and names.
		{"matrix", map[string]any{"table": "gpu", "cuda": "13", "arch": "Pascal"}, []string{"matrix", "gpu", "--cuda", "13", "--arch", "Pascal"}, ""},
		{"matrix", map[string]any{"table": "gpu", "name": "4090"}, []string{"matrix", "gpu", "--name", "4090"}, ""},
		{"pin", map[string]any{"requirements": []string{"torch==2.4.0"}, "cuda": "12.4", "allow_unknown": true},
			[]string{"pin", "torch==2.4.0", "--cuda", "12.4", "--allow-unknown"}, ""},
		{"pin", map[string]any{"requirements": []string{"torch==2.1.0"}, "cuda": "11.8", "format": "uv", "name": "my-app", "project_version": "1.2.3"},
			[]string{"pin", "torch==2.1.0", "--cuda", "11.8", "--format", "uv", "--name", "my-app", "--project-version", "1.2.3"}, ""},
		{"pin", map[string]any{"requirements": []string{"torch==1.13.1"}, "format": "conda", "name": "train-env"},
			[]string{"pin", "torch==1.13.1", "--format", "conda", "--name", "train-env"}, ""},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if res.IsError {
			t.Errorf("%s %v: tool error %v", tc.tool, tc.args, res.Content)
			continue
		}
		want := cliJSON(t, bin, tc.stdin, tc.cli...)
		var got any
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		obj, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: structured content is a %T, not an object", tc.tool, got)
		}
		if err := outSchemas[tc.tool].Validate(got); err != nil {
			t.Errorf("%s %v: the result does not validate against the tool's output schema: %v", tc.tool, tc.args, err)
		}
		if tc.tool == "matrix" {
			// The CLI prints the table's rows as an array; the tool's
			// object carries them under "rows".
			if obj["table"] != tc.args["table"] {
				t.Errorf("matrix: table %v", obj["table"])
			}
			want = map[string]any{"table": tc.args["table"], "rows": want}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v: the tool's JSON differs from cudb %s --json", tc.tool, tc.args, strings.Join(tc.cli, " "))
		}
		// The text content carries the same JSON for clients that read text.
		var text any
		if c, ok := res.Content[0].(*mcp.TextContent); !ok || json.Unmarshal([]byte(c.Text), &text) != nil || !reflect.DeepEqual(text, want) {
			t.Errorf("%s: text content is not the JSON answer", tc.tool)
		}
	}

	// Errors are tool errors with the CLI's message and hint; arguments
	// that look like flags stay requirements.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"resolve", map[string]any{"requirements": []string{"torch==99"}}, "no torch release matches torch==99"},
		{"resolve", map[string]any{"requirements": []string{"--db=/nonexistent"}}, "invalid requirement"},
		{"pin", map[string]any{"requirements": []string{"torch==2.1"}, "format": "nix"}, "Try:"},
		{"matrix", map[string]any{"table": "nope"}, "unknown table"},
		{"resolve", map[string]any{}, "requirements"},
		// Without allow_unknown an unknown stack is refused, as the CLI
		// refuses it, and the hint names the tool's argument.
		{"pin", map[string]any{"requirements": []string{"torch==2.4.0"}, "cuda": "12.4"}, `"allow_unknown": true`},
		{"pin", map[string]any{"requirements": []string{"torch==2.1.0"}, "format": "uv", "name": "bad name"}, "invalid project name"},
		{"matrix", map[string]any{"table": "torch", "cuda": "12.1"}, "cuda filters the gpu table only"},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		text := ""
		if len(res.Content) > 0 {
			if c, ok := res.Content[0].(*mcp.TextContent); ok {
				text = c.Text
			}
		}
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: isError %v, text %q, want %q", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
}

// cliJSON runs the binary with --json and decodes what it prints (exit 3,
// a reported outcome, still prints the answer).
func cliJSON(t *testing.T, bin, stdin string, args ...string) any {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--json")...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
		t.Fatalf("cudb %s --json: %v", strings.Join(args, " "), err)
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("cudb %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}
