package app

import (
	"strings"
	"testing"
)

// A known release whose facts are pending: resolve answers unknown (exit
// 4) and its hint names a matrix command that runs and lists the release
// marked pending; the matrix also answers to the package's name.
func TestPendingReleaseHintRuns(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "jax==0.12.0.1")
	if code != 4 || out != "" || !strings.Contains(stderr, "unknown: jax 0.12.0.1") {
		t.Fatalf("resolve: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	_, hint, ok := strings.Cut(stderr, "Try: ")
	if !ok {
		t.Fatalf("no hint in %q", stderr)
	}
	args := strings.Fields(strings.TrimPrefix(strings.SplitN(hint, " (", 2)[0], "cudb "))
	for _, a := range [][]string{args, {"matrix", "jax"}} {
		code, out, stderr = run(t, false, a...)
		if code != 0 || !strings.Contains(out, "0.12.0.1\t(facts pending)") {
			t.Errorf("cudb %s: exit %d, stderr %q, stdout:\n%.300s", strings.Join(a, " "), code, stderr, out)
		}
	}
	code, out, _ = run(t, false, "db", "info")
	if code != 0 || !strings.Contains(out, "jax\t0.12.0.1 (facts pending)") {
		t.Errorf("db info: exit %d:\n%s", code, out)
	}
}

// matrix cudnn: ranges in ASCII for programs, and on a terminal a note
// naming the releases known without a support row, whose resolve answers.
func TestMatrixCUDNNPipedAndReleases(t *testing.T) {
	code, out, _ := run(t, false, "matrix", "cudnn")
	if code != 0 || strings.Contains(out, "–") || !strings.Contains(out, "\t12.0-12.8\t") {
		t.Errorf("piped matrix cudnn: exit %d, en dash or no ASCII range:\n%.400s", code, out)
	}
	code, _, stderr := run(t, true, "matrix", "cudnn")
	if code != 0 || !strings.Contains(stderr, "cuDNN releases are known without a support-matrix row") {
		t.Fatalf("matrix cudnn on a terminal: exit %d, stderr %q", code, stderr)
	}
	_, cmd, _ := strings.Cut(stderr, "; cudb ")
	args := strings.Fields(strings.SplitN(cmd, " says", 2)[0])
	code, out, stderr = run(t, false, args...)
	if !(code == 0 && strings.Contains(out, "support matrix not read")) && !(code == 4 && strings.Contains(stderr, "unknown: cudnn")) {
		t.Errorf("cudb %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
	}
}

// A companion release only a lead names (torchvision 0.29.2 on PyPI):
// what it pairs with is unknown (exit 4), not "no torch build matches".
func TestPendingCompanionIsUnknown(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "torchvision==0.29.2")
	if code != 4 || out != "" || !strings.Contains(stderr, "unknown: torchvision 0.29.2") || !strings.Contains(stderr, "Try: cudb matrix torch ") {
		t.Errorf("resolve torchvision==0.29.2: exit %d\n%s%s", code, out, stderr)
	}
	// a paired release still resolves; an unknown one is still not found
	if code, out, stderr = run(t, false, "resolve", "torchvision==0.29.1"); code != 0 || !strings.Contains(out, "torchvision==0.29.1") {
		t.Errorf("resolve torchvision==0.29.1: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr = run(t, false, "resolve", "torchvision==0.99"); code != 4 || strings.Contains(stderr, "unknown:") {
		t.Errorf("resolve torchvision==0.99: exit %d %s", code, stderr)
	}
}

// A cuDNN release only a lead names: the hint runs and lists it.
func TestPendingCUDNNHintRuns(t *testing.T) {
	code, _, stderr := run(t, false, "resolve", "cudnn==9.28.0")
	if code != 4 || !strings.Contains(stderr, "unknown: cudnn 9.28.0") {
		t.Skipf("cuDNN 9.28.0 is no longer a pending release: exit %d %s", code, stderr)
	}
	_, hint, _ := strings.Cut(stderr, "Try: cudb ")
	args, ok := shellWords(strings.SplitN(hint, " (", 2)[0])
	if !ok {
		t.Fatalf("hint %q", hint)
	}
	code, out, stderr := run(t, false, args...)
	if code != 0 || !strings.Contains(out, "9.28.0\t") || !strings.Contains(out, "facts pending") {
		t.Errorf("cudb %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
	}
}
