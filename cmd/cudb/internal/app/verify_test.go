package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/internal/probe"
	"github.com/cudb/cudb/internal/probe/probetest"
)

const fakeHosts = "../../../../internal/probe/testdata/hosts"

// useHost points the process environment at a fake host (its env file)
// and returns the --root/--replay arguments for it.
func useHost(t *testing.T, name string) []string {
	t.Helper()
	dir := filepath.Join(fakeHosts, name)
	h, err := probetest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range probe.EnvKeys {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for k, v := range h.Env {
		t.Setenv(k, v)
	}
	args := []string{"--root", h.Root}
	if h.Cmds != "" {
		args = append(args, "--replay", h.Cmds)
	}
	return args
}

type verifyJSON struct {
	Origin  string `json:"origin"`
	Summary struct {
		Errors, Warnings, Infos int
		Healthy                 bool
	} `json:"summary"`
	Findings []struct {
		Category, Severity, Message, Fix string
		Evidence                         []string
	} `json:"findings"`
	Facts map[string]any `json:"facts"`
}

func TestVerifyCLIProblemHost(t *testing.T) {
	args := append([]string{"verify", "--json"}, useHost(t, "cudnn-shadowed")...)
	code, out, stderr := run(t, false, args...)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, stderr)
	}
	var r verifyJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Origin != "host" || r.Summary.Healthy || r.Summary.Errors != 2 || r.Facts == nil {
		t.Fatalf("report = %+v", r)
	}
	cats := map[string]bool{}
	for _, f := range r.Findings {
		cats[f.Category] = true
		if f.Fix == "" || len(f.Evidence) == 0 {
			t.Errorf("finding without fix or evidence: %+v", f)
		}
	}
	if !cats["cudnn_version_mismatch"] || !cats["multiple_cuda_libs_conflict"] {
		t.Errorf("categories = %v", cats)
	}
}

func TestVerifyCLIHealthyHost(t *testing.T) {
	args := append([]string{"verify"}, useHost(t, "healthy")...)
	code, out, stderr := run(t, false, args...)
	if code != 0 || !strings.HasPrefix(out, "healthy: 0 errors") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, stderr)
	}
}

func TestVerifyCLIHumanGroupsBySeverity(t *testing.T) {
	args := append([]string{"verify"}, useHost(t, "old-driver")...)
	code, out, _ := run(t, true, args...)
	if code != 3 || !strings.Contains(out, "Errors (1):") || !strings.Contains(out, "[driver_too_old]") || !strings.Contains(out, "fix:  upgrade the NVIDIA driver to >= 530.30.02") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestVerifyCLIProbeFailure(t *testing.T) {
	code, _, stderr := run(t, false, "verify", "--root", filepath.Join(t.TempDir(), "missing"))
	if code != 1 || !strings.Contains(stderr, "failed to probe the host") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

const reportDir = "../../../../internal/host/report/testdata"

func TestVerifyCLIFrom(t *testing.T) {
	code, out, stderr := run(t, false, "verify", "--from", filepath.Join(reportDir, "errors_only.txt"), "--json")
	if code != 3 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r verifyJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Origin != "report:errors" || len(r.Findings) != 1 || r.Findings[0].Category != "cudnn_version_mismatch" {
		t.Fatalf("report = %+v", r)
	}
	code, out, _ = run(t, false, "verify", "--from", filepath.Join(reportDir, "smi_banner.txt"))
	if code != 0 || !strings.HasPrefix(out, "healthy") {
		t.Fatalf("smi banner: exit %d %q", code, out)
	}
}

func TestVerifyCLIFromStdin(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(reportDir, "sm120_error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s, out, errOut := cli.TestStreams(string(text))
	code := Main([]string{"verify", "--from", "-", "--json"}, s)
	if code != 3 || !strings.Contains(out.String(), "gpu_arch_unsupported") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
}

func TestVerifyCLIFromSeveral(t *testing.T) {
	a, b := filepath.Join(reportDir, "mixed_paste.txt"), filepath.Join(reportDir, "pip_list.txt")
	code, out, stderr := run(t, false, "verify", "--from", a, "--from", b, "--json")
	if code != 3 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m struct {
		Reports []struct {
			File    string               `json:"file"`
			Origin  string               `json:"origin"`
			Summary struct{ Errors int } `json:"summary"`
		} `json:"reports"`
		Summary struct {
			Errors  int
			Healthy bool
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Reports) != 2 || m.Reports[0].File != a || m.Reports[1].File != b || m.Reports[1].Summary.Errors != 0 ||
		m.Summary.Errors != m.Reports[0].Summary.Errors || m.Summary.Healthy {
		t.Fatalf("multi report = %+v", m)
	}
	code, out, _ = run(t, false, "verify", "--from", a, "--from", b)
	if code != 3 || !strings.Contains(out, "== "+a) || !strings.Contains(out, "== summary: 2 reports") {
		t.Fatalf("human multi report: exit %d\n%s", code, out)
	}
}

func TestVerifyCLIFromUnknown(t *testing.T) {
	code, _, stderr := run(t, false, "verify", "--from", filepath.Join(reportDir, "unknown.txt"))
	if code != 2 || !strings.Contains(stderr, "no known report format") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

var promLine = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? -?[0-9.eE+-]+$`)

func TestVerifyCLIPrometheus(t *testing.T) {
	args := append([]string{"verify", "--format", "prometheus"}, useHost(t, "rtx5090")...)
	code, out, stderr := run(t, false, args...)
	if code != 3 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "# HELP ") || strings.HasPrefix(l, "# TYPE ") {
			continue
		}
		if !promLine.MatchString(l) {
			t.Errorf("not a metric line: %q", l)
		}
	}
	for _, want := range []string{
		`cudb_verify_healthy 0`,
		`cudb_verify_findings{severity="error",category="gpu_arch_unsupported"} 1`,
		`cudb_verify_findings{severity="error",category="driver_too_old"} 0`,
		`cudb_driver_info{version="570.124.06"} 1`,
		`# TYPE cudb_verify_findings gauge`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestExplainCLI(t *testing.T) {
	code, out, stderr := run(t, false, "explain", "--json", "RuntimeError: Torch not compiled with CUDA enabled")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Findings []struct{ Category, Severity, Fix string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].Category != "cpu_only_wheel" || !strings.Contains(r.Findings[0].Fix, "pip install torch==") {
		t.Fatalf("findings = %+v", r.Findings)
	}
	code, out, _ = run(t, false, "explain", "no kernel image is available for execution on the device")
	if code != 0 || !strings.HasPrefix(out, "error [gpu_arch_unsupported]") {
		t.Fatalf("exit %d: %q", code, out)
	}
	code, _, stderr = run(t, false, "explain", "everything is fine")
	if code != 4 || !strings.Contains(stderr, "no known cause") {
		t.Fatalf("unknown text: exit %d %q", code, stderr)
	}
	s, o, _ := cli.TestStreams("ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory")
	if code := Main([]string{"explain", "-"}, s); code != 0 || !strings.Contains(o.String(), "cudnn_missing") {
		t.Fatalf("stdin: exit %d %q", code, o)
	}
}
