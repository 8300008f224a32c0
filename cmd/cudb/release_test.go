package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestReleaseSumsFlat runs `make release`'s own recipe (the binaries and
// wheels it depends on replaced by small files, `make -o wheels`) and
// checks that SHA256SUMS names every file as the GitHub release uploads
// it: flat, so a user who downloads one wheel can check it.
func TestReleaseSumsFlat(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("sha256sum not found")
	}
	dist := t.TempDir()
	files := map[string]string{
		"cudb-linux-amd64":       "binary\n",
		"cudb-windows-amd64.exe": "exe\n",
		"wheels/cudb-1.2.3-py3-none-manylinux_2_17_x86_64.whl": "wheel\n",
	}
	for name, body := range files {
		p := filepath.Join(dist, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("make", "-s", "-C", filepath.Join("..", ".."), "-o", "wheels", "release", "DIST="+dist)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != len(files) {
		t.Fatalf("SHA256SUMS has %d lines, want %d:\n%s", len(lines), len(files), sums)
	}
	// The release as a user downloads it: every file in one folder.
	flat := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(flat, filepath.Base(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(flat, "SHA256SUMS"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	// One downloaded wheel checks on its own.
	if err := os.Remove(filepath.Join(flat, "cudb-linux-amd64")); err != nil {
		t.Fatal(err)
	}
	check := exec.Command("sha256sum", "-c", "--ignore-missing", "SHA256SUMS")
	check.Dir = flat
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), "manylinux_2_17_x86_64.whl: OK") {
		t.Errorf("sha256sum -c on the flat download: %v\n%s\nSHA256SUMS:\n%s", err, out, sums)
	}
}

// TestReleaseWorkflowKeepsModes reads the release workflow: the build job
// uploads dist/ as a tar (upload-artifact drops file modes), every job that
// downloads it unpacks the tar before using it, and the image is run once
// before it is pushed.
func TestReleaseWorkflowKeepsModes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `json:"name"`
				Uses string            `json:"uses"`
				Run  string            `json:"run"`
				With map[string]string `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	downloads := 0
	for name, job := range wf.Jobs {
		for i, s := range job.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "actions/upload-artifact"):
				if !strings.HasSuffix(s.With["path"], ".tar") {
					t.Errorf("%s: uploads %q, not a tar: the binaries lose their execute bit", name, s.With["path"])
				}
			case strings.HasPrefix(s.Uses, "actions/download-artifact"):
				downloads++
				if i+1 >= len(job.Steps) || !strings.Contains(job.Steps[i+1].Run, "tar -xf") {
					t.Errorf("%s: the downloaded artifact is not unpacked by the next step", name)
				}
			case strings.Contains(s.Run, "gh release create"):
				if strings.Contains(s.Run, "wheels/") {
					t.Errorf("%s: uploads from wheels/: the names must match the flat SHA256SUMS", name)
				}
			}
		}
	}
	if downloads != 3 {
		t.Errorf("%d download steps, want 3 (release, pypi, image)", downloads)
	}
	if !strings.Contains(string(b), "docker run --rm cudb:smoke --version") {
		t.Error("the image job does not start the image before pushing it")
	}
}
