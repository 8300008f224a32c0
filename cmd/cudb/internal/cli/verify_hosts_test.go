package cli

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/query/findings"

	"github.com/google/go-cmp/cmp"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/internal/probe"
	"github.com/cudb/cudb/internal/probe/probetest"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/verify"
	"github.com/cudb/cudb/usecase"
)

var updateGoldens = flag.Bool("update", false, "rewrite the verify golden files")

const hostsDir = "../../../../internal/probe/testdata/hosts"

func embeddedDB(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// goldenFinding is what a golden pins: the category, the severity and the
// full message and fix (so a changed fix shows in review).
type goldenFinding struct {
	Category string `json:"category"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"`
}

type goldenReport struct {
	Healthy  bool            `json:"healthy"`
	Findings []goldenFinding `json:"findings"`
}

func toGolden(r *verify.Result) goldenReport {
	g := goldenReport{Healthy: r.Summary.Healthy, Findings: []goldenFinding{}}
	for _, f := range r.Findings {
		g.Findings = append(g.Findings, goldenFinding{f.Category, f.Severity, f.Message, f.Fix})
	}
	return g
}

func compareVerifyGolden(t *testing.T, path string, got goldenReport) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if *updateGoldens {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var w goldenReport
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(w, got); d != "" {
		t.Errorf("findings differ from %s (-want +got):\n%s", path, d)
	}
}

func verifyHost(t testing.TB, d *db.DB, name string) *verify.Result {
	t.Helper()
	opts, err := fakeHostOptions(filepath.Join(hostsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if name == "hanging-smi" {
		opts.Timeout = 50 * time.Millisecond
	}
	facts, err := probe.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// The use case every door calls (it hands verify pin's system cuDNN
	// line).
	res, err := usecase.Verify(context.Background(), d, usecase.VerifyOptions{Host: facts})
	if err != nil {
		t.Fatal(err)
	}
	return res.Reports[0].Report
}

// TestVerifyFakeHosts: probe → Verify on every fake host against the
// embedded database gives exactly the golden findings
// (testdata/verify/hosts/<host>.json; -update rewrites them).
func TestVerifyFakeHosts(t *testing.T) {
	d := embeddedDB(t)
	hosts, err := filepath.Glob(filepath.Join(hostsDir, "*"))
	if err != nil || len(hosts) < 10 {
		t.Fatalf("want the fake hosts, got %d (%v)", len(hosts), err)
	}
	for _, h := range hosts {
		name := filepath.Base(h)
		t.Run(name, func(t *testing.T) {
			r := verifyHost(t, d, name)
			compareVerifyGolden(t, filepath.Join("testdata/verify/hosts", name+".json"), toGolden(r))
		})
	}
}

// TestVerifyReports: every report fixture of query/report, parsed and
// verified, gives its golden findings (testdata/verify/reports).
func TestVerifyReports(t *testing.T) {
	d := embeddedDB(t)
	var files []string
	for _, pat := range []string{"../../../../internal/host/report/testdata/*.txt", "../../../../internal/host/report/testdata/probe.json"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 15 {
		t.Fatalf("want at least 15 report fixtures, have %d", len(files))
	}
	for _, fx := range files {
		name := strings.TrimSuffix(filepath.Base(fx), filepath.Ext(fx))
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			facts, _, err := report.Parse(text)
			if err != nil {
				if name == "unknown" {
					return
				}
				t.Fatal(err)
			}
			r, err := verify.Verify(context.Background(), d, facts)
			if err != nil {
				t.Fatal(err)
			}
			compareVerifyGolden(t, filepath.Join("testdata/verify/reports", name+".json"), toGolden(r))
		})
	}
}

// TestVerifyHangingSMI: a wedged nvidia-smi costs one timeout, and the
// report says so as a warning finding.
func TestVerifyHangingSMI(t *testing.T) {
	d := embeddedDB(t)
	opts, err := fakeHostOptions(filepath.Join(hostsDir, "hanging-smi"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Timeout = 200 * time.Millisecond
	// The replayed nvidia-smi never answers: returning at all means the
	// command timeout ended it, and the finding below names that timeout.
	facts, err := probe.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := verify.Verify(context.Background(), d, facts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Category == findings.CatProbeIncomplete && f.Severity == findings.SevWarning && strings.Contains(f.Message, "did not answer within 200ms") {
			return
		}
	}
	t.Fatalf("no timeout finding in %+v", r.Findings)
}

// BenchmarkVerifyFakeHost is probe + verify on the healthy fake host with
// the embedded database already open (as in one `cudb verify` run after
// start-up).
func BenchmarkVerifyFakeHost(b *testing.B) {
	d := embeddedDB(b)
	opts, err := fakeHostOptions(filepath.Join(hostsDir, "healthy"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		facts, err := probe.Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		r, err := verify.Verify(context.Background(), d, facts)
		if err != nil || !r.Summary.Healthy {
			b.Fatalf("%v %+v", err, r)
		}
	}
}

// findingWith returns the findings of category cat, and fails unless
// exactly one has every wanted evidence fragment.
func findingWith(t *testing.T, r *verify.Result, cat string, evidence ...string) findings.Finding {
	t.Helper()
	var got []findings.Finding
	for _, f := range r.Findings {
		if f.Category == cat {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("want one %s finding, got %d: %+v", cat, len(got), r.Findings)
	}
	joined := strings.Join(got[0].Evidence, "\n")
	for _, e := range evidence {
		if !strings.Contains(joined, e) {
			t.Errorf("%s evidence lacks %q:\n%s", cat, e, joined)
		}
	}
	return got[0]
}

// TestVerifyDeepHosts: runtime facts and file facts that say the same
// thing make one finding carrying both; runtime errors are explained.
func TestVerifyDeepHosts(t *testing.T) {
	d := embeddedDB(t)
	t.Run("healthy", func(t *testing.T) {
		r := verifyHost(t, d, "deep-healthy")
		if len(r.Findings) != 0 || r.Facts.Pythons[0].Runtime == nil {
			t.Fatalf("want runtime facts and no findings, got %+v", r.Findings)
		}
	})
	t.Run("cudnn loaded at runtime", func(t *testing.T) {
		r := verifyHost(t, d, "deep-cudnn-runtime")
		f := findingWith(t, r, findings.CatCUDNNMismatch, "cuDNN loaded at runtime: 8.2.4", "cuDNN loaded first: 8.2.4 /opt/cudnn-8.2", "found runtime version (8, 2, 4)")
		if !strings.Contains(f.Message, "loaded at runtime") {
			t.Errorf("message %q does not say loaded at runtime", f.Message)
		}
		findingWith(t, r, findings.CatMultipleCUDALibs, "cuDNN loaded at runtime: 8.2.4")
	})
	t.Run("cuda unavailable, driver too old", func(t *testing.T) {
		r := verifyHost(t, d, "deep-driver-too-old")
		findingWith(t, r, findings.CatDriverTooOld, "driver: 470.182.03", "torch.cuda.is_available(): False (RuntimeError: The NVIDIA driver on your system is too old (found version 11040)")
	})
	t.Run("import torch fails", func(t *testing.T) {
		r := verifyHost(t, d, "deep-import-fails")
		f := findingWith(t, r, findings.CatCUDNNMissing, "import torch: OSError: libcudnn.so.9: cannot open shared object file")
		if f.Severity != findings.SevError || !strings.Contains(f.Fix, "nvidia-cudnn-cu12==9.1.0.70") {
			t.Errorf("want an error naming torch's own cuDNN pin, got %+v", f)
		}
	})
	t.Run("runtime arch list preferred", func(t *testing.T) {
		opts, err := fakeHostOptions(filepath.Join(hostsDir, "deep-healthy"))
		if err != nil {
			t.Fatal(err)
		}
		facts, err := probe.Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		// A source build without sm_90: the database's list has it.
		facts.Pythons[0].Runtime.Torch.ArchList = []string{"sm_80", "sm_86"}
		r, err := verify.Verify(context.Background(), d, facts)
		if err != nil {
			t.Fatal(err)
		}
		f := findingWith(t, r, findings.CatArchUnsupported, "at runtime (torch.cuda.get_arch_list(), preferred over the database's", "sm_80 sm_86")
		if f.Severity != findings.SevError {
			t.Errorf("want an error, got %+v", f)
		}
	})
}

// TestVerifyHangingInterpreter: an interpreter that never answers costs
// one DeepTimeout and gives a note and a probe_incomplete warning.
func TestVerifyHangingInterpreter(t *testing.T) {
	d := embeddedDB(t)
	r := verifyHost(t, d, "deep-hanging-python")
	f := findingWith(t, r, findings.CatProbeIncomplete, "interpreter: timed out")
	if f.Severity != findings.SevWarning || !strings.Contains(f.Message, "/home/u/venv/bin/python did not answer within 100ms") || !strings.Contains(f.Fix, "/home/u/venv/bin/python -c") {
		t.Errorf("got %+v", f)
	}
	if r.Facts.Pythons[0].Runtime != nil {
		t.Errorf("a hung interpreter gave runtime facts")
	}
}

// fakeHostOptions are the probe options for the fake host in dir, its
// recorded commands answered by a probe.ReplayRunner.
func fakeHostOptions(dir string) (probe.Options, error) {
	h, err := probetest.Load(dir)
	if err != nil {
		return probe.Options{}, err
	}
	opts := probe.Options{Root: h.Root, Env: h.Env, Runner: &probe.ReplayRunner{}, Timeout: time.Second,
		Python: h.Python, Deep: h.Deep, DeepTimeout: h.DeepTimeout}
	if h.Cmds != "" {
		if opts.Runner, err = probe.LoadReplay(h.Cmds); err != nil {
			return probe.Options{}, err
		}
	}
	return opts, nil
}

// BenchmarkVerifyRecordedH100 is probe + verify on the real H100 host's
// recorded files (hosts/h100-hidden-preload) before and after the kernel
// files answer for nvidia-smi: "nvidia-smi" replays its recorded outputs
// (on the real host that process took about 0.11 s, which a replay does
// not cost), "kernel-files" runs no command (docs/benchmarks.md).
func BenchmarkVerifyRecordedH100(b *testing.B) {
	d := embeddedDB(b)
	opts, err := fakeHostOptions(filepath.Join(hostsDir, "h100-hidden-preload"))
	if err != nil {
		b.Fatal(err)
	}
	smi, err := probe.LoadReplay("../../../../internal/probe/testdata/h100-smi/cmds")
	if err != nil {
		b.Fatal(err)
	}
	known := func(name string) bool { _, err := nvidia.LookupGPU(context.Background(), d, name); return err == nil }
	for _, bc := range []struct {
		name string
		opts probe.Options
	}{
		{"nvidia-smi", func() probe.Options { o := opts; o.Runner = smi; return o }()},
		{"kernel-files", func() probe.Options { o := opts; o.Runner = smi; o.KnownGPU = known; return o }()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				facts, err := probe.Run(context.Background(), bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := verify.Verify(context.Background(), d, facts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
