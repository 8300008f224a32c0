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

// The data holds no Python range for ONNX Runtime releases: a Python the
// data cannot judge keeps the build, unknown, the gap named (embedded
// data); a known range that leaves the Python out still drops it (JAX's
// ranges come from jaxlib/setup.py at each release tag).
func TestResolveUnknownPythonRange(t *testing.T) {
	for _, req := range []string{"onnxruntime-gpu==1.18.0", "onnxruntime-gpu==1.20.0"} {
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
	if res := resolveJSON(t, "jax==0.4.30", "--python", "3.12"); res.Status != "ok" {
		t.Errorf("jax 0.4.30 on 3.12 (jaxlib/setup.py: 3.9-3.12): %+v", res)
	}
	code, _, stderr = run(t, false, "resolve", "jax==0.4.30", "--python", "3.13")
	if code != ExitNoMatch || !strings.Contains(stderr, "python ranges: 3.9-3.12\n") {
		t.Errorf("jax 0.4.30 on 3.13: exit %d: %q", code, stderr)
	}
	// pin refuses to vouch for it, naming the same gap.
	code, _, stderr = run(t, false, "pin", "onnxruntime-gpu==1.18.0", "--python", "3.12")
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
	if code != ExitOK || strings.Count(out, "the Python range") != 0 || strings.Count(out, "records no Python range") != 1 ||
		!strings.Contains(out, "the database records no Python range for onnxruntime-gpu 1.20.0: whether it runs on Python 3.12 is not judged") {
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

// A CUDA the source names by its major alone (TensorFlow 1.x's "9", 2.0
// on Windows "10") is judged over the minors the data knows: every 9.x
// runs on the driver → ok; none does → no; some do → unknown, saying
// which (embedded data). resolve and check agree.
func TestResolveBareMajorCUDADriver(t *testing.T) {
	for _, args := range [][]string{
		{"tensorflow==1.12.0", "--driver", "535.104.05"},
		{"tensorflow<2", "--driver", "396.26"},
		{"tensorflow==2.0.0", "--platform", "windows", "--driver", "535.98"},
	} {
		res := resolveJSON(t, args...)
		if res.Status != "ok" || len(res.Stacks) == 0 {
			t.Errorf("%v: want ok stacks, got %+v", args, res)
		}
	}
	code, out, stderr := run(t, false, "resolve", "tensorflow==1.12.0", "--driver", "535.104.05")
	if code != ExitOK || !strings.Contains(out, "tensorflow_gpu==1.12.0\tcuda9\tyes\t9\t7\t\t2.7-3.6\tlinux,windows\t396.26\n") {
		t.Errorf("driver_min of CUDA 9: exit %d: %s%s", code, out, stderr)
	}
	code, _, stderr = run(t, false, "resolve", "tensorflow==1.12.0", "--driver", "380.10")
	if code != ExitNoMatch || strings.Contains(stderr, "is not a CUDA version") ||
		!strings.Contains(stderr, "the build names CUDA 9 but not its minor, and no CUDA 9.x runs on this driver: driver 380.10 supports CUDA up to 8.0; CUDA 9.0.76 needs a CUDA 9-era driver (>= 384.81)") {
		t.Errorf("too old: exit %d: %s", code, stderr)
	}
	res := resolveJSON(t, "tensorflow==1.12.0", "--driver", "390.46")
	if res.Status != "unknown" || !strings.Contains(strings.Join(res.Unknown, "\n"),
		"driver 390.46: the build names CUDA 9 but not its minor: this driver runs CUDA 9.0, 9.1 but not 9.2 (needs >= 396.26)") {
		t.Errorf("in between: %+v", res)
	}
	reqs := filepath.Join(t.TempDir(), "requirements.txt")
	if err := os.WriteFile(reqs, []byte("tensorflow-gpu==1.12.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = run(t, false, "check", reqs, "--driver", "380.10")
	if code != ExitIncompatible || !strings.Contains(out, "driver_too_old: tensorflow 1.12.0 cannot run on this driver") {
		t.Errorf("check too old: exit %d: %s%s", code, out, stderr)
	}
	code, out, stderr = run(t, false, "check", reqs, "--driver", "535.104.05")
	if code != ExitOK || !strings.Contains(out, "healthy: 0 error(s), 0 warning(s), 0 info(s)") {
		t.Errorf("check new driver: exit %d: %s%s", code, out, stderr)
	}
}

// A build whose platforms the data lacks is not "ok" for an asked
// platform: it stays, unknown, the gap named, below known-good builds;
// where no build of the framework is known on the platform at all
// (onnxruntime-gpu on macOS) the answer is no (embedded data). 1.29.0's
// wheels read so far are Linux ones only (x86_64 and aarch64), which does
// not say it has no Windows wheel: its platforms stay unknown.
func TestResolveUnknownPlatforms(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "onnxruntime-gpu==1.29.0", "--platform", "macos")
	if code != ExitNoMatch || out != "" ||
		!strings.Contains(stderr, "no onnxruntime-gpu build matches onnxruntime-gpu==1.29.0 with platform macos; the data records no onnxruntime-gpu CUDA build for macOS in any release") {
		t.Errorf("macos: exit %d: %s%s", code, out, stderr)
	}
	// Where the platforms are known, another platform is a plain no.
	code, out, stderr = run(t, false, "resolve", "onnxruntime-gpu==1.18.0", "--platform", "macos")
	if code != ExitNoMatch || out != "" || !strings.Contains(stderr, "with platform macos; platforms: linux, windows") {
		t.Errorf("1.18.0 macos: exit %d: %s%s", code, out, stderr)
	}
	res := resolveJSON(t, "onnxruntime-gpu==1.29.0", "--platform", "linux")
	if res.Status != "unknown" || len(res.Stacks) != 1 {
		t.Fatalf("linux: %+v", res)
	}
	for _, s := range res.Stacks {
		if s.Status != "unknown" || !strings.Contains(strings.Join(s.Unknown, "\n"), "the platforms of this build are not in the data (cannot tell whether it installs on Linux)") {
			t.Errorf("linux: %v: %s %v", s.Packages, s.Status, s.Unknown)
		}
	}
	// A build whose platforms are known ranks first.
	res = resolveJSON(t, "onnxruntime-gpu==1.17.0", "--platform", "linux")
	if res.Status != "ok" || len(res.Stacks) != 2 || res.Stacks[0].Status != "ok" || res.Stacks[1].Status != "unknown" {
		t.Errorf("1.17.0 linux: %+v", res)
	}
	// Without --platform nothing is asked of the platform.
	if res := resolveJSON(t, "onnxruntime-gpu==1.18.0"); res.Status != "ok" {
		t.Errorf("no platform: %+v", res)
	}
}
