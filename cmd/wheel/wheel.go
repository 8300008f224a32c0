package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/cudb/cudb/internal/version"
)

// Name is the distribution's name on PyPI.
const Name = "cudb"

// Platform is one target a wheel is built for.
type Platform struct {
	GOOS, GOARCH string
	// Tags are the wheel platform tags the binary runs on, most specific
	// last; the file name joins them with dots (a compressed tag set).
	Tags []string
	// Exe is the binary's file name inside the wheel.
	Exe string
}

// Platforms lists the wheels `make wheels` builds. A static Go binary
// (CGO_ENABLED=0) needs no glibc, so the Linux wheels also carry musllinux
// tags; macOS 12 is the oldest Go 1.26 supports.
var Platforms = []Platform{
	{"linux", "amd64", []string{"manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"}, "cudb"},
	{"linux", "arm64", []string{"manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_1_aarch64"}, "cudb"},
	{"darwin", "amd64", []string{"macosx_12_0_x86_64"}, "cudb"},
	{"darwin", "arm64", []string{"macosx_12_0_arm64"}, "cudb"},
	{"windows", "amd64", []string{"win_amd64"}, "cudb.exe"},
}

// PlatformFor returns the platform of goos/goarch.
func PlatformFor(goos, goarch string) (Platform, error) {
	var known []string
	for _, p := range Platforms {
		if p.GOOS == goos && p.GOARCH == goarch {
			return p, nil
		}
		known = append(known, p.GOOS+"/"+p.GOARCH)
	}
	return Platform{}, fmt.Errorf("no wheel platform for %s/%s (wheels: %s)", goos, goarch, strings.Join(known, ", "))
}

// Wheel is one platform wheel of cudb.
type Wheel struct {
	Version  string // PEP 440 normal form
	Platform Platform
	Binary   []byte
}

// New checks the version and returns the wheel.
func New(ver string, p Platform, binary []byte) (*Wheel, error) {
	v, err := version.Parse(strings.TrimPrefix(ver, "v"))
	if err != nil {
		return nil, fmt.Errorf("wheel version %q is not a PEP 440 version: %w", ver, err)
	}
	if v.Local() != "" {
		return nil, fmt.Errorf("wheel version %q has a local label (+%s): PyPI refuses those", ver, v.Local())
	}
	if len(binary) == 0 {
		return nil, fmt.Errorf("the binary is empty")
	}
	return &Wheel{Version: v.String(), Platform: p, Binary: binary}, nil
}

// Tag is the wheel's compressed tag: py3-none-<platform tags joined by dots>.
func (w *Wheel) Tag() string { return "py3-none-" + strings.Join(w.Platform.Tags, ".") }

// Filename is the wheel's file name (PEP 427).
func (w *Wheel) Filename() string { return fmt.Sprintf("%s-%s-%s.whl", Name, w.Version, w.Tag()) }

func (w *Wheel) distInfo() string { return fmt.Sprintf("%s-%s.dist-info", Name, w.Version) }

// ScriptPath is where the binary lies inside the wheel.
func (w *Wheel) ScriptPath() string {
	return fmt.Sprintf("%s-%s.data/scripts/%s", Name, w.Version, w.Platform.Exe)
}

// metadata is the core metadata (version 2.1) of the distribution.
func (w *Wheel) metadata() string {
	return strings.Join([]string{
		"Metadata-Version: 2.1",
		"Name: " + Name,
		"Version: " + w.Version,
		"Summary: Which NVIDIA driver, CUDA, cuDNN, framework build and GPU go together (offline, every fact cited)",
		"Home-page: https://github.com/cudb/cudb",
		"Keywords: cuda,cudnn,nvidia,pytorch,tensorflow,jax,onnxruntime,compatibility",
		"Classifier: Environment :: GPU :: NVIDIA CUDA",
		"Classifier: Programming Language :: Go",
		"Classifier: Topic :: Software Development :: Build Tools",
		"Requires-Python: >=3.7",
		"Description-Content-Type: text/markdown",
		"",
		"cudb is a single static binary (written in Go) that answers which NVIDIA driver,",
		"CUDA, cuDNN, framework build (PyTorch, TensorFlow, JAX, ONNX Runtime) and GPU go",
		"together, from a database embedded in it. This wheel installs the `cudb` command;",
		"it holds no Python code.",
		"",
		"    cudb resolve torch==2.1",
		"    cudb verify",
		"",
	}, "\n")
}

// wheelFile is the WHEEL file: one Tag line per expanded tag.
func (w *Wheel) wheelFile() string {
	lines := []string{"Wheel-Version: 1.0", "Generator: cudb-wheel", "Root-Is-Purelib: false"}
	for _, t := range w.Platform.Tags {
		lines = append(lines, "Tag: py3-none-"+t)
	}
	return strings.Join(lines, "\n") + "\n"
}

// modified is every entry's timestamp: fixed, so wheels reproduce.
var modified = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// Write writes the wheel (a zip archive) to out: the binary, METADATA,
// WHEEL and RECORD (each file's urlsafe-base64 SHA-256 and size).
func (w *Wheel) Write(out io.Writer) error {
	type entry struct {
		name string
		body []byte
		mode fs.FileMode
	}
	info := w.distInfo()
	entries := []entry{
		{w.ScriptPath(), w.Binary, 0o755},
		{info + "/METADATA", []byte(w.metadata()), 0o644},
		{info + "/WHEEL", []byte(w.wheelFile()), 0o644},
	}
	var record bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&record, "%s,%s,%d\n", e.name, RecordHash(e.body), len(e.body))
	}
	fmt.Fprintf(&record, "%s/RECORD,,\n", info)
	entries = append(entries, entry{info + "/RECORD", record.Bytes(), 0o644})

	zw := zip.NewWriter(out)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: modified}
		h.SetMode(e.mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(e.body); err != nil {
			return err
		}
	}
	return zw.Close()
}

// RecordHash is a RECORD hash: "sha256=" and the urlsafe base64 digest
// without padding.
func RecordHash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256=" + base64.RawURLEncoding.EncodeToString(sum[:])
}
