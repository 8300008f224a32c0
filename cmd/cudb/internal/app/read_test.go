package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
)

type readJSON struct {
	Read struct {
		Input      string   `json:"input"`
		Formats    []string `json:"formats"`
		Driver     string   `json:"driver"`
		DriverCUDA string   `json:"driver_cuda"`
		GPUs       []string `json:"gpus"`
		Frameworks []string `json:"frameworks"`
		Errors     int      `json:"errors"`
		Explained  int      `json:"errors_explained"`
		FromText   []string `json:"from_text"`
	} `json:"read"`
}

// TestVerifySaysWhatItRead: an nvidia-smi-only file is "healthy" and says
// which driver, CUDA and GPUs it judged (terminal and JSON).
func TestVerifySaysWhatItRead(t *testing.T) {
	file := filepath.Join(reportDir, "smi_banner.txt")
	code, out, stderr := run(t, true, "verify", "--from", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"read: " + file + " (nvidia_smi)", "driver:      535.129.03 (nvidia_smi)",
		"driver CUDA: 12.2 (nvidia_smi)", "GPUs:        0: NVIDIA GeForce RTX 4090 (compute capability 8.9)", "frameworks:  not stated"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, false, "verify", "--from", file, "--json")
	var r readJSON
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("exit %d %v\n%s", code, err, out)
	}
	if r.Read.Input != file || r.Read.Driver != "535.129.03 (nvidia_smi)" || r.Read.DriverCUDA != "12.2 (nvidia_smi)" || len(r.Read.GPUs) != 2 {
		t.Errorf("read = %+v", r.Read)
	}
}

// TestVerifyReadFromStdinAndHost: the header names standard input and the
// local host too.
func TestVerifyReadFromStdinAndHost(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(reportDir, "sm120_error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s, out, _ := cli.TestStreams(string(text))
	if code := Main([]string{"verify", "--from", "-", "--json"}, s); code != 3 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var r readJSON
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Read.Input != "<stdin>" || r.Read.Errors == 0 || r.Read.Explained == 0 {
		t.Errorf("read = %+v", r.Read)
	}
	args := append([]string{"verify"}, useHost(t, "healthy")...)
	code, hostOut, _ := run(t, false, args...)
	if code != 0 || !strings.Contains(hostOut, "read: this host (probe)") || !strings.Contains(hostOut, "driver:") {
		t.Errorf("exit %d:\n%s", code, hostOut)
	}
}

// TestVerifyReadsProse: a paste with no known format is read as text,
// each fact tagged with its line; nothing recognisable is refused (exit 2)
// saying what was looked for.
func TestVerifyReadsProse(t *testing.T) {
	dir := t.TempDir()
	prose := filepath.Join(dir, "prose.txt")
	// real wording from tensorflow/tensorflow#56413's template
	os.WriteFile(prose, []byte("TensorFlow version: tf 2.9\nOS platform and distribution: Ubuntu 20\nPython version: 3.7\nCUDA/cuDNN version: CUDA 11.2, CUDNN 8.1.0\nGPU model and memory: GRID T4-8Q\n"), 0o644)
	code, out, stderr := run(t, false, "verify", "--from", prose, "--json")
	if code != 0 && code != 3 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r readJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(r.Read.FromText, "\n")
	for _, want := range []string{"tensorflow: tensorflow 2.9 (line 1)", "python: 3.7 (line 3)", "cuda: 11.2 (line 4)", "cudnn: 8.1.0 (line 4)", "gpu: T4 (line 5)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("from_text lacks %q: %v", want, r.Read.FromText)
		}
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("hello, this is not a report\njust some words\n"), 0o644)
	code, _, stderr = run(t, false, "verify", "--from", empty)
	if code != 2 || !strings.Contains(stderr, "looked for collect_env, nvidia-smi") || !strings.Contains(stderr, "GPU, Python and framework versions") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestExplainAcceptance: the short and status-code forms answer with a
// cause and a fix.
func TestExplainAcceptance(t *testing.T) {
	for _, tc := range []struct{ text, cat string }{
		{"no kernel image is available", "gpu_arch_unsupported"},
		{"CUDNN_STATUS_NOT_INITIALIZED", "cudnn_version_mismatch"},
		{"Found no NVIDIA driver on your system", "no_gpu_visible"},
		{"ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory", "cuda_toolkit_mismatch"},
		{"CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`", "not_a_version_problem"},
	} {
		code, out, stderr := run(t, false, "explain", tc.text)
		if code != 0 || !strings.Contains(out, "["+tc.cat+"]") || !strings.Contains(out, "fix:") {
			t.Errorf("%q: exit %d\n%s%s", tc.text, code, out, stderr)
		}
	}
}
