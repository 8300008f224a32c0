package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type unknownStacks struct {
	Status  string   `json:"status"`
	Unknown []string `json:"unknown"`
	Stacks  []struct {
		Packages map[string]string `json:"packages"`
		Status   string            `json:"status"`
		Unknown  []string          `json:"unknown"`
	} `json:"stacks"`
}

func resolveJSON(t *testing.T, args ...string) unknownStacks {
	t.Helper()
	code, out, stderr := run(t, false, append(append([]string{"resolve"}, args...), "--json")...)
	if code != ExitOK {
		t.Fatalf("resolve %v: exit %d: %s", args, code, stderr)
	}
	var res unknownStacks
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return res
}

// The data holds no Python range for JAX and ONNX Runtime releases: a
// Python the data cannot judge keeps the build, unknown, the gap named
// (embedded data); a known range that leaves the Python out still drops it.
func TestResolveUnknownPythonRange(t *testing.T) {
	for _, req := range []string{"jax==0.4.30", "onnxruntime-gpu==1.20.0", "onnxruntime-gpu==1.28.0"} {
		res := resolveJSON(t, req, "--python", "3.12")
		if res.Status != "unknown" || len(res.Stacks) == 0 {
			t.Fatalf("%s: want unknown stacks, got %+v", req, res)
		}
		for _, s := range res.Stacks {
			if s.Status != "unknown" || !strings.Contains(strings.Join(s.Unknown, "\n"), "the Python range of this build is not in the data (cannot tell whether it installs on Python 3.12)") {
				t.Errorf("%s: stack %v: status %s unknown %v", req, s.Packages, s.Status, s.Unknown)
			}
		}
	}
	code, _, stderr := run(t, false, "resolve", "tensorflow==2.10.0", "--python", "3.12")
	if code != ExitNoMatch || !strings.Contains(stderr, "python ranges: 3.7-3.10\n") {
		t.Errorf("tensorflow 2.10 on 3.12: exit %d: %q", code, stderr)
	}
	// pin refuses to vouch for it, naming the same gap.
	code, _, stderr = run(t, false, "pin", "jax==0.4.30", "--python", "3.12")
	if code != ExitNoMatch || !strings.Contains(stderr, "cannot vouch for") || !strings.Contains(stderr, "the Python range of this build is not in the data") {
		t.Errorf("pin: exit %d: %s", code, stderr)
	}
	// check says the same: not judged, a warning, never a refusal.
	dir := t.TempDir()
	reqs := filepath.Join(dir, "requirements.txt")
	if err := os.WriteFile(reqs, []byte("onnxruntime-gpu==1.20.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, false, "check", reqs, "--python", "3.12", "--driver", "535.104.05")
	if code != ExitOK || strings.Count(out, "the Python range") != 0 ||
		!strings.Contains(out, "the database records no Python range for onnxruntime-gpu==1.20.0: whether it installs on Python 3.12 is not judged") {
		t.Errorf("check: exit %d: %s%s", code, out, stderr)
	}
}

// --platform windows shows the Windows driver floors in the table, the
// ones its JSON carries as windows_min (embedded data).
func TestResolveWindowsDriverColumn(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "tensorflow==2.10.0", "--platform", "windows")
	if code != ExitOK || !strings.Contains(out, "\t460.82 (compat 452.39)\n") || strings.Contains(out, "460.27.03") {
		t.Errorf("windows: exit %d: %s%s", code, out, stderr)
	}
	code, out, stderr = run(t, false, "resolve", "tensorflow==2.10.0", "--platform", "linux")
	if code != ExitOK || !strings.Contains(out, "\t460.27.03 (compat 450.80.02)\n") {
		t.Errorf("linux: exit %d: %s%s", code, out, stderr)
	}
}
