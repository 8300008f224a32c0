package query

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudb/cudb/internal/errs"
)

func stackKeys(stacks []Stack) []string {
	var out []string
	for _, s := range stacks {
		out = append(out, packagesKey(s.Packages)+" "+s.Variant+" cudnn="+s.CUDNN)
	}
	return out
}

func packagesKey(p map[string]string) string {
	var parts []string
	for _, k := range []string{"torch", "torchvision", "tensorflow"} {
		if v, ok := p[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

func TestResolveTorchMinor(t *testing.T) {
	d := fixtureDB(t)
	res, err := Resolve(context.Background(), d, ResolveRequest{Requirements: []string{"torch==2.1"}})
	if err != nil {
		t.Fatal(err)
	}
	// ==2.1 is 2.1.0 after zero padding: 2.1.2 is not in; the CPU build is
	// left out unless asked for; the PyPI default comes first.
	want := []string{
		"torch=2.1.0+cu121,torchvision=0.16.0 cu121 cudnn=8.9.2.26",
		"torch=2.1.0+cu118,torchvision=0.16.0 cu118 cudnn=8.7.0.84",
	}
	if diff := cmp.Diff(want, stackKeys(res.Stacks)); diff != "" {
		t.Errorf("stacks (-want +got):\n%s", diff)
	}
	best := res.Stacks[0]
	if best.Install.Command != "pip install torch==2.1.0 torchvision==0.16.0" || !best.Default {
		t.Errorf("best install = %q default=%v", best.Install.Command, best.Default)
	}
	if got := res.Stacks[1].Install.Command; got != "pip install torch==2.1.0+cu118 torchvision==0.16.0 --index-url https://download.pytorch.org/whl/cu118" {
		t.Errorf("cu118 install = %q", got)
	}
	if diff := cmp.Diff([]string{"linux", "windows"}, best.Platforms); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"nvidia-cudnn-cu12==8.9.2.26; platform_system == \"Linux\""}, best.Pins); diff != "" {
		t.Error(diff)
	}
	if best.Python != (Range{"3.8", "3.11"}) || best.CUDA != "12.1" {
		t.Errorf("python %v cuda %s", best.Python, best.CUDA)
	}
	if diff := cmp.Diff([]string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0", "9.0+PTX"}, best.ComputeCapabilities); diff != "" {
		t.Error(diff)
	}
	if len(best.Citations) != 0 {
		t.Error("citations without --explain")
	}
}

func TestResolveWildcardCUDAAndExplain(t *testing.T) {
	d := fixtureDB(t)
	res, err := Resolve(context.Background(), d, ResolveRequest{Requirements: []string{"torch==2.1.*"}, CUDA: "11.8", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"torch=2.1.2+cu118,torchvision=0.16.2 cu118 cudnn=8.7.0.84",
		"torch=2.1.0+cu118,torchvision=0.16.0 cu118 cudnn=8.7.0.84",
	}
	if diff := cmp.Diff(want, stackKeys(res.Stacks)); diff != "" {
		t.Errorf("stacks (-want +got):\n%s", diff)
	}
	found := false
	for _, c := range res.Stacks[0].Citations {
		if c.Fact == "cudnn" && c.Source == "fixture" && c.Ref == "cudnn row" {
			found = true
		}
	}
	if !found {
		t.Errorf("no cudnn citation in %+v", res.Stacks[0].Citations)
	}
}

func TestResolveFilters(t *testing.T) {
	d := fixtureDB(t)
	cases := []struct {
		name string
		req  ResolveRequest
		want []string
	}{
		{"variant cpu", ResolveRequest{Requirements: []string{"torch==2.1.0"}, Variant: "cpu"}, []string{"torch=2.1.0+cpu,torchvision=0.16.0 cpu cudnn="}},
		{"python 3.12", ResolveRequest{Requirements: []string{"torch>=2,<2.4"}, Python: "3.12"}, []string{"torch=2.3.1+cu121,torchvision=0.18.1 cu121 cudnn=8.9.2.26"}},
		{"cudnn component", ResolveRequest{Requirements: []string{"torch", "cudnn==9.*"}}, []string{"torch=2.4.0+cu124,torchvision=0.19.0 cu124 cudnn=9.1.0.70"}},
		{"companion", ResolveRequest{Requirements: []string{"torchvision==0.16.2"}}, []string{
			"torch=2.1.2+cu121,torchvision=0.16.2 cu121 cudnn=8.9.2.26", "torch=2.1.2+cu118,torchvision=0.16.2 cu118 cudnn=8.7.0.84"}},
		{"local label", ResolveRequest{Requirements: []string{"torch==2.1.0+cu118"}}, []string{"torch=2.1.0+cu118,torchvision=0.16.0 cu118 cudnn=8.7.0.84"}},
		{"not equal", ResolveRequest{Requirements: []string{"torch~=2.1.0", "torch!=2.1.2"}, CUDA: "12"}, []string{"torch=2.1.0+cu121,torchvision=0.16.0 cu121 cudnn=8.9.2.26"}},
		{"macos cpu", ResolveRequest{Requirements: []string{"torch==2.1.0"}, Variant: "cpu", Platform: "macos"}, []string{"torch=2.1.0+cpu,torchvision=0.16.0 cpu cudnn="}},
		{"macos cpu only", ResolveRequest{Requirements: []string{"torch==2.1.0"}, Platform: "macos"}, []string{"torch=2.1.0+cpu,torchvision=0.16.0 cpu cudnn="}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Resolve(context.Background(), d, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, stackKeys(res.Stacks)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	d := fixtureDB(t)
	cases := []struct {
		req      ResolveRequest
		code     errs.Code
		contains []string
	}{
		{ResolveRequest{Requirements: []string{"torch==2.1"}, CUDA: "9.9"}, errs.CodeNotFound, []string{"CUDA ==9.9", "cu121", "cu118"}},
		{ResolveRequest{Requirements: []string{"torch==9.1"}}, errs.CodeNotFound, []string{"no torch release matches torch==9.1"}},
		{ResolveRequest{Requirements: []string{"torch==="}}, errs.CodeUsage, []string{"invalid requirement"}},
		{ResolveRequest{Requirements: []string{"torch>=abc"}}, errs.CodeUsage, []string{"invalid requirement"}},
		{ResolveRequest{Requirements: []string{"numpy==1.0"}}, errs.CodeUsage, []string{"unknown component"}},
		{ResolveRequest{}, errs.CodeUsage, []string{"at least one requirement"}},
		{ResolveRequest{Requirements: []string{"torch"}, Platform: "beos"}, errs.CodeUsage, []string{"--platform"}},
		{ResolveRequest{Requirements: []string{"torch"}, Python: "banana"}, errs.CodeUsage, []string{"--python"}},
		{ResolveRequest{Requirements: []string{"torch"}, CUDA: "twelve"}, errs.CodeUsage, []string{"--cuda"}},
		{ResolveRequest{Requirements: []string{"torch==2.1"}, Python: "3.12"}, errs.CodeNotFound, []string{"Python 3.12", "3.8-3.11"}},
		{ResolveRequest{Requirements: []string{"torch==2.1"}, CUDA: "12.1", Platform: "macos"}, errs.CodeNotFound, []string{"platform macos", "linux, windows"}},
	}
	for _, tc := range cases {
		_, err := Resolve(context.Background(), d, tc.req)
		var qe *errs.Error
		if !errors.As(err, &qe) {
			t.Errorf("%+v: want *errs.Error, got %v", tc.req, err)
			continue
		}
		if qe.Code != tc.code {
			t.Errorf("%+v: code %s, want %s (%v)", tc.req, qe.Code, tc.code, err)
		}
		if qe.Hint == "" {
			t.Errorf("%+v: no hint", tc.req)
		}
		for _, s := range tc.contains {
			if !strings.Contains(qe.Message, s) {
				t.Errorf("%+v: %q lacks %q", tc.req, qe.Message, s)
			}
		}
	}
}

func TestResolveTwoFrameworks(t *testing.T) {
	d := fixtureDB(t)
	ctx := context.Background()
	// torch 2.3 pins nvidia-cudnn-cu12==8.9.2.26, tensorflow 2.16 pins
	// 8.9.7.29: pip cannot satisfy both.
	res, err := Resolve(ctx, d, ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.16.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) != 0 || len(res.Conflicts) == 0 {
		t.Fatalf("want a conflict, got %d stacks, %v", len(res.Stacks), res.Conflicts)
	}
	c := res.Conflicts[0]
	if c.Kind != "pin" || c.Package != "nvidia-cudnn-cu12" {
		t.Errorf("conflict = %+v", c)
	}
	if diff := cmp.Diff([]string{"nvidia-cudnn-cu12==8.9.2.26", "nvidia-cudnn-cu12==8.9.7.29"}, c.Specs); diff != "" {
		t.Error(diff)
	}
	// The nearest agreeing versions: tensorflow 2.17.0 pins the same cuDNN.
	var sugg []string
	for _, s := range res.Suggestions {
		sugg = append(sugg, strings.Join(s.Requirements, " "))
	}
	if !slices.Contains(sugg, "torch==2.3.1 tensorflow==2.17.0") {
		t.Errorf("suggestions = %v", sugg)
	}

	// A compatible pair: the same cuDNN pin.
	res, err = Resolve(ctx, d, ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.17.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) != 1 || len(res.Conflicts) != 0 {
		t.Fatalf("stacks %d conflicts %v", len(res.Stacks), res.Conflicts)
	}
	s := res.Stacks[0]
	if s.Packages["tensorflow"] != "2.17.0" || s.Packages["torch"] != "2.3.1+cu121" || len(s.Parts) != 2 || s.Python != (Range{"3.9", "3.12"}) {
		t.Errorf("merged stack = %+v", s)
	}

	// CUDA majors differ: torch cu121 against tensorflow built for 11.8.
	res, err = Resolve(ctx, d, ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.14.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) == 0 || res.Conflicts[0].Kind != "cuda_major" {
		t.Errorf("conflicts = %+v", res.Conflicts)
	}
}

func TestMatrixTorch(t *testing.T) {
	d := fixtureDB(t)
	rows, err := MatrixTorch(context.Background(), d, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 9 {
		t.Fatalf("rows = %d", len(rows))
	}
	first := rows[0]
	want := TorchRow{Torch: "2.4.0", Variant: "cu124", Channel: "pip", CUDA: "12.4", CUDNN: "9.1.0.70", PythonMin: "3.8", PythonMax: "3.12", Torchvision: "0.19.0",
		Platforms: []string{"linux", "windows"}, ComputeCapabilities: []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0", "9.0+PTX"}, Default: true,
		Sources: []SourceRef{{Name: "fixture", URL: "https://example.test/torch"}}}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Error(diff)
	}
	// the conda-only release is listed, in release order, with its channel
	var conda []TorchRow
	for i, r := range rows {
		if r.Channel == "conda" {
			conda = append(conda, r)
			if i != len(rows)-1 {
				t.Errorf("conda 1.10.2 at row %d, want last (oldest release)", i)
			}
		}
	}
	if len(conda) != 1 || conda[0].Torch != "1.10.2" || conda[0].CUDNN != "8.2.0" {
		t.Errorf("conda rows = %+v", conda)
	}
	for ch, n := range map[string]int{"pip": 8, "conda": 1} {
		rows, err := MatrixTorch(context.Background(), d, ch)
		if err != nil || len(rows) != n {
			t.Errorf("channel %s: %d rows, err %v", ch, len(rows), err)
		}
		for _, r := range rows {
			if r.Channel != ch {
				t.Errorf("channel %s: row %+v", ch, r)
			}
		}
	}
	if _, err := MatrixTorch(context.Background(), d, "apt"); err == nil {
		t.Error("unknown channel accepted")
	}
}
