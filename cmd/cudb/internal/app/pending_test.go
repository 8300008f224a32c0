package app

import (
	"strings"
	"testing"
)

// A known release whose facts are pending: resolve answers unknown (exit
// 4) and its hint names a matrix command that runs and lists the release
// marked pending; the matrix also answers to the package's name.
func TestPendingReleaseHintRuns(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "onnxruntime-gpu==1.30.0")
	if code != 4 || out != "" || !strings.Contains(stderr, "unknown: onnxruntime-gpu 1.30.0") {
		t.Fatalf("resolve: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	_, hint, ok := strings.Cut(stderr, "Try: ")
	if !ok {
		t.Fatalf("no hint in %q", stderr)
	}
	args := strings.Fields(strings.TrimPrefix(strings.SplitN(hint, " (", 2)[0], "cudb "))
	for _, a := range [][]string{args, {"matrix", "onnxruntime-gpu"}} {
		code, out, stderr = run(t, false, a...)
		if code != 0 || !strings.Contains(out, "1.30.0\t(facts pending)") {
			t.Errorf("cudb %s: exit %d, stderr %q, stdout:\n%.300s", strings.Join(a, " "), code, stderr, out)
		}
	}
	code, out, _ = run(t, false, "db", "info")
	if code != 0 || !strings.Contains(out, "onnxruntime-gpu\t1.31.1 (facts pending)") {
		t.Errorf("db info: exit %d:\n%s", code, out)
	}
}
