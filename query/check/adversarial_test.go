package check

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/input"
	"github.com/cudb/cudb/internal/testenv"
)

// The reproducer classes of the adversarial pass (issue 29), generated
// here rather than committed: each is judged, or refused with an error
// that names a bound (errs.CodeLimit), while a watchdog holds the heap
// under adversarialHeap. Their time is measured by BenchmarkAdversarial.

// adversarialHeap is the heap any one hostile input may grow to.
const adversarialHeap = 256 << 20

type hostile struct {
	name  string
	file  string
	text  func() string
	limit bool // refused by a bound (else judged)
	// heavy classes take a second or more of CPU: `make adversarial`
	// (CUDB_SLOW=1) runs them, `make test` the rest.
	heavy bool
}

func doublingDockerfile(n int) string {
	var b strings.Builder
	b.WriteString("FROM python:3.11\nARG A0=x\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "ARG A%d=${A%d}${A%d}\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "RUN pip install torch==${A%d}\n", n)
	return b.String()
}

func argChain(n int) string {
	var b strings.Builder
	b.WriteString("FROM python:3.11\nARG A0=x\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "ARG A%d=${A%d}x\n", i, i-1)
	}
	b.WriteString("RUN pip install torch==2.1.0\n")
	return b.String()
}

func tomlHeader(parts int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("a.", parts), ".") + "]\nx = 1\n"
}

func tomlInline(n int) string {
	return "[project]\nname = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n"
}

func uvLock(n int) string {
	var b strings.Builder
	b.WriteString("version = 1\nrevision = 2\nrequires-python = \">=3.10\"\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[[package]]\nname = \"pkg%d\"\nversion = \"1.0.%d\"\nsource = { registry = \"https://pypi.org/simple\" }\n\n", i, i)
	}
	b.WriteString("[[package]]\nname = \"torch\"\nversion = \"2.1.0\"\nsource = { registry = \"https://pypi.org/simple\" }\n")
	return b.String()
}

func heredoc(lines int) string {
	return "FROM python:3.11\nRUN <<EOF\n" + strings.Repeat("echo pip install torch==2.1.0\n", lines) + "EOF\n"
}

func continuations(lines int) string {
	return "FROM python:3.11\nRUN pip install \\\n" + strings.Repeat("  numpy \\\n", lines) + "  torch==2.1.0\n"
}

func hostiles() []hostile {
	return []hostile{
		{"doubling ARGs x28", "Dockerfile", func() string { return doublingDockerfile(28) }, true, false},
		{"doubling ARGs x63", "Dockerfile", func() string { return doublingDockerfile(63) }, true, false},
		{"ARG chain 100,000", "Dockerfile", func() string { return argChain(100_000) }, true, true},
		{"TOML header 100,000 parts", "pyproject.toml", func() string { return tomlHeader(100_000) }, true, false},
		{"TOML dotted key 100,000 parts", "pyproject.toml", func() string { return "[project]\n" + strings.Repeat("a.", 100_000) + "b = 1\n" }, true, false},
		{"TOML 60,000 nested inline tables", "pyproject.toml", func() string { return tomlInline(60_000) }, true, false},
		{"TOML 60,000 nested arrays", "uv.lock", func() string {
			return "version = 1\nx = " + strings.Repeat("[", 60_000) + strings.Repeat("]", 60_000) + "\n"
		}, true, false},
		{"YAML 60,000 nested flow", "environment.yml", func() string {
			return "dependencies: " + strings.Repeat("[", 60_000) + strings.Repeat("]", 60_000) + "\n"
		}, true, false},
		{"uv.lock 43,000 packages", "uv.lock", func() string { return uvLock(43_000) }, false, true},
		{"heredoc 200,000 lines", "Dockerfile", func() string { return heredoc(200_000) }, true, false},
		{"continuations 500,000 lines", "Dockerfile", func() string { return continuations(500_000) }, true, false},
		{"heredoc 90,000 lines", "Dockerfile", func() string { return heredoc(90_000) }, false, true},
		{"continuations 90,000 lines", "Dockerfile", func() string { return continuations(90_000) }, false, true},
		{"requirements 90,000 lines", "requirements.txt", func() string { return strings.Repeat("numpy==1.26.0\n", 90_000) + "torch==2.1.0\n" }, false, true},
		{"requirement line 4 MiB", "requirements.txt", func() string { return "torch==2.1.0 " + strings.Repeat("x", 4<<20) + "\n" }, true, false},
		{"requirement line 1 MiB", "requirements.txt", func() string { return "torch==2.1.0 ; " + strings.Repeat("x", 1<<20-20) + "\n" }, false, false},
		{"file over the size bound", "requirements.txt", func() string { return strings.Repeat("numpy==1.26.0\n", input.MaxFileSize/14+1) }, true, false},
	}
}

// heapWatch fails t when the heap grows past max while fn runs.
func heapWatch(t *testing.T, max uint64, fn func()) {
	t.Helper()
	done := make(chan struct{})
	peak := make(chan uint64, 1)
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var top uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > top {
				top = v
			}
			select {
			case <-done:
				peak <- top
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	if p := <-peak - base; p > max {
		t.Errorf("heap grew to %d MiB (bound %d MiB)", p>>20, max>>20)
	}
}

func TestAdversarialInputs(t *testing.T) {
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, h := range hostiles() {
		t.Run(h.name, func(t *testing.T) {
			if h.heavy {
				testenv.Slow(t)
			}
			text := []byte(h.text())
			var rep *Report
			heapWatch(t, adversarialHeap+uint64(len(text))*4, func() {
				rep, err = Check(context.Background(), d, []Input{{Name: h.file, Data: text}}, Options{JudgeHost: judgeWithVerify, Target: Target{Driver: "535.104.05", GPU: "RTX 4090"}})
			})
			switch {
			case h.limit && errs.CodeOf(err) != errs.CodeLimit:
				t.Fatalf("want an error naming a bound, got %v", err)
			case h.limit:
				if !strings.Contains(err.Error(), "over the limit of") {
					t.Errorf("error does not name its bound: %v", err)
				}
			case err != nil:
				t.Fatalf("want a judgement, got %v", err)
			case len(rep.Files) != 1:
				t.Fatalf("files judged: %+v", rep.Files)
			}
		})
	}
}

// BenchmarkAdversarial times each class (docs/benchmarks.md: every one
// answers in well under a second but the 43,000-package lock).
func BenchmarkAdversarial(b *testing.B) {
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for _, h := range hostiles() {
		text := []byte(h.text())
		b.Run(strings.ReplaceAll(h.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_, _ = Check(context.Background(), d, []Input{{Name: h.file, Data: text}}, Options{JudgeHost: judgeWithVerify, Target: Target{Driver: "535.104.05", GPU: "RTX 4090"}})
			}
		})
	}
}

// fuzzHeap is the live heap (after a collection) past which a fuzz input
// fails: `make adversarial` fuzzes with GOMEMLIMIT below it, so the
// collector works hard before the watchdog gives up.
const fuzzHeap = 512 << 20

var watchdogOnce sync.Once

// heapWatchdog starts, once per fuzz worker, a watchdog that panics when
// the live heap passes fuzzHeap: the worker dies on the input that grew
// it, and the fuzzer records that input as a failure.
func heapWatchdog() {
	watchdogOnce.Do(func() {
		go func() {
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			for range time.Tick(5 * time.Millisecond) {
				metrics.Read(s)
				if s[0].Value.Uint64() <= fuzzHeap {
					continue
				}
				runtime.GC()
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > fuzzHeap {
					panic(fmt.Sprintf("fuzz input grew the live heap to %d MiB (cap %d MiB)", v>>20, fuzzHeap>>20))
				}
			}
		}()
	})
}

// TestIncludesPastTheBound: -r includes are followed up to
// input.MaxIncludes files and refused past it, naming the bound; none is
// dropped silently (they were past the 32nd).
func TestIncludesPastTheBound(t *testing.T) {
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	read := func(name string) ([]byte, error) {
		if name == "last.txt" {
			return []byte("torch==2.1.0\n"), nil
		}
		return []byte("numpy==1.26.0\n"), nil
	}
	file := func(n int) []byte {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "-r f%d.txt\n", i)
		}
		b.WriteString("-r last.txt\n")
		return []byte(b.String())
	}
	rep, err := Check(context.Background(), d, []Input{{Name: "requirements.txt", Data: file(40)}}, Options{JudgeHost: judgeWithVerify, Read: read})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(rep.Files), "torch==2.1.0") {
		t.Errorf("the 41st include was not judged: %+v", rep.Files)
	}
	_, err = Check(context.Background(), d, []Input{{Name: "requirements.txt", Data: file(input.MaxIncludes + 5)}}, Options{JudgeHost: judgeWithVerify, Read: read})
	if errs.CodeOf(err) != errs.CodeLimit || !strings.Contains(err.Error(), "the number of files followed") {
		t.Fatalf("past the bound: %v", err)
	}
}
