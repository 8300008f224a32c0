package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

func TestPinEndToEnd(t *testing.T) {
	dbPath := querytest.PinPath(t)
	code, out, stderr := run(t, false, "pin", "torch==2.1.0", "--cuda", "11.8", "--db", dbPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"# cudb pin torch==2.1.0 --cuda 11.8 --format requirements", "built_from 0123456789ab",
		"--index-url https://download.pytorch.org/whl/cu118\ntorch==2.1.0+cu118\ntorchvision==0.16.0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("requirements lack %q:\n%s", want, out)
		}
	}

	code, out, stderr = run(t, false, "pin", "torch==1.13.1", "--format", "conda", "--json", "--db", dbPath)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Format  string `json:"format"`
		Content string `json:"content"`
		Stack   struct {
			Packages map[string]string `json:"packages"`
			Variant  string            `json:"variant"`
		} `json:"stack"`
		Data struct {
			BuiltFrom string `json:"built_from"`
		} `json:"data"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Format != "conda" || !strings.Contains(res.Content, "  - pytorch-cuda=11.7\n") || res.Stack.Variant != "cu117" ||
		res.Data.BuiltFrom == "" || res.Notes == nil {
		t.Errorf("json = %+v", res)
	}
}

func TestPinExitCodes(t *testing.T) {
	dbPath := querytest.PinPath(t)
	cases := []struct {
		args   []string
		code   int
		stderr []string
	}{
		{[]string{"pin", "torch", "--format", "yaml"}, ExitUsage, []string{"unknown format \"yaml\"", "requirements, constraints, pip, uv, conda, apt, docker", "Try: "}},
		{[]string{"pin", "torch==2.3.1", "tensorflow==2.16.1"}, ExitIncompatible, []string{"cannot share one environment", "nvidia-cudnn-cu12==8.9.7.29", "Try: cudb pin torch==2.3.1 tensorflow==2.17.0"}},
		{[]string{"pin", "tensorflow==2.11.0", "--platform", "windows"}, ExitNoMatch, []string{"platform windows"}},
		{[]string{"pin", "torch==2.4.0", "--format", "conda"}, ExitNoMatch, []string{"not published to the conda channels"}},
		{[]string{"pin", "torch==9.9"}, ExitNoMatch, []string{"no torch release matches"}},
		{[]string{"pin"}, ExitUsage, []string{"at least one requirement"}},
	}
	for _, tc := range cases {
		code, out, stderr := run(t, false, append(tc.args, "--db", dbPath)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
		for _, w := range tc.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q: %s", tc.args, w, stderr)
			}
		}
		if out != "" {
			t.Errorf("%v: stdout on error: %q", tc.args, out)
		}
	}
	// --json with a conflict: the conflicts on stdout, the error on stderr.
	code, out, _ := run(t, false, "pin", "torch==2.3.1", "tensorflow==2.16.1", "--json", "--db", dbPath)
	var res struct{ Conflicts []map[string]any }
	if code != ExitIncompatible || json.Unmarshal([]byte(out), &res) != nil || len(res.Conflicts) == 0 {
		t.Errorf("json conflict: exit %d %s", code, out)
	}
}

func TestPinOutputFile(t *testing.T) {
	dbPath := querytest.PinPath(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "requirements.txt")
	code, out, stderr := run(t, false, "pin", "torch==2.1.0", "--cuda", "12.1", "-o", path, "--db", dbPath)
	if code != 0 || out != "" {
		t.Fatalf("exit %d out %q: %s", code, out, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "torch==2.1.0\n") {
		t.Fatalf("%v: %s", err, b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}

	// A failing request leaves the file as it was.
	for _, args := range [][]string{
		{"pin", "torch==9.9", "-o", path},
		{"pin", "torch", "--format", "yaml", "-o", path},
		{"pin", "torch==2.3.1", "tensorflow==2.16.1", "-o", path},
	} {
		if code, _, _ := run(t, false, append(args, "--db", dbPath)...); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
		if after, _ := os.ReadFile(path); string(after) != string(b) {
			t.Errorf("%v changed the file", args)
		}
	}

	// A write that cannot finish (the target is a directory, or its
	// directory is missing) leaves nothing behind.
	target := filepath.Join(dir, "adir")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, false, "pin", "torch==2.1.0", "-o", target, "--db", dbPath); code != ExitError || !strings.Contains(stderr, "failed to write") {
		t.Errorf("directory target: exit %d %s", code, stderr)
	}
	if code, _, _ := run(t, false, "pin", "torch==2.1.0", "-o", filepath.Join(dir, "missing", "r.txt"), "--db", dbPath); code != ExitError {
		t.Errorf("missing dir: exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "adir requirements.txt" {
		t.Errorf("directory holds %v (a temporary file left behind?)", names)
	}
}
