package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// buildBinary builds the real cudb binary once for whole-process tests
// and benchmarks.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "cudb-test-bin-*"); built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "cudb")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, stderr.Bytes())
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.bin
}

// built is the cudb binary the tests of this package share: linking it
// takes seconds, so it is built once per test process (buildBinary) and
// removed when the process ends (TestMain). Tests only run it.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

func benchProcess(b *testing.B, args ...string) {
	bin := buildBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkProcessVersion is the floor: start a cudb process that opens
// no database.
func BenchmarkProcessVersion(b *testing.B) { benchProcess(b, "version") }

// BenchmarkProcessResolve is `cudb resolve torch==2.1 --cuda 12.1` as a
// whole process, piped (TSV output).
func BenchmarkProcessResolve(b *testing.B) {
	benchProcess(b, "resolve", "torch==2.1", "--cuda", "12.1")
}

// TestBinaryResolve runs the README's first command through the real
// binary on the embedded database.
func TestBinaryResolve(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "resolve", "torch==2.1").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"torch==2.1.0+cu121", "cu121", "cu118", "8.9.2.26", "8.7.0.84"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestBinaryVersionAndCompletion: the stamps `make release` links in reach
// `cudb --version`, and the completion scripts come out of the binary.
func TestBinaryVersionAndCompletion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "cudb")
	pkg := "github.com/cudb/cudb/cmd/cudb/internal/cli"
	build := exec.Command("go", "build", "-ldflags", "-X "+pkg+".Version=9.8.7 -X "+pkg+".Commit=0123456789abcdef", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "cudb 9.8.7 (commit 0123456789ab, data as of 20") {
		t.Errorf("--version: %v %q", err, out)
	}
	out, err = exec.Command(bin, "completion", "bash").Output()
	if err != nil || !strings.Contains(string(out), "__start_cudb") {
		t.Errorf("completion bash: %v (%d bytes)", err, len(out))
	}
}
