package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const checkData = "../../query/check/testdata"

type checkOut struct {
	Summary struct {
		Healthy bool `json:"healthy"`
	} `json:"summary"`
	Findings []struct {
		File     string `json:"file"`
		Line     int    `json:"line"`
		Category string `json:"category"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Fix      string `json:"fix"`
	} `json:"findings"`
}

// runCheck runs the real binary and returns stdout and the exit status.
func runCheck(t *testing.T, bin string, args ...string) ([]byte, int) {
	t.Helper()
	return runCheckIn(t, bin, nil, args...)
}

// runCheckIn is runCheck with stdin as standard input (nil: none).
func runCheckIn(t *testing.T, bin string, stdin []byte, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"check"}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 1 || code == 2 {
		t.Fatalf("cudb check %v: exit %d: %s", args, code, errOut.String())
	}
	return out.Bytes(), code
}

// TestBinaryCheckFixtures judges every peer-suite fixture and the real
// files end to end: exit status and the findings that must be there
// ("line:category").
func TestBinaryCheckFixtures(t *testing.T) {
	bin := buildBinary(t)
	t4090 := []string{"--driver", "535.104.05", "--gpu", "RTX 4090"}
	cases := []struct {
		file string
		args []string
		code int
		want []string
	}{
		// The peer suite (env-doctor's fixtures).
		{"peer/Dockerfile.cpu_base_with_torch", nil, 0, nil},
		{"peer/Dockerfile.invalid", nil, 3, []string{"5:driver_in_image", "11:cuda_toolkit_mismatch", "14:framework_conflict", "8:unknown_version"}},
		{"peer/Dockerfile.invalid", t4090, 3, []string{"5:driver_in_image", "8:driver_too_old", "14:cudnn_missing"}},
		{"peer/Dockerfile.multi_lib_all_verified", nil, 0, []string{"2:unknown_version", "3:unknown_version", "3:framework_conflict"}},
		{"peer/Dockerfile.multistage", nil, 0, []string{"6:not_judged", "16:unknown_version"}},
		{"peer/Dockerfile.pinned_version_mismatch", nil, 4, []string{"2:no_matching_build"}},
		{"peer/Dockerfile.runtime_needs_compilation", nil, 0, nil},
		{"peer/Dockerfile.tensorflow_gpu_deprecated", nil, 3, []string{"2:cudnn_missing"}},
		{"peer/Dockerfile.torch_missing_index_url", nil, 0, []string{"2:unknown_version"}},
		{"peer/Dockerfile.valid", nil, 0, []string{"11:unknown_version"}},
		{"peer/Dockerfile.valid", t4090, 0, []string{"11:unknown_version"}},
		{"peer/docker-compose.invalid.yml", nil, 3, []string{"7:no_gpu_visible", "11:no_gpu_visible", "17:unknown_version", "22:no_gpu_visible"}},
		{"peer/docker-compose.valid.yml", t4090, 0, nil},
		// Real Dockerfiles and dependency files (testdata/SOURCES.md).
		{"real/Dockerfile.khlam-cu117", t4090, 0, nil},
		{"real/Dockerfile.khlam-cu117", []string{"--driver", "570.86.10", "--gpu", "RTX 5090"}, 3, []string{"7:gpu_arch_unsupported"}},
		{"real/Dockerfile.khlam-cu117", []string{"--python", "3.12"}, 3, []string{"7:python_unsupported"}},
		{"real/Dockerfile.khlam-cu113", nil, 0, nil},
		{"real/Dockerfile.khlam-cu113", t4090, 0, nil},
		{"real/Dockerfile.morgan-devel", t4090, 3, []string{"12:driver_too_old", "12:cuda_toolkit_mismatch"}},
		{"real/Dockerfile.llk-ngc", nil, 0, []string{"1:unknown_version"}},
		{"real/Dockerfile.anibali-cu118", t4090, 0, nil},
		{"real/Dockerfile.bricstb-tf210", t4090, 0, nil},
		{"real/Dockerfile.nmiculinic-tf-latest", nil, 0, []string{"1:unknown_version", "5:unknown_version"}},
		{"real/Dockerfile.lvkinyanjui-tf115", nil, 0, nil}, // TF 1.15.5 is in the data now: judged, healthy
		{"real/Dockerfile.timo-tf-latest", nil, 0, []string{"1:unknown_version"}},
		{"real/Dockerfile.dondi-tf219", t4090, 0, nil},
		{"real/Dockerfile.dataloop-tf216", nil, 0, nil},
		{"real/dockerfile.xealdar-cuda10", nil, 3, []string{"10:cudnn_version_mismatch"}},
		{"real/anibali-2.0.1-cu118/environment.yml", t4090, 0, nil},
		{"real/anibali-1.11.0-cu115/environment.yml", nil, 0, []string{"10:unknown_version"}},
		{"real/anibali-2.0.0-nocuda/environment.yml", nil, 0, nil},
		{"real/anibali-2.0.0-nocuda/environment.yml", t4090, 3, []string{"10:cpu_only_wheel"}},
		{"real/yyhhenry/pyproject.toml", t4090, 0, nil},
		{"real/yyhhenry/requirements-torch.txt", nil, 4, []string{"1:no_matching_build"}},
		{"real/yyhhenry/uv.lock", t4090, 0, nil},
		{"real/roldao/pyproject.toml", nil, 0, []string{"8:unknown_version"}},
		{"real/Dockerfile.thr3a-cu126", t4090, 3, []string{"1:driver_too_old", "35:unknown_version"}},
		{"real/Dockerfile.thr3a-cu126", []string{"--driver", "560.35.05", "--gpu", "RTX 4090"}, 0, []string{"35:unknown_version"}},
		{"real/lirt1231/docker-compose.yaml", t4090, 0, []string{"13:no_gpu_visible", "27:no_gpu_visible"}},
		{"real/tf63/Dockerfile", t4090, 0, []string{"poetry.lock:4:unknown_version"}},
		{"real/tf63/pyproject.toml", nil, 0, []string{"10:unknown_version"}},
		{"real/tf63/poetry.lock", nil, 0, []string{"4:unknown_version"}},
		{"real/Dockerfile.pedro-tf212", nil, 3, []string{"5:cudnn_missing"}},
		{"real/Dockerfile.okadak-tf211", t4090, 0, nil},
		{"real/Dockerfile.rafael-pt251", t4090, 0, []string{"3:not_judged"}},
		{"real/Dockerfile.u6yuvi-cpu", nil, 0, nil},
		{"real/Dockerfile.u6yuvi-cpu", t4090, 3, []string{"6:cpu_only_wheel"}},
		{"real/fl-wireless-7aa4ab5/requirements.txt", nil, 3, []string{"4:companion_mismatch"}},
		{"real/fl-wireless-000f5c2/requirements.txt", nil, 0, []string{"3:unknown_version"}},
		{"real/momo-c7cbd4b/requirements.txt", t4090, 0, nil},
	}
	for _, c := range cases {
		args := append([]string{filepath.Join(checkData, c.file), "--json"}, c.args...)
		out, code := runCheck(t, bin, args...)
		if code != c.code {
			t.Errorf("%s %v: exit %d, want %d:\n%s", c.file, c.args, code, c.code, out)
		}
		var r checkOut
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v\n%s", c.file, err, out)
		}
		have := map[string]bool{}
		for _, f := range r.Findings {
			have[filepath.Base(f.File)+":"+itoa(f.Line)+":"+f.Category] = true
			if f.File == "" || f.Line < 1 || f.Message == "" || f.Category == "" {
				t.Errorf("%s: incomplete finding %+v", c.file, f)
			}
			if f.Severity == "error" && f.Fix == "" && f.Category != "no_matching_build" && f.Category != "cudnn_missing" {
				t.Errorf("%s: error without a fix: %+v", c.file, f)
			}
		}
		for _, w := range c.want {
			key := filepath.Base(c.file) + ":" + w
			if strings.Count(w, ":") == 2 {
				key = w // a finding in a file the checked one installs from
			}
			if !have[key] {
				t.Errorf("%s %v: no finding %s in:\n%s", c.file, c.args, w, out)
			}
		}
		if (c.code == 0) != r.Summary.Healthy {
			t.Errorf("%s: healthy=%v with exit %d", c.file, r.Summary.Healthy, c.code)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestBinaryCheckAcceptance is the acceptance command: findings
// with file, line, category, message and fix, and the driver floor of
// the image and of the wheel judged against the target.
func TestBinaryCheckAcceptance(t *testing.T) {
	bin := buildBinary(t)
	out, code := runCheck(t, bin, filepath.Join(checkData, "peer/Dockerfile.valid"), "--driver", "470.82.01", "--gpu", "RTX 4090", "--json")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, out)
	}
	var r checkOut
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	lines := map[int]string{}
	for _, f := range r.Findings {
		if f.Category == "driver_too_old" && f.Severity == "error" {
			lines[f.Line] = f.Fix
		}
	}
	if !strings.HasPrefix(lines[2], "FROM nvidia/cuda:11.4") {
		t.Errorf("image line: fix %q, want a CUDA 11.4 image:\n%s", lines[2], out)
	}
	if !strings.HasPrefix(lines[11], "RUN pip install torch==") || !strings.Contains(lines[11], "cu11") {
		t.Errorf("pip line: fix %q, want a CUDA 11 torch:\n%s", lines[11], out)
	}
}

// TestBinaryCheckSARIF validates --format sarif against the SARIF 2.1.0
// schema, and checks --format github writes one annotation per finding.
func TestBinaryCheckSARIF(t *testing.T) {
	bin := buildBinary(t)
	schemaFile := filepath.Join(checkData, "sarif-schema-2.1.0.json")
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := comp.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := comp.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"peer/Dockerfile.invalid", "peer/docker-compose.invalid.yml", "peer/Dockerfile.cpu_base_with_torch"} {
		path := filepath.Join(checkData, f)
		js, _ := runCheck(t, bin, path, "--json", "--driver", "535.104.05", "--gpu", "RTX 4090")
		var r checkOut
		if err := json.Unmarshal(js, &r); err != nil {
			t.Fatal(err)
		}
		out, _ := runCheck(t, bin, path, "--format", "sarif", "--driver", "535.104.05", "--gpu", "RTX 4090")
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s: SARIF does not validate: %v", f, err)
		}
		var s struct {
			Runs []struct {
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(out, &s); err != nil || len(s.Runs) != 1 || len(s.Runs[0].Results) != len(r.Findings) {
			t.Errorf("%s: %d SARIF results for %d findings", f, len(s.Runs[0].Results), len(r.Findings))
		}
		gh, _ := runCheck(t, bin, path, "--format", "github", "--driver", "535.104.05", "--gpu", "RTX 4090")
		lines := strings.Split(strings.TrimSuffix(string(gh), "\n"), "\n")
		if len(r.Findings) == 0 {
			lines = nil
			if len(gh) != 0 {
				t.Errorf("%s: annotations for a healthy file: %q", f, gh)
			}
		}
		if len(lines) != len(r.Findings) {
			t.Errorf("%s: %d annotation lines for %d findings:\n%s", f, len(lines), len(r.Findings), gh)
		}
		for i, l := range lines {
			want := "file=" + path + ",line=" + itoa(r.Findings[i].Line) + ","
			if !strings.HasPrefix(l, "::") || !strings.Contains(l, want) {
				t.Errorf("%s: annotation %q lacks %q", f, l, want)
			}
		}
	}
}

// TestBinaryCheckHostFrom takes the target from a pasted nvidia-smi
// banner (--host-from) and reads a pip freeze output.
func TestBinaryCheckHostFrom(t *testing.T) {
	bin := buildBinary(t)
	const reports = "../../internal/host/report/testdata/"
	out, code := runCheck(t, bin, filepath.Join(checkData, "real/Dockerfile.morgan-devel"), "--host-from", reports+"smi_banner.txt", "--json")
	var r struct {
		Target struct {
			Driver, SM, From string
		} `json:"target"`
		Findings []struct {
			Line     int    `json:"line"`
			Category string `json:"category"`
			Severity string `json:"severity"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if r.Target.Driver != "535.129.03" || r.Target.SM != "8.9" || !strings.HasPrefix(r.Target.From, "report ") {
		t.Errorf("target = %+v", r.Target)
	}
	found := false
	for _, f := range r.Findings {
		found = found || f.Category == "driver_too_old" && f.Severity == "error" && f.Line == 12
	}
	if code != 3 || !found {
		t.Errorf("exit %d, driver_too_old at line 12: %v\n%s", code, found, out)
	}
	// pip freeze output is a requirements file: torch 2.1.2 with the
	// nvidia-cudnn-cu12 its wheel pins agrees.
	out, code = runCheck(t, bin, reports+"pip_freeze.txt", "--host-from", reports+"smi_banner.txt")
	if code != 0 || !strings.Contains(string(out), "torch==2.1.2") {
		t.Errorf("pip freeze: exit %d\n%s", code, out)
	}
	// Usage errors exit 2 with a Try line.
	cmd := exec.Command(bin, "check", "--host", "--host-from", reports+"smi_banner.txt", "x")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "Try:") {
		t.Errorf("--host with --host-from: %v %q", err, stderr.String())
	}
}

// TestBinaryCheckDirectory checks every project file in a directory.
func TestBinaryCheckDirectory(t *testing.T) {
	bin := buildBinary(t)
	out, code := runCheck(t, bin, filepath.Join(checkData, "real/tf63"), "--json")
	var r struct {
		Files []struct {
			File, Kind string
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range r.Files {
		kinds = append(kinds, f.Kind)
	}
	// The Dockerfile, the lock its poetry install follows, the lock and the
	// pyproject themselves.
	if code != 0 || strings.Join(kinds, " ") != "dockerfile poetry.lock pyproject" {
		t.Errorf("exit %d, kinds %v\n%s", code, kinds, out)
	}
}
