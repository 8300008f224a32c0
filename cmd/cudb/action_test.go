package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestActionScript runs the GitHub Action's script (.github/action/
// cudb-check.sh, what action.yml runs) outside Actions: it installs the
// binary from a local release folder (a file:// URL, no network), checks it
// against SHA256SUMS, runs cudb check on a sample project with the
// workflow's annotations and with a SARIF file, and refuses a binary whose
// sum does not match.
func TestActionScript(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the script is run on linux runners here")
	}
	for _, tool := range []string{"bash", "curl", "sha256sum", "xargs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not found")
		}
	}
	script, err := filepath.Abs(filepath.Join("..", "..", ".github", "action", "cudb-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// action.yml runs this script with its inputs as the environment.
	var action struct {
		Runs struct {
			Using string `json:"using"`
			Steps []struct {
				Run string            `json:"run"`
				Env map[string]string `json:"env"`
			} `json:"steps"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 || !strings.Contains(action.Runs.Steps[0].Run, "/.github/action/cudb-check.sh") {
		t.Fatalf("action.yml does not run the script: %+v", action.Runs)
	}

	// A release as GitHub serves it: flat names and SHA256SUMS.
	bin := buildBinary(t)
	release := t.TempDir()
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	name := "cudb-linux-" + arch
	body, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	// Downloaded files have no execute bit; the script sets it.
	if err := os.WriteFile(filepath.Join(release, name), body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	sums := hex.EncodeToString(sum[:]) + "  " + name + "\n" + strings.Repeat("0", 64) + "  cudb-1.0.0-py3-none-manylinux_2_17_x86_64.whl\n"
	if err := os.WriteFile(filepath.Join(release, "SHA256SUMS"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}

	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "requirements.txt"), []byte("torch==2.1.0\ntorchvision==0.20.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "Dockerfile"), []byte("FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.5.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command("bash", script)
		cmd.Dir = project
		output := filepath.Join(t.TempDir(), "github_output")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "RUNNER_TEMP=" + t.TempDir(),
			"GITHUB_OUTPUT=" + output, "CUDB_RELEASE_URL=file://" + release, "CUDB_NO_DATA_AGE_NOTICE=1"}, env...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		outputs, _ := os.ReadFile(output)
		return stdout.String(), stderr.String() + "\n[outputs]\n" + string(outputs), code
	}

	// Annotations: an ::error line on the requirement, the step fails.
	stdout, stderr, code := run("CUDB_FORMAT=github", `CUDB_ARGS=--driver 470.82.01 --gpu "RTX 4090"`)
	if code != 3 || !strings.Contains(stdout, "::error file=requirements.txt,line=2") || !strings.Contains(stderr, name+": OK") || !strings.Contains(stderr, "exit-code=3") {
		t.Errorf("format github: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// fail-on-findings false: the findings are reported, the step passes.
	if _, stderr, code := run("CUDB_FORMAT=github", "CUDB_FAIL=false"); code != 0 || !strings.Contains(stderr, "exit-code=3") {
		t.Errorf("fail-on-findings false: exit %d\n%s", code, stderr)
	}
	// SARIF for code scanning: the file, named in the step's outputs.
	_, stderr, code = run("CUDB_FORMAT=sarif", "CUDB_SARIF=out.sarif", "CUDB_FILES=requirements.txt")
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	raw, err := os.ReadFile(filepath.Join(project, "out.sarif"))
	if code != 3 || err != nil || json.Unmarshal(raw, &sarif) != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) == 0 ||
		!strings.Contains(stderr, "sarif-file=out.sarif") {
		t.Errorf("format sarif: exit %d, %v\n%s\n%s", code, err, raw, stderr)
	}
	// A binary that does not match the release's sum is never run.
	if err := os.WriteFile(filepath.Join(release, name), append(body, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run("CUDB_FORMAT=github"); code != 2 || !strings.Contains(stderr, "does not match the release's SHA256SUMS") {
		t.Errorf("a tampered binary: exit %d\n%s", code, stderr)
	}
}
