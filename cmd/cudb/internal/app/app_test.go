package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/querytest"
)

// run drives the real command tree as the binary would.
func run(t *testing.T, tty bool, args ...string) (int, string, string) {
	t.Helper()
	s, out, errOut := cli.TestStreams("")
	s.TTY = tty
	code := Main(args, s)
	return code, out.String(), errOut.String()
}

func TestResolveJSONContract(t *testing.T) {
	dbPath := querytest.Path(t)
	code, out, stderr := run(t, false, "resolve", "torch==2.1.0", "--cuda", "12.1", "--json", "--db", dbPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Query struct {
			Requirements []struct{ Name, Specifier string } `json:"requirements"`
			CUDA         string                             `json:"cuda"`
		} `json:"query"`
		Stacks []struct {
			Packages            map[string]string `json:"packages"`
			Variant             string            `json:"variant"`
			CUDA                string            `json:"cuda"`
			CUDNN               string            `json:"cudnn"`
			NCCL                *string           `json:"nccl"`
			Python              map[string]string `json:"python"`
			Platforms           []string          `json:"platforms"`
			ComputeCapabilities []string          `json:"compute_capabilities"`
			Install             map[string]any    `json:"install"`
			Sources             []map[string]string
		} `json:"stacks"`
		Conflicts []any `json:"conflicts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Stacks) != 1 || res.Conflicts == nil || len(res.Conflicts) != 0 {
		t.Fatalf("stacks %d conflicts %v", len(res.Stacks), res.Conflicts)
	}
	s := res.Stacks[0]
	if s.Packages["torch"] != "2.1.0+cu121" || s.Packages["torchvision"] != "0.16.0" || s.Variant != "cu121" || s.CUDA != "12.1" ||
		s.CUDNN != "8.9.2.26" || s.NCCL == nil || s.Python["min"] != "3.8" || s.Python["max"] != "3.11" ||
		s.Install["index_url"] != "https://download.pytorch.org/whl/cu121" || len(s.Sources) == 0 || s.Sources[0]["name"] != "fixture" {
		t.Errorf("stack = %+v", s)
	}
	if res.Query.CUDA != "12.1" || res.Query.Requirements[0].Name != "torch" || res.Query.Requirements[0].Specifier != "==2.1.0" {
		t.Errorf("query = %+v", res.Query)
	}
	if stderr != "" {
		t.Errorf("stderr with --json: %q", stderr)
	}
}

func TestResolveHumanAndPiped(t *testing.T) {
	dbPath := querytest.Path(t)
	code, out, _ := run(t, true, "resolve", "torch==2.1", "--db", dbPath, "--explain")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"PACKAGES", "VARIANT  DEFAULT", "cu121    yes", "cu118    no", "3.8–3.11", "8.9.2.26", "8.7.0.84", "best: pip install torch==2.1.0 torchvision==0.16.0", "fixture: cudnn row"} {
		if !strings.Contains(out, want) {
			t.Errorf("tty output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, false, "resolve", "torch==2.1", "--db", dbPath)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Piped: a header row, variant and default in their own columns, an
	// ASCII range, and the best stack as a trailing comment line.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || lines[0] != "packages\tvariant\tdefault\tcuda\tcudnn\tnccl\tpython\tplatforms\tdriver_min" ||
		!strings.HasPrefix(lines[1], "torch==2.1.0+cu121 torchvision==0.16.0\tcu121\tyes\t12.1\t8.9.2.26\t\t3.8-3.11\t") ||
		!strings.HasPrefix(lines[2], "torch==2.1.0+cu118 torchvision==0.16.0\tcu118\tno\t") ||
		lines[3] != "# best: pip install torch==2.1.0 torchvision==0.16.0" || strings.Contains(out, "–") {
		t.Errorf("piped output:\n%s", out)
	}
}

func TestExitCodes(t *testing.T) {
	dbPath := querytest.Path(t)
	cases := []struct {
		args   []string
		code   int
		stderr []string
	}{
		{[]string{"resolve", "torch==2.1", "--cuda", "9.9"}, ExitNoMatch, []string{"error: no torch build matches", "cu121", "cu118", "Try: "}},
		{[]string{"resolve", "torch==="}, ExitUsage, []string{"invalid requirement", "Try: "}},
		{[]string{"resolve", "torch>=abc"}, ExitUsage, []string{"invalid requirement", "Try: "}},
		{[]string{"resolve", "torch==2.3.1", "tensorflow==2.16.1"}, ExitIncompatible, nil},
		{[]string{"resolve", "--limit", "-1", "torch"}, ExitUsage, []string{"--limit"}},
		{[]string{"resolve", "torch", "--bogus"}, ExitUsage, []string{"unknown flag", "Try: cudb resolve --help"}},
		{[]string{"nonsense"}, ExitUsage, []string{"unknown command", "Try: cudb --help"}},
		{[]string{"matrix", "nope"}, ExitUsage, []string{"unknown table"}},
		{[]string{"db", "dump", "--table", "nope"}, ExitUsage, []string{"unknown table"}},
	}
	for _, tc := range cases {
		code, _, stderr := run(t, false, append(tc.args, "--db", dbPath)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
		for _, w := range tc.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q: %s", tc.args, w, stderr)
			}
		}
		if strings.Contains(stderr, "panic") || strings.Count(stderr, "error:") > 1 {
			t.Errorf("%v: stderr %q", tc.args, stderr)
		}
	}
}

func TestConflictOutput(t *testing.T) {
	dbPath := querytest.Path(t)
	code, out, _ := run(t, false, "resolve", "torch==2.3.1", "tensorflow==2.16.1", "--db", dbPath)
	if code != ExitIncompatible {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"conflict (pin)", "nvidia-cudnn-cu12==8.9.2.26", "nvidia-cudnn-cu12==8.9.7.29", "would agree: torch==2.3.1 tensorflow==2.17.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, false, "resolve", "torch==2.3.1", "tensorflow==2.16.1", "--db", dbPath, "--json")
	var res struct{ Conflicts []map[string]any }
	if code != ExitIncompatible || json.Unmarshal([]byte(out), &res) != nil || len(res.Conflicts) == 0 {
		t.Errorf("json conflict: exit %d %s", code, out)
	}
}

func TestMatrixTorchAndDB(t *testing.T) {
	dbPath := querytest.Path(t)
	code, out, _ := run(t, false, "matrix", "torch", "--json", "--db", dbPath)
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 9 {
		t.Fatalf("exit %d rows %d: %s", code, len(rows), out)
	}
	if ch := rows[len(rows)-1]["channel"]; ch != "conda" {
		t.Errorf("last row channel = %v, want the conda-only release", ch)
	}
	code, out, _ = run(t, false, "matrix", "torch", "--channel", "pip", "--json", "--db", dbPath)
	rows = nil
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 8 {
		t.Errorf("--channel pip: exit %d rows %d", code, len(rows))
	}
	if code, _, _ = run(t, false, "matrix", "torch", "--channel", "apt", "--db", dbPath); code != ExitUsage {
		t.Errorf("--channel apt: exit %d, want usage", code)
	}
	for _, k := range []string{"torch", "variant", "channel", "cuda", "cudnn", "nccl", "python_min", "python_max", "torchvision", "torchaudio", "platforms", "compute_capabilities", "default"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("matrix row lacks %q", k)
		}
	}
	code, out, _ = run(t, false, "db", "info", "--json", "--db", dbPath)
	if code != 0 || !strings.Contains(out, fmt.Sprintf(`"schema_version": %d`, db.SchemaVersion)) || !strings.Contains(out, `"fixture"`) {
		t.Errorf("db info: %d %s", code, out)
	}
	code, out, _ = run(t, true, "db", "check", "--db", dbPath)
	if code != 0 || !strings.Contains(out, "integrity: ok") {
		t.Errorf("db check: %d %s", code, out)
	}
	code, out, _ = run(t, false, "version", "--json")
	if code != 0 || !strings.Contains(out, fmt.Sprintf(`"schema_version": %d`, db.SchemaVersion)) {
		t.Errorf("version: %d %s", code, out)
	}
	code, out, _ = run(t, false, "help", "exit-codes")
	if code != 0 || !strings.Contains(out, "4  no match") {
		t.Errorf("exit-codes topic: %d %s", code, out)
	}
}
