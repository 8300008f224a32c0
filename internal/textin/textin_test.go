package textin

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/testenv"
)

func TestNotText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 200000)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	noNUL := make([]byte, len(random))
	for i, c := range random {
		noNUL[i] = c | 1 // random bytes without a NUL are still binary
	}
	for _, tc := range []struct {
		name string
		in   []byte
		text bool
	}{
		{"random bytes", random, false},
		{"random bytes without NUL", noNUL, false},
		{"a NUL in text", []byte("NVIDIA-SMI 535.129.03\x00"), false},
		{"ASCII", []byte("RuntimeError: No CUDA GPUs are available\n"), true},
		{"UTF-8 and ANSI colours", []byte("\x1b[31mErreur\x1b[0m: le pilote NVIDIA est trop ancien — mise à jour\n"), true},
		{"one Latin-1 letter in a long line", []byte("Ger\xe4t: " + strings.Repeat("NVIDIA GeForce RTX 3090 ", 4) + "\n"), true},
		{"UTF-16 with its byte-order mark", []byte{0xff, 0xfe, 'a', 0, 'b', 0}, true},
		{"empty", nil, true},
	} {
		if got := NotText(tc.in) == ""; got != tc.text {
			t.Errorf("%s: text %v, want %v (%s)", tc.name, got, tc.text, NotText(tc.in))
		}
	}
}

// TestRealCapturesAreText: every capture of the real GPU host is text.
func TestRealCapturesAreText(t *testing.T) {
	dir := testenv.Fixture(t, "gpu-h100-2026-11")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.txt"))
	files = append(files, more...)
	if len(files) < 20 {
		t.Fatalf("want the captures, got %d", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if why := NotText(b); why != "" {
			t.Errorf("%s: %s", filepath.Base(f), why)
		}
	}
}
