package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/testenv"
	"github.com/cudb/cudb/query/check"
	"sigs.k8s.io/yaml"
)

type preCommitHook struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Description   string `json:"description"`
	Entry         string `json:"entry"`
	Language      string `json:"language"`
	Files         string `json:"files"`
	Exclude       string `json:"exclude"`
	PassFilenames bool   `json:"pass_filenames"`
	RequireSerial bool   `json:"require_serial"`
}

func readHooks(t *testing.T) []preCommitHook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.UnmarshalStrict(b, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	return hooks
}

// TestPreCommitHookFiles: the cudb-check hook is a golang hook running
// cudb check, and its files/exclude patterns pick exactly the names cudb
// check detects by name (query/check.KindOfName), so pre-commit never
// hands it a file it cannot read and never skips one it can.
func TestPreCommitHookFiles(t *testing.T) {
	hooks := readHooks(t)
	if len(hooks) != 1 || hooks[0].ID != "cudb-check" || hooks[0].Language != "golang" || hooks[0].Entry != "cudb check" || !hooks[0].PassFilenames {
		t.Fatalf("hooks: %+v", hooks)
	}
	files, exclude := regexp.MustCompile(hooks[0].Files), regexp.MustCompile(hooks[0].Exclude)
	for _, name := range []string{
		"Dockerfile", "docker/Dockerfile", "Dockerfile.cuda", "train.Dockerfile", "Containerfile", "dockerfile.go", "Dockerfile.md",
		"Dockerfile.prod.yml", "docker-compose.yml", "compose.yaml", "deploy/docker-compose.gpu.yaml", "compose.json",
		"pyproject.toml", "sub/pyproject.toml", "pyproject.toml.bak", "uv.lock", "poetry.lock", "package.lock", "Cargo.lock",
		"environment.yml", "env/conda.yaml", "environment-gpu.yaml", "envoy.yaml", "config.yaml",
		"requirements.txt", "requirements-dev.txt", "requirements/gpu.txt", "constraints.txt", "pip-freeze.txt", "reqs.txt",
		"requirements.in", "dev-requirements.in", "README.md", "main.py", "setup.cfg",
	} {
		_, want := check.KindOfName(filepath.Base(name))
		got := files.MatchString(name) && !exclude.MatchString(name)
		if got != want {
			t.Errorf("%s: the hook picks it %v, cudb check reads it by name %v", name, got, want)
		}
	}
}

// TestPreCommitTryRepo runs `pre-commit try-repo` of this repository (its
// working tree, uncommitted changes included) on a sample project:
// pre-commit builds the hook from source with `go install ./...` and runs
// cudb check on the project's files. The sample's requirements pair
// torchvision 0.20.0 with torch 2.1.0, an error, so the hook fails and
// prints the finding; fixed, it passes. pre-commit is Debian's package
// (.ci/run installs it under CI=true); elsewhere the test skips.
func TestPreCommitTryRepo(t *testing.T) {
	testenv.Slow(t)
	precommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Skip("pre-commit not found (Debian: apt-get install pre-commit)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	repo := testenv.RepoRoot(t)
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Skip("the repository is not a git checkout: try-repo needs one")
	}
	sample := t.TempDir()
	gomodcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	env := append(os.Environ(),
		"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit-home"),
		// The hook's build reuses this machine's module cache: no download.
		"GOMODCACHE="+strings.TrimSpace(string(gomodcache)), "GOFLAGS=-mod=mod",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test")
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = sample, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(sample, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run("git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write("requirements.txt", "torch==2.1.0\ntorchvision==0.20.0\n")
	write("Dockerfile", "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121\n")
	write("train.py", "import torch\n")
	if out, err := run("git", "add", "."); err != nil {
		t.Fatalf("git add: %v %s", err, out)
	}
	out, err := run(precommit, "try-repo", repo, "cudb-check", "--all-files", "--verbose")
	if err == nil || !strings.Contains(out, "companion_mismatch") || !strings.Contains(out, "requirements.txt:2") || strings.Contains(out, "train.py") {
		t.Fatalf("pre-commit try-repo on a sample with an error: %v\n%s", err, out)
	}
	t.Logf("the hook fails on the error:\n%s", out)
	write("requirements.txt", "torch==2.1.0\ntorchvision==0.16.0\n")
	if out, err := run(precommit, "try-repo", repo, "cudb-check", "--all-files", "--verbose"); err != nil || !strings.Contains(out, "Passed") {
		t.Fatalf("pre-commit try-repo on the fixed sample: %v\n%s", err, out)
	}
}
