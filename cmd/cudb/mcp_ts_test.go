package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestMCPTypeScriptSDK drives `cudb mcp` with the official TypeScript SDK
// client (@modelcontextprotocol/sdk from npm, pinned by
// testdata/mcp-ts/package-lock.json and installed by `make mcp-ts-deps`):
// it lists the tools, calls each one, and validates every result against
// the tool's output schema with Ajv, after the SDK's own checks (which
// reject, for one, structured content that is not an object). Without
// node or the installed packages it skips, except under CI=true.
func TestMCPTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node in a child process")
	}
	dir := filepath.Join("testdata", "mcp-ts")
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil || modErr != nil {
		msg := "node or the TypeScript SDK is not installed (make mcp-ts-deps installs it from npm)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := buildBinary(t)
	report, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "report", "testdata", "sm120_error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
	}
	calls := []call{
		{"resolve", map[string]any{"requirements": []string{"torch==2.1"}, "cuda": "12.1"}},
		{"resolve", map[string]any{"requirements": []string{"torch==2.3.1", "tensorflow==2.16.1"}}},
		{"pin", map[string]any{"requirements": []string{"torch==2.1.0"}, "cuda": "11.8", "format": "uv"}},
		{"pin", map[string]any{"requirements": []string{"torch==2.4.0"}, "cuda": "12.4", "allow_unknown": true}},
		{"verify_report", map[string]any{"report": string(report)}},
		{"explain", map[string]any{"message": "RuntimeError: CUDA error: no kernel image is available for execution on the device"}},
		{"check", map[string]any{"content": "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.5.1\n", "driver": "470.82.01"}},
		{"check", map[string]any{"content": "torch==2.1.0\n"}},
	}
	for _, table := range []string{"torch", "tensorflow", "jax", "onnxruntime", "cuda", "cudnn", "driver", "gpu", "arch"} {
		calls = append(calls, call{"matrix", map[string]any{"table": table}})
	}
	// A refused call is a tool error the client reads, not a client error.
	calls = append(calls, call{"resolve", map[string]any{"requirements": []string{"torch==99"}}})
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	b, _ := json.Marshal(calls)
	if err := os.WriteFile(callsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "client.mjs", bin, callsFile)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()

	var listed, called []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := 0
	for sc.Scan() {
		var line struct {
			List, Tool, ClientError, Text, Error string
			IsError, Object, Valid, TextMatches  bool
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("client output: %v: %s", err, sc.Bytes())
		}
		if line.List != "" {
			listed = append(listed, line.List)
			if line.Error != "" {
				t.Errorf("tools/list: %s: %s", line.List, line.Error)
			}
			continue
		}
		c := calls[i]
		i++
		switch {
		case line.ClientError != "":
			t.Errorf("%s %v: the TypeScript SDK client failed: %s", c.Tool, c.Arguments, line.ClientError)
		case c.Tool == "resolve" && slices.Contains(c.Arguments["requirements"].([]string), "torch==99"):
			if !line.IsError || line.Text == "" {
				t.Errorf("torch==99: want a tool error with a message, got %s", sc.Bytes())
			}
		case line.IsError:
			t.Errorf("%s %v: tool error %q", c.Tool, c.Arguments, line.Text)
		case !line.Object || !line.Valid || !line.TextMatches:
			t.Errorf("%s %v: %s", c.Tool, c.Arguments, sc.Bytes())
		default:
			called = append(called, c.Tool)
		}
	}
	if i != len(calls) {
		t.Errorf("the client answered %d of %d calls: %v\n%s", i, len(calls), runErr, stderr.Bytes())
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("node client.mjs: %v\n%s", runErr, stderr.Bytes())
	}
	slices.Sort(listed)
	called = slices.Compact(slices.Sorted(slices.Values(called)))
	if !slices.Equal(listed, called) {
		t.Errorf("listed %v, called with a valid result %v", listed, called)
	}
}
