package usecase_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query/querytest"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
)

func report(t *testing.T, name string) usecase.ReportText {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "host", "report", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return usecase.ReportText{Name: name, Text: b}
}

// One report's JSON is the report itself; several are {reports, summary}
// with the summary their total, and each names its file: the shape every
// door (CLI --json, HTTP, MCP) prints.
func TestVerifyReports(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	one, err := usecase.Verify(ctx, d, usecase.VerifyOptions{Reports: []usecase.ReportText{report(t, "collect_env_new.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	var single map[string]any
	b, _ := json.Marshal(one)
	if err := json.Unmarshal(b, &single); err != nil {
		t.Fatal(err)
	}
	if _, ok := single["findings"]; !ok || single["reports"] != nil {
		t.Errorf("one report's JSON is not the report: %s", b)
	}
	if one.Reports[0].Read.Input != "collect_env_new.txt" {
		t.Errorf("read input %q, want the report's name", one.Reports[0].Read.Input)
	}
	two, err := usecase.Verify(ctx, d, usecase.VerifyOptions{Reports: []usecase.ReportText{report(t, "collect_env_new.txt"), report(t, "pip_freeze.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	var multi struct {
		Reports []struct {
			File    string          `json:"file"`
			Summary usecase.Summary `json:"summary"`
		} `json:"reports"`
		Summary usecase.Summary `json:"summary"`
	}
	b, _ = json.Marshal(two)
	if err := json.Unmarshal(b, &multi); err != nil {
		t.Fatal(err)
	}
	if len(multi.Reports) != 2 || multi.Reports[0].File != "collect_env_new.txt" || multi.Reports[1].File != "pip_freeze.txt" {
		t.Fatalf("reports %+v", multi.Reports)
	}
	sum := multi.Reports[0].Summary.Errors + multi.Reports[1].Summary.Errors
	if multi.Summary.Errors != sum || multi.Summary.Healthy != (sum == 0) || two.Healthy() != (sum == 0) {
		t.Errorf("summary %+v is not the total of %+v", multi.Summary, multi.Reports)
	}
	// Prometheus tells the reports apart by a label.
	if p := present.Prometheus(two); !strings.Contains(p, `cudb_verify_healthy{report="pip_freeze.txt"}`) {
		t.Errorf("prometheus output has no per-report label:\n%s", p)
	}
	// Nothing recognisable is a usage error naming the report.
	_, err = usecase.Verify(ctx, d, usecase.VerifyOptions{Reports: []usecase.ReportText{{Name: "empty.txt", Text: []byte("hello\n")}}})
	if errs.CodeOf(err) != errs.CodeUsage || !strings.HasPrefix(err.Error(), "empty.txt: ") {
		t.Errorf("unrecognisable report: %v", err)
	}
}

func TestResolveLimit(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	res, err := usecase.Resolve(ctx, d, usecase.ResolveOptions{ResolveRequest: usecase.ResolveRequest{Requirements: []string{"torch==2.1.0"}}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) != 2 {
		t.Errorf("%d stacks with limit 2", len(res.Stacks))
	}
	if _, err := usecase.Resolve(ctx, d, usecase.ResolveOptions{ResolveRequest: usecase.ResolveRequest{Requirements: []string{"torch"}}, Limit: -1}); errs.CodeOf(err) != errs.CodeUsage {
		t.Errorf("limit -1: %v", err)
	}
	if err := usecase.ResolveOutcome(res); err != nil {
		t.Errorf("a resolution without conflicts has outcome %v", err)
	}
}

func TestMatrixRefusesFiltersElsewhere(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	for _, o := range []usecase.MatrixOptions{
		{Table: "nope"},
		{Table: "cuda", GPU: usecase.GPUFilter{Arch: "Ampere"}},
		{Table: "cuda", Channel: "pip"},
		{Table: "torch", Channel: "apt"},
	} {
		if _, err := usecase.Matrix(ctx, d, o); errs.CodeOf(err) != errs.CodeUsage {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
	res, err := usecase.Matrix(ctx, d, usecase.MatrixOptions{Table: "gpu", GPU: usecase.GPUFilter{Arch: "Ampere"}})
	if err != nil {
		t.Fatal(err)
	}
	rows, ok := res.Rows.([]usecase.GPURow)
	if !ok || len(rows) == 0 {
		t.Fatalf("gpu rows %T %v", res.Rows, res.Rows)
	}
	for _, r := range rows {
		if r.Architecture != "Ampere" {
			t.Errorf("--arch Ampere kept %s (%s)", r.Name, r.Architecture)
		}
	}
}

// Prometheus writes a line for every framework the environment installs,
// ONNX Runtime included, without a line of its own for it.
func TestPrometheusFrameworks(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	res, err := usecase.Verify(ctx, d, usecase.VerifyOptions{Reports: []usecase.ReportText{{Name: "freeze.txt",
		Text: []byte("torch==2.4.0\nonnxruntime-gpu==1.20.0\nnumpy==1.26.4\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	p := present.Prometheus(res)
	for _, want := range []string{`name="torch",version="2.4.0"`, `name="onnxruntime-gpu",version="1.20.0"`} {
		if !strings.Contains(p, want) {
			t.Errorf("no framework line with %s:\n%s", want, p)
		}
	}
	if strings.Contains(p, `name="numpy"`) {
		t.Errorf("numpy is not a framework:\n%s", p)
	}
}
