package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pin -o /dev/stdout writes through to whatever standard output is — a
// pipe, or a regular file the caller opened — and never replaces the
// /dev/stdout link or renames over the caller's file.
func TestPinOutputDevStdout(t *testing.T) {
	if _, err := os.Lstat("/dev/stdout"); err != nil {
		t.Skip(err)
	}
	bin := buildBinary(t)
	args := []string{"pin", "torch==2.1", "--cuda", "12.1", "-o", "/dev/stdout"}
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("pipe: %v: %s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "torch==2.1.0") {
		t.Errorf("pipe got %q", out.String())
	}
	// Standard output redirected to a file of the test's: the same inode
	// receives the pins.
	path := filepath.Join(t.TempDir(), "out.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := f.Stat()
	cmd = exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, &errOut
	err = cmd.Run()
	f.Close()
	if err != nil {
		t.Fatalf("file: %v: %s", err, errOut.String())
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the caller's file was replaced by another")
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "torch==2.1.0") {
		t.Errorf("file got %q", b)
	}
}
