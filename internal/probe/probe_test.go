package probe

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/probe/probetest"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files (facts.json, generated ld.so.cache files)")

// loadHost reads a fake host: root/ (the file tree), cmds/ (recorded
// commands), env (KEY=VALUE lines; PYTHON names --python).
func loadHost(t testing.TB, dir string) Options {
	t.Helper()
	if *update {
		writeLDCacheFixture(t, dir)
	}
	opts, err := fakeHostOptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

// fakeHostOptions are the probe options for the fake host in dir, its
// recorded commands answered by a ReplayRunner.
func fakeHostOptions(dir string) (Options, error) {
	h, err := probetest.Load(dir)
	if err != nil {
		return Options{}, err
	}
	opts := Options{Root: h.Root, Env: h.Env, Runner: &ReplayRunner{}, Timeout: time.Second,
		Python: h.Python, Deep: h.Deep, DeepTimeout: h.DeepTimeout}
	if h.Cmds != "" {
		if opts.Runner, err = LoadReplay(h.Cmds); err != nil {
			return Options{}, err
		}
	}
	return opts, nil
}

func TestHosts(t *testing.T) {
	hosts, err := filepath.Glob("testdata/hosts/*")
	if err != nil || len(hosts) < 10 {
		t.Fatalf("expected the fake hosts in testdata/hosts, got %d (%v)", len(hosts), err)
	}
	for _, dir := range hosts {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts := loadHost(t, dir)
			if filepath.Base(dir) == "hanging-smi" {
				opts.Timeout = 50 * time.Millisecond
			}
			got, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join(dir, "facts.json"), got)
		})
	}
}

// TestHangReturnsWithinTimeout: a wedged nvidia-smi is given up at the
// command timeout (the note says so: the fake never answers, so Run
// returning at all means the timeout ended it), and the rest of the
// facts still come.
func TestHangReturnsWithinTimeout(t *testing.T) {
	opts := loadHost(t, "testdata/hosts/hanging-smi")
	opts.Timeout = 200 * time.Millisecond
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Driver == nil || f.Driver.Version != "550.54.15" {
		t.Errorf("driver = %+v, want 550.54.15 from the files", f.Driver)
	}
	found := false
	for _, n := range f.Notes {
		if n.Probe == "nvidia-smi" && strings.Contains(n.Message, "did not answer within 200ms") {
			found = true
		}
	}
	if !found {
		t.Errorf("no timeout note in %+v", f.Notes)
	}
}

func TestNoRunner(t *testing.T) {
	opts := loadHost(t, "testdata/hosts/healthy")
	opts.Runner = nil
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Driver == nil || f.Driver.Version != "550.90.07" || len(f.GPUs) != 1 || f.GPUs[0].Source != srcProcGPUs {
		t.Errorf("without commands want the driver and GPUs from files, got %+v %+v", f.Driver, f.GPUs)
	}
}

func TestBadRoot(t *testing.T) {
	if _, err := Run(context.Background(), Options{Root: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Fatal("want an error for a missing root")
	}
}

func compareGolden(t *testing.T, golden string, got *host.Snapshot) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("facts differ from %s (-want +got):\n%s", golden, d)
	}
}

// writeLDCacheFixture turns a host's ldcache.txt (first line the layout:
// new, old or both; then "name path" lines) into root/etc/ld.so.cache.
func writeLDCacheFixture(t testing.TB, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "ldcache.txt"))
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	var es []ldEntry
	for _, l := range ls[1:] {
		name, p, _ := strings.Cut(l, " ")
		es = append(es, ldEntry{Name: name, Path: p, Flags: 0x0303})
	}
	out := filepath.Join(dir, "root/etc/ld.so.cache")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, buildLDCache(es, ls[0]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildLDCache writes a loader cache in the given layout, as ldconfig
// would.
func buildLDCache(es []ldEntry, layout string) []byte {
	le := binary.LittleEndian
	var buf bytes.Buffer
	// Strings come after the tables; offsets are relative to the old
	// string table (old layout) or to the new header (new layout).
	oldStrings := func() ([]byte, []uint32) {
		var s bytes.Buffer
		var offs []uint32
		for _, e := range es {
			offs = append(offs, uint32(s.Len()))
			s.WriteString(e.Name + "\x00")
			offs = append(offs, uint32(s.Len()))
			s.WriteString(e.Path + "\x00")
		}
		return s.Bytes(), offs
	}
	newTable := func() []byte {
		var h bytes.Buffer
		strBase := ldNewHdr + len(es)*ldNewEntry
		var s bytes.Buffer
		var offs []uint32
		for _, e := range es {
			offs = append(offs, uint32(strBase+s.Len()))
			s.WriteString(e.Name + "\x00")
			offs = append(offs, uint32(strBase+s.Len()))
			s.WriteString(e.Path + "\x00")
		}
		h.WriteString(ldNewMagic)
		binary.Write(&h, le, uint32(len(es)))
		binary.Write(&h, le, uint32(s.Len()))
		h.Write([]byte{2, 0, 0, 0})
		binary.Write(&h, le, uint32(0))
		h.Write(make([]byte, 12))
		for i, e := range es {
			binary.Write(&h, le, e.Flags)
			binary.Write(&h, le, offs[2*i])
			binary.Write(&h, le, offs[2*i+1])
			binary.Write(&h, le, uint32(0))
			binary.Write(&h, le, uint64(0))
		}
		h.Write(s.Bytes())
		return h.Bytes()
	}
	if layout == "new" {
		return newTable()
	}
	buf.WriteString(ldOldMagic + "\x00")
	binary.Write(&buf, le, uint32(len(es)))
	strs, offs := oldStrings()
	for i, e := range es {
		binary.Write(&buf, le, e.Flags)
		binary.Write(&buf, le, offs[2*i])
		binary.Write(&buf, le, offs[2*i+1])
	}
	if layout == "both" {
		// glibc places the new table right after the old entries, where
		// the old string table would start, aligned to 8; its own
		// strings follow it.
		for buf.Len()%8 != 0 {
			buf.WriteByte(0)
		}
		buf.Write(newTable())
		return buf.Bytes()
	}
	buf.Write(strs)
	return buf.Bytes()
}

func TestLDCacheLayouts(t *testing.T) {
	es := []ldEntry{
		{Name: "libcudnn.so.8", Path: "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", Flags: 0x0303},
		{Name: "libcuda.so.1", Path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1", Flags: 0x0303},
	}
	for _, layout := range []string{"old", "new", "both"} {
		got, err := parseLDCache(buildLDCache(es, layout))
		if err != nil {
			t.Fatalf("%s: %v", layout, err)
		}
		if d := cmp.Diff(es, got); d != "" {
			t.Errorf("%s layout (-want +got):\n%s", layout, d)
		}
	}
	for _, bad := range [][]byte{nil, []byte("ld.so-1.7.0"), []byte("glibc-ld.so.cache1.1\xff\xff\xff\xff"), []byte("garbage")} {
		if _, err := parseLDCache(bad); err == nil {
			t.Errorf("parseLDCache(%q) = nil error", bad)
		}
	}
}

func TestLdconfigP(t *testing.T) {
	out := "2 libs found in cache `/etc/ld.so.cache'\n\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n\tlibc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6\n"
	got := parseLdconfigP([]byte(out))
	want := []ldEntry{{Name: "libcudnn.so.8", Path: "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"}, {Name: "libc.so.6", Path: "/lib/x86_64-linux-gnu/libc.so.6"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

func FuzzLDCache(f *testing.F) {
	es := []ldEntry{{Name: "libcudnn.so.8", Path: "/usr/lib/libcudnn.so.8"}}
	for _, l := range []string{"old", "new", "both"} {
		f.Add(buildLDCache(es, l))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		parseLDCache(b)
	})
}

func BenchmarkProbeFakeHost(b *testing.B) {
	opts := loadHost(b, "testdata/hosts/healthy")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(ctx, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10

// TestPathPythonOrder: python3 is found as the shell finds it, in PATH
// order, with pyenv's shims followed to the version pyenv selects.
func TestPathPythonOrder(t *testing.T) {
	base := loadHost(t, "testdata/hosts/pyenv-shims")
	for _, tc := range []struct {
		name   string
		env    map[string]string
		interp string
		prefix string
	}{
		{"a .python-version in the working directory beats the global version", nil, "/home/u/.pyenv/shims/python3 (pyenv 3.11.7)", "/home/u/.pyenv/versions/3.11.7"},
		{"PYENV_VERSION beats both", map[string]string{"PYENV_VERSION": "3.10.13"}, "/home/u/.pyenv/shims/python3 (pyenv 3.10.13)", "/home/u/.pyenv/versions/3.10.13"},
		{"outside the project the global version file", map[string]string{"PWD": "/tmp"}, "/home/u/.pyenv/shims/python3 (pyenv 3.10.13)", "/home/u/.pyenv/versions/3.10.13"},
		{"pyenv's system hands over to the next python3 on PATH", map[string]string{"PYENV_VERSION": "system"}, "/usr/bin/python3", "/usr"},
		{"a directory earlier on PATH wins", map[string]string{"PATH": "/home/u/.pyenv/versions/3.11.7/bin:/home/u/.pyenv/shims:/usr/bin", "PYENV_VERSION": "3.10.13"}, "/home/u/.pyenv/versions/3.11.7/bin/python3", "/home/u/.pyenv/versions/3.11.7"},
		{"no python3 on PATH", map[string]string{"PATH": "/usr/local/cuda/bin"}, "", ""},
	} {
		opts := base
		opts.Env = map[string]string{}
		for k, v := range base.Env {
			opts.Env[k] = v
		}
		for k, v := range tc.env {
			opts.Env[k] = v
		}
		p := &prober{opts: opts, fs: fsys{root: opts.Root}}
		interp, prefix := p.pathPython()
		if interp != tc.interp || prefix != tc.prefix {
			t.Errorf("%s: %q %q, want %q %q", tc.name, interp, prefix, tc.interp, tc.prefix)
		}
	}
}
