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

	"github.com/cudb/cudb/cmd/cudb/internal/probe"
	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/report"
	"github.com/google/go-cmp/cmp"
)

var updateGoldens = flag.Bool("update", false, "rewrite the verify golden files")

const hostsDir = "../probe/testdata/hosts"

func embeddedDB(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.OpenImage(context.Background(), data.DB, "embedded")
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

func toGolden(r *query.Report) goldenReport {
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

func verifyHost(t testing.TB, d *db.DB, name string) *query.Report {
	t.Helper()
	opts, err := probe.LoadFakeHost(filepath.Join(hostsDir, name))
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
	r, err := query.Verify(context.Background(), d, facts)
	if err != nil {
		t.Fatal(err)
	}
	return r
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
	for _, pat := range []string{"../../../../query/report/testdata/*.txt", "../../../../query/report/testdata/probe.json"} {
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
			r, err := query.Verify(context.Background(), d, facts)
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
	opts, err := probe.LoadFakeHost(filepath.Join(hostsDir, "hanging-smi"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Timeout = 200 * time.Millisecond
	start := time.Now()
	facts, err := probe.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := query.Verify(context.Background(), d, facts)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("probe + verify took %s with a 200ms command timeout", el)
	}
	for _, f := range r.Findings {
		if f.Category == query.CatProbeIncomplete && f.Severity == query.SevWarning && strings.Contains(f.Message, "did not answer within 200ms") {
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
	opts, err := probe.LoadFakeHost(filepath.Join(hostsDir, "healthy"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		facts, err := probe.Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		r, err := query.Verify(context.Background(), d, facts)
		if err != nil || !r.Summary.Healthy {
			b.Fatalf("%v %+v", err, r)
		}
	}
}
