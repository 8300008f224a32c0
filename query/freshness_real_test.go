package query

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/querytest"
)

// CUDA 13.4 is in NVIDIA's tables without a published minimum driver: it
// is still a release (matrix cuda, resolve cuda==13.4), its own floor
// blank (unknown), the 13.x minor-compatibility floor still stated.
func TestMatrixCUDAKeepsReleasesWithoutFloor(t *testing.T) {
	rows, err := nvidia.MatrixCUDA(context.Background(), querytest.Embedded(t))
	if err != nil {
		t.Fatal(err)
	}
	var got *nvidia.CUDARow
	for i := range rows {
		if rows[i].CUDA == "13.4.1" {
			got = &rows[i]
		}
		if i > 0 && rows[i-1].CUDA == rows[i].CUDA {
			t.Fatalf("CUDA %s listed twice", rows[i].CUDA)
		}
	}
	if got == nil {
		t.Fatalf("matrix cuda lacks 13.4.1 (newest rows: %+v)", rows[:3])
	}
	if got.LinuxMinDriver != "" || got.MinorCompatLinuxMinDriver != "580" || got.Label != "CUDA 13.4 GA" {
		t.Errorf("13.4.1 row = %+v", *got)
	}
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"cuda==13.4"}})
	if err != nil || len(res.Components) == 0 {
		t.Fatalf("resolve cuda==13.4: %v", err)
	}
}

// Variants that shipped from the release branches but never appeared on
// the getting-started page are builds: torch 1.10.0 cu113 and 1.11.0 cu115
// (pytorch/builder release/1.10 and release/1.11 build them).
func TestResolveReleaseBranchVariants(t *testing.T) {
	for _, tc := range []struct{ torch, cuda, variant, cudnn string }{
		{"torch==1.10.0", "11.3", "cu113", "8.2.0.53"},
		{"torch==1.11.0", "11.5", "cu115", "8.3.2.44"},
	} {
		res, err := resolveReal(t, ResolveRequest{Requirements: []string{tc.torch}, CUDA: tc.cuda})
		if err != nil {
			t.Errorf("%s --cuda %s: %v", tc.torch, tc.cuda, err)
			continue
		}
		s := res.Stacks[0]
		if s.Variant != tc.variant || s.CUDNN != tc.cudnn || !slices.Contains(s.Platforms, "linux") {
			t.Errorf("%s --cuda %s: variant %s cudnn %s platforms %v", tc.torch, tc.cuda, s.Variant, s.CUDNN, s.Platforms)
		}
	}
}

// matrix cudnn: every row states something, and list fields hold versions
// only (no "SM 3.5 and later", no "7.x", no "10.1 Update 2").
func TestMatrixCUDNNRowsAreFacts(t *testing.T) {
	rows, err := nvidia.MatrixCUDNN(context.Background(), querytest.Embedded(t))
	if err != nil {
		t.Fatal(err)
	}
	dotted := regexp.MustCompile(`^\d+(\.\d+)*$`)
	var v801 bool
	for _, r := range rows {
		if len(r.CUDAVersions) == 0 && r.CUDAMin == "" && r.LinuxMinDriver == "" && r.WindowsMinDriver == "" &&
			len(r.ComputeCapabilities) == 0 && r.ComputeCapabilityMin == "" {
			t.Errorf("all-blank row: cuDNN %s CUDA %s", r.CUDNN, r.CUDAMajor)
		}
		for _, x := range append(append([]string{}, r.CUDAVersions...), r.ComputeCapabilities...) {
			if !dotted.MatchString(x) {
				t.Errorf("cuDNN %s CUDA %s: list entry %q is not a version", r.CUDNN, r.CUDAMajor, x)
			}
		}
		v801 = v801 || (strings.HasPrefix(r.CUDNN, "8.0.") && slices.Contains(r.CUDAVersions, "10.1"))
	}
	if !v801 {
		t.Error("cuDNN 8.0.x for CUDA 10.1 (Update 2) is missing")
	}
}

// A known release whose facts are pending (torch 2.15.0, seen on PyPI's
// release list) is in matrix torch marked pending, and resolve answers
// "unknown" for it: neither a stack nor "no such release".
func TestPendingReleaseIsUnknown(t *testing.T) {
	rows, err := MatrixTorch(context.Background(), querytest.Embedded(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0].Torch != "2.15.0" || rows[0].Status != "facts pending" || rows[0].CUDA != "" {
		t.Fatalf("first matrix torch row = %+v", rows[0])
	}
	_, err = resolveReal(t, ResolveRequest{Requirements: []string{"torch==2.15.0"}})
	var qe *errs.Error
	if !errors.As(err, &qe) || !strings.HasPrefix(qe.Message, "unknown:") || qe.Detail.(map[string]any)["status"] != "facts_pending" {
		t.Fatalf("resolve torch==2.15.0: %v", err)
	}
}

// Every framework's matrix lists its known releases whose facts are
// pending (ORT 1.29–1.31 and jax 0.11.1/0.11.2 are leads), each answered
// "unknown" by resolve with a hint naming a matrix that exists; db info
// shows such a release as the newest of its line, with the newest that
// has facts beside it.
func TestPendingReleasesInEveryMatrix(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	or, err := ONNXRuntimeMatrix(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	jr, err := JAXMatrix(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	pending := map[string]bool{}
	for _, r := range or {
		if r.Status != "" {
			pending["onnxruntime-gpu=="+r.ONNXRuntime] = r.Status == "facts pending" && r.ReportedBy != "" && r.CUDA == ""
		}
	}
	for _, r := range jr {
		if r.Status != "" {
			pending["jax=="+r.JAX] = r.Status == "facts pending" && r.ReportedBy != "" && r.CUDA == ""
		}
	}
	for _, want := range []string{"onnxruntime-gpu==1.29.0", "onnxruntime-gpu==1.30.0", "onnxruntime-gpu==1.31.0", "jax==0.11.1", "jax==0.11.2"} {
		ok, listed := pending[want]
		if !listed {
			if _, err := resolveReal(t, ResolveRequest{Requirements: []string{want}}); err == nil {
				continue // a fact source describes it now
			}
			t.Errorf("%s: not in its matrix (pending rows: %v)", want, pending)
			continue
		}
		if !ok {
			t.Errorf("%s: pending row without its status, evidence, or with facts", want)
		}
		_, err := resolveReal(t, ResolveRequest{Requirements: []string{want}})
		var qe *errs.Error
		if !errors.As(err, &qe) || !strings.HasPrefix(qe.Message, "unknown:") {
			t.Errorf("resolve %s: %v, want unknown", want, err)
		} else if strings.HasPrefix(want, "onnxruntime") && !strings.Contains(qe.Hint, "cudb matrix onnxruntime ") {
			t.Errorf("resolve %s: hint %q names no matrix table", want, qe.Hint)
		}
	}
	newest, err := NewestReleases(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range newest {
		if !n.FactsPending {
			continue
		}
		if n.WithFacts == "" || version.DottedKey(n.WithFacts) >= version.DottedKey(n.Version) {
			t.Errorf("db info %s: %s pending, newest with facts %q", n.Line, n.Version, n.WithFacts)
		}
	}
	by := map[string]Newest{}
	for _, n := range newest {
		by[n.Line] = n
	}
	rows, err := MatrixTorch(ctx, d, "pip")
	if err != nil || len(rows) == 0 {
		t.Fatal(err)
	}
	if tn := by["torch"]; tn.Version != rows[0].Torch || tn.FactsPending != (rows[0].Status != "") {
		t.Errorf("db info torch = %+v; matrix torch's newest row is %s %q", tn, rows[0].Torch, rows[0].Status)
	}
}

// cuDNN releases known without a support-matrix row are answered with
// what is known of them: the manifest's build and CUDA majors (9.27.0), or
// unknown for a lead (9.28.0) — never "no cuDNN release matches".
func TestCUDNNReleasesWithoutSupportRow(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	known, err := nvidia.CUDNNReleases(ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	support, err := nvidia.MatrixCUDNN(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	rowOf := map[string]bool{}
	for _, r := range support {
		rowOf[r.CUDNN] = true
	}
	by := map[string]nvidia.CUDNNRelease{}
	for _, k := range known {
		by[k.CUDNN] = k
		if rowOf[k.CUDNN] {
			t.Errorf("cuDNN %s has a support row and is listed as without one", k.CUDNN)
		}
		if k.Status == nvidia.SupportNotRead && len(k.CUDAMajors) == 0 && k.Build == "" {
			t.Errorf("cuDNN %s: %q without a fact", k.CUDNN, k.Status)
		}
	}
	if k, ok := by["9.27.0"]; ok && (k.Status != nvidia.SupportNotRead || k.Build != "9.27.0.42" || strings.Join(k.CUDAMajors, ",") != "12,13") {
		t.Errorf("cuDNN 9.27.0 = %+v", k)
	}
	// A release only a wheel's or build's exact cuDNN names (torch 2.10/
	// 2.11 stacks state 9.17.1.4) is a release with that build.
	if k, ok := by["9.17.1"]; !rowOf["9.17.1"] && (!ok || k.Build != "9.17.1.4" || k.Status != nvidia.SupportNotRead || !strings.Contains(k.Note, "torch")) {
		t.Errorf("cuDNN 9.17.1 = %+v, %v; want the build torch stacks state", k, ok)
	}
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"cudnn==9.27.0"}})
	if rowOf["9.27.0"] {
		return // a support row describes it now
	}
	if err != nil || len(res.Components) != 1 {
		t.Fatalf("resolve cudnn==9.27.0: %+v, %v", res, err)
	}
	if f, ok := res.Components[0].Facts.([]nvidia.CUDNNRelease); !ok || len(f) != 1 || f[0].CUDNN != "9.27.0" {
		t.Errorf("resolve cudnn==9.27.0 facts = %#v", res.Components[0].Facts)
	}
	if k, ok := by["9.28.0"]; ok && k.Status == pendingStatus {
		_, err := resolveReal(t, ResolveRequest{Requirements: []string{"cudnn==9.28.0"}})
		var qe *errs.Error
		if !errors.As(err, &qe) || !strings.HasPrefix(qe.Message, "unknown: cudnn 9.28.0") || !strings.Contains(qe.Hint, "cudb resolve 'cudnn>=") {
			t.Errorf("resolve cudnn==9.28.0: %v", err)
		}
	} else {
		t.Errorf("cuDNN 9.28.0 (a lead) = %+v, %v", k, ok)
	}
}

// A range that also matches releases whose facts are pending answers from
// the others and says so on its best stack (torch>=2.14 and 2.15.0).
func TestRangeNamesPendingReleases(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"torch>=2.14"}})
	if err != nil || len(res.Stacks) == 0 {
		t.Fatalf("resolve torch>=2.14: %v", err)
	}
	rows, _ := MatrixTorch(context.Background(), querytest.Embedded(t), "pip")
	if len(rows) == 0 || rows[0].Status == "" {
		t.Skip("no pending torch release in the data")
	}
	want := "torch " + rows[0].Torch + " also matches but is a known release whose facts are pending"
	if !slices.ContainsFunc(res.Stacks[0].Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("best stack notes %q lack %q", res.Stacks[0].Notes, want)
	}
	if res.Stacks[0].Packages["torch"] == rows[0].Torch {
		t.Errorf("a pending release was answered: %+v", res.Stacks[0])
	}
}

// A malformed requirement's error says what is wrong once, without the
// parser's chain of wrappers ("version: requirement …: version: …").
func TestInvalidRequirementSaysItOnce(t *testing.T) {
	for req, want := range map[string]string{
		"torch==":    `invalid requirement "torch==": "==": operator == needs a version`,
		"torch>=abc": `invalid requirement "torch>=abc": ">=abc": "abc" is not a PEP 440 version`,
	} {
		_, err := resolveReal(t, ResolveRequest{Requirements: []string{req}})
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", req, err, want)
		}
	}
}
