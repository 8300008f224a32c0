package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/testenv"
)

// readZip returns the wheel's entries by name.
func readZip(t *testing.T, b []byte) (map[string][]byte, map[string]*zip.File) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	files, headers := map[string][]byte{}, map[string]*zip.File{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], headers[f.Name] = body, f
	}
	return files, headers
}

func TestWheelLayout(t *testing.T) {
	bin := []byte("\x7fELF not really a binary: the layout does not care")
	for _, p := range Platforms {
		w, err := New("v1.2.0rc1", p, bin)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := w.Write(&buf); err != nil {
			t.Fatal(err)
		}
		files, headers := readZip(t, buf.Bytes())
		script := "cudb-1.2.0rc1.data/scripts/" + p.Exe
		if !bytes.Equal(files[script], bin) {
			t.Errorf("%s/%s: %s missing or different (entries %v)", p.GOOS, p.GOARCH, script, keys(files))
		}
		if m := headers[script].Mode(); m&0o111 == 0 {
			t.Errorf("%s: script mode %v is not executable", p.GOOS, m)
		}
		meta := string(files["cudb-1.2.0rc1.dist-info/METADATA"])
		if !strings.HasPrefix(meta, "Metadata-Version: 2.1\nName: cudb\nVersion: 1.2.0rc1\n") {
			t.Errorf("METADATA:\n%s", meta)
		}
		wheel := string(files["cudb-1.2.0rc1.dist-info/WHEEL"])
		if !strings.Contains(wheel, "Root-Is-Purelib: false\n") {
			t.Errorf("WHEEL:\n%s", wheel)
		}
		for _, tag := range p.Tags {
			if !strings.Contains(wheel, "Tag: py3-none-"+tag+"\n") || !strings.Contains(w.Filename(), tag) {
				t.Errorf("tag %s missing from WHEEL or %s", tag, w.Filename())
			}
		}
		// RECORD lists every other file with its hash and size, itself
		// without.
		record := strings.Split(strings.TrimSpace(string(files["cudb-1.2.0rc1.dist-info/RECORD"])), "\n")
		if len(record) != len(files) {
			t.Errorf("RECORD has %d lines for %d files", len(record), len(files))
		}
		for _, line := range record {
			f := strings.Split(line, ",")
			if len(f) != 3 {
				t.Fatalf("RECORD line %q", line)
			}
			body, ok := files[f[0]]
			switch {
			case !ok:
				t.Errorf("RECORD names %s, not in the wheel", f[0])
			case strings.HasSuffix(f[0], "/RECORD"):
				if f[1] != "" || f[2] != "" {
					t.Errorf("RECORD hashes itself: %q", line)
				}
			case f[1] != RecordHash(body) || f[2] != itoa(len(body)):
				t.Errorf("RECORD %q, file hashes to %s (%d bytes)", line, RecordHash(body), len(body))
			}
		}
	}
	// The digest is urlsafe base64 without padding (PEP 376/427):
	// sha256("") is e3b0c442…
	if got := RecordHash(nil); got != "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU" {
		t.Errorf("RecordHash(nil) = %s", got)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestWheelRefusesBadInput(t *testing.T) {
	p := Platforms[0]
	for _, v := range []string{"dev", "1.0+cu121", ""} {
		if _, err := New(v, p, []byte("x")); err == nil {
			t.Errorf("New(%q) accepted", v)
		}
	}
	if _, err := New("1.0", p, nil); err == nil {
		t.Error("an empty binary was accepted")
	}
	if _, err := PlatformFor("plan9", "amd64"); err == nil || !strings.Contains(err.Error(), "linux/amd64") {
		t.Errorf("PlatformFor(plan9) = %v", err)
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"-goos", "linux"}, &out, &errOut); err == nil {
		t.Error("run without -binary succeeded")
	}
}

// TestWheelInstallsInVenv builds this platform's wheel from a real build
// (with the environment's CGO setting, so it shares the build cache with
// the other binary tests; `make wheels` builds with CGO_ENABLED=0), installs it into a fresh virtual environment with
// pip (no index: nothing is downloaded) and runs the README's first
// command from the environment's bin directory.
func TestWheelInstallsInVenv(t *testing.T) {
	testenv.Slow(t)
	if testing.Short() {
		t.Skip("builds cudb and a virtual environment")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the wheel install test needs it (apt-get install python3 python3-venv)")
	}
	if _, err := PlatformFor(runtime.GOOS, runtime.GOARCH); err != nil {
		t.Skipf("no wheel for this platform: %v", err)
	}
	dir := t.TempDir()
	venv := filepath.Join(dir, "venv")
	if out, err := exec.Command(python, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv is unavailable (apt-get install python3-venv): %v: %s", err, out)
	}
	bin := filepath.Join(dir, "cudb-bin")
	build := exec.Command("go", "build", "-o", bin, "../cudb")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out, errOut bytes.Buffer
	wheels := filepath.Join(dir, "wheels")
	if err := run([]string{"-binary", bin, "-goos", runtime.GOOS, "-goarch", runtime.GOARCH, "-version", "0.0.1", "-out", wheels}, &out, &errOut); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	wheel := strings.TrimSpace(out.String())
	if fi, err := os.Stat(wheel); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the wheel's mode is %v (%v), want 0644", fi.Mode(), err)
	}
	scripts := "bin"
	if runtime.GOOS == "windows" {
		scripts = "Scripts"
	}
	pip := exec.Command(filepath.Join(venv, scripts, "python"), "-m", "pip", "install", "--no-index", "--no-cache-dir", wheel)
	pip.Env = append(os.Environ(), "PIP_DISABLE_PIP_VERSION_CHECK=1")
	if b, err := pip.CombinedOutput(); err != nil {
		t.Fatalf("pip install --no-index %s: %v\n%s", filepath.Base(wheel), err, b)
	}
	cmd := exec.Command(filepath.Join(venv, scripts, "cudb"), "resolve", "torch==2.1")
	cmd.Env = append(os.Environ(), "CUDB_NO_DATA_AGE_NOTICE=1")
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("cudb from the venv: %v", err)
	}
	for _, want := range []string{"torch==2.1.0+cu121", "cu118", "8.9.2.26"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("cudb resolve torch==2.1 from the wheel lacks %q:\n%s", want, got)
		}
	}
	// pip knows the file it installed and can remove it.
	show, err := exec.Command(filepath.Join(venv, scripts, "python"), "-m", "pip", "show", "-f", "cudb").Output()
	if err != nil || !strings.Contains(string(show), "Version: 0.0.1") || !strings.Contains(string(show), "cudb") {
		t.Errorf("pip show -f cudb: %v\n%s", err, show)
	}
}
