// Command wheel packs a cudb binary into a Python wheel, so that
// `pip install cudb`, `uv tool install cudb` and `pipx run cudb` install
// the Go binary. The wheel holds no Python code: the binary sits under
// cudb-<version>.data/scripts/, which installers copy into the
// environment's bin (Scripts on Windows) directory. It is written with the
// standard library only (archive/zip, crypto/sha256), with a fixed
// timestamp, so the same binary always gives the same wheel.
//
//	go run ./cmd/wheel -binary dist/cudb-linux-amd64 -goos linux -goarch amd64 -version 0.1.0 -out dist/wheels
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "error: %s\n", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cudb-wheel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	binary := fs.String("binary", "", "the cudb binary to pack (built for -goos/-goarch)")
	goos := fs.String("goos", "", "the binary's GOOS: linux, darwin or windows")
	goarch := fs.String("goarch", "", "the binary's GOARCH: amd64 or arm64")
	ver := fs.String("version", "", "the wheel's version (PEP 440; a leading v is dropped)")
	out := fs.String("out", "", "the directory the wheel is written into (created when missing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *binary == "" || *goos == "" || *goarch == "" || *ver == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("-binary, -goos, -goarch, -version and -out are required")
	}
	plat, err := PlatformFor(*goos, *goarch)
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(*binary)
	if err != nil {
		return fmt.Errorf("failed to read the binary: %w", err)
	}
	w, err := New(*ver, plat, bin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(*out, w.Filename())
	if err := writeFile(path, w); err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}

// writeFile writes the wheel to path through a temporary file in the same
// directory, so a failed run leaves no half-written wheel.
func writeFile(path string, w *Wheel) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".wheel-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := w.Write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file private; a wheel is published.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
