package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
)

// TestKilledInitResumes: a `refresh --init` killed before its first
// commit leaves only its lock, staging folder and fetch cache. Running it
// again with --init resumes there; without --init the refusal names that
// exact command. A folder holding anything else is still refused.
func TestKilledInitResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(filepath.Join(dir, ".refresh-staging", "sources"), 0o755)
	os.WriteFile(filepath.Join(dir, ".refresh.lock"), []byte("12345\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".fetch-cache.json"), []byte("{}"), 0o644)
	_, err := openDataDir(dir, false, false)
	var e *errs.Error
	if !errorAs(err, &e) || e.Code != errs.CodeUsage || !strings.Contains(err.Error(), "interrupted `cudb refresh --init`") || e.Hint != "cudb refresh --data "+dir+" --init (resumes it: the leftovers are recovered or removed)" {
		t.Fatalf("without --init: %v (hint %q)", err, hintOf(err))
	}
	if created, err := openDataDir(dir, true, false); err != nil || created {
		t.Fatalf("with --init: created=%v %v, want the folder adopted", created, err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := openDataDir(dir, true, false); err == nil || !strings.Contains(err.Error(), "is not a cudb data directory") {
		t.Fatalf("a folder with a file of its owner's: %v", err)
	}
}

func errorAs(err error, e **errs.Error) bool {
	x, ok := err.(*errs.Error)
	*e = x
	return ok
}

func hintOf(err error) string {
	if e, ok := err.(*errs.Error); ok {
		return e.Hint
	}
	return ""
}
