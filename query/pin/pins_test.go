package pin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/querytest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// pinCases are the stacks every format is rendered for.
var pinCases = []struct {
	name string
	req  query.ResolveRequest
}{
	{"conda-era-torch", query.ResolveRequest{Requirements: []string{"torch==1.13.1"}}},
	{"cudatoolkit-era-torch", query.ResolveRequest{Requirements: []string{"torch==1.12.1"}}},
	{"findlinks-torch", query.ResolveRequest{Requirements: []string{"torch==1.10.1"}, CUDA: "11.3"}},
	{"cu11x-torch", query.ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "11.8"}},
	{"cu12x-torch", query.ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1"}},
	{"cu12x-torch-windows", query.ResolveRequest{Requirements: []string{"torch==2.4.0"}, Platform: "windows"}},
	{"tf-system-cudnn", query.ResolveRequest{Requirements: []string{"tensorflow==2.11.0"}}},
	{"tf-and-cuda", query.ResolveRequest{Requirements: []string{"tensorflow==2.18.0"}}},
	{"torch-and-tf-extra-index", query.ResolveRequest{Requirements: []string{"torch==2.1.0", "tensorflow==2.14.0"}}},
	{"torch-and-tf-pypi", query.ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.17.0"}, Python: "3.11"}},
}

// pinOutput is what a golden holds: the content, or the error a format
// gives for that stack.
func pinOutput(res *PinResult, err error) string {
	if err != nil {
		var qe *errs.Error
		if errors.As(err, &qe) {
			return fmt.Sprintf("error (%s): %s\nTry: %s\n", qe.Code, qe.Message, qe.Hint)
		}
		return "error: " + err.Error() + "\n"
	}
	return res.Content
}

func TestPinsGolden(t *testing.T) {
	d := querytest.OpenPins(t)
	ctx := context.Background()
	for _, tc := range pinCases {
		for _, format := range PinFormats {
			for _, devel := range []bool{false, true} {
				if devel && format != "docker" && format != "apt" {
					continue
				}
				name := tc.name + "." + format
				if devel {
					name += "-devel"
				}
				t.Run(name, func(t *testing.T) {
					res, err := Pins(ctx, d, tc.req, format, PinOptions{CudbVersion: "test", Devel: devel})
					got := pinOutput(res, err)
					path := filepath.Join("testdata", "pins", name+".golden")
					if *update {
						if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run go test ./query/pin -run TestPinsGolden -update)", err)
					}
					if diff := cmp.Diff(string(want), got); diff != "" {
						t.Errorf("%s (-want +got):\n%s", path, diff)
					}
				})
			}
		}
	}
}

var (
	pinTokenRE = regexp.MustCompile(`([A-Za-z0-9_.-]+)(\[[^\]]*\])?={1,2}([0-9][0-9A-Za-z.+*]*)`)
	indexRE    = regexp.MustCompile(`(?:--index-url|--extra-index-url|-f|url =|find-links = \[)\s*"?(https://[^"\s\]]+)`)
)

// parsePinned reads a rendered pin set back as a resolve request: the ==
// pins of framework packages (companions without their local label),
// conda's CUDA selector, and the index URLs it names.
func parsePinned(content string) (query.ResolveRequest, []string) {
	var r query.ResolveRequest
	var indexes []string
	known := map[string]bool{"pytorch": true}
	for _, k := range query.Known() {
		known[k] = true
	}
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.Contains(line, "channels:") {
			r.Channel = "conda"
		}
		for _, m := range indexRE.FindAllStringSubmatch(line, -1) {
			indexes = append(indexes, m[1])
		}
		for _, m := range pinTokenRE.FindAllStringSubmatch(line, -1) {
			name, ver := m[1], m[3]
			switch {
			case name == "pytorch-cuda" || name == "cudatoolkit":
				r.CUDA = ver
			case known[name] && name != "python":
				if f := query.FrameworkOf(name); f != name && f != "" {
					ver, _, _ = strings.Cut(ver, "+")
				}
				r.Requirements = append(r.Requirements, name+"=="+ver)
			}
		}
	}
	return r, indexes
}

// TestPinsRoundTrip: every pin set, read back and resolved again, gives
// the stack it was made from, names only indexes the data knows, and
// pins only runtime wheels the data records.
func TestPinsRoundTrip(t *testing.T) {
	d := querytest.OpenPins(t)
	ctx := context.Background()
	for _, tc := range pinCases {
		for _, format := range []string{"requirements", "constraints", "pip", "uv", "conda", "docker"} {
			res, err := Pins(ctx, d, tc.req, format, PinOptions{})
			if err != nil {
				if errs.CodeOf(err) == errs.CodeNotFound { // the goldens hold these
					continue
				}
				t.Errorf("%s %s: %v", tc.name, format, err)
				continue
			}
			back, indexes := parsePinned(res.Content)
			if len(back.Requirements) == 0 {
				t.Errorf("%s %s: no framework pins in\n%s", tc.name, format, res.Content)
				continue
			}
			back.Platform = tc.req.Platform
			again, err := query.Resolve(ctx, d, back)
			if err != nil {
				t.Errorf("%s %s: pins %v do not resolve: %v\n%s", tc.name, format, back.Requirements, err, res.Content)
				continue
			}
			if len(again.Stacks) == 0 {
				t.Errorf("%s %s: pins %v give no stack", tc.name, format, back.Requirements)
				continue
			}
			want, got := res.Stack, again.Stacks[0]
			if diff := cmp.Diff(want.Packages, got.Packages); diff != "" || want.Variant != got.Variant || want.CUDA != got.CUDA {
				t.Errorf("%s %s: round trip changed the stack: variant %s→%s cuda %s→%s packages (-want +got):\n%s",
					tc.name, format, want.Variant, got.Variant, want.CUDA, got.CUDA, diff)
			}
			knownIdx := map[string]bool{}
			parts := res.Stack.Parts
			if len(parts) == 0 {
				parts = []query.Stack{*res.Stack}
			}
			for _, p := range parts {
				for _, b := range p.Builds() {
					knownIdx[b.IndexURL] = true
				}
			}
			for _, u := range indexes {
				if !knownIdx[u] {
					t.Errorf("%s %s: index %s is not one the stack's builds name", tc.name, format, u)
				}
			}
			for _, line := range strings.Split(res.Content, "\n") {
				for _, m := range pinTokenRE.FindAllStringSubmatch(line, -1) {
					if !strings.HasPrefix(m[1], "nvidia-") {
						continue
					}
					found := false
					for _, pin := range res.Stack.Pins {
						if strings.HasPrefix(pin, m[1]+"=="+m[3]) {
							found = true
						}
					}
					if !found {
						t.Errorf("%s %s: %s==%s is not a pin the data records (%v)", tc.name, format, m[1], m[3], res.Stack.Pins)
					}
				}
			}
		}
	}
}

func TestPinsErrors(t *testing.T) {
	d := querytest.OpenPins(t)
	ctx := context.Background()
	cases := []struct {
		req      query.ResolveRequest
		format   string
		code     errs.Code
		contains []string
	}{
		{query.ResolveRequest{Requirements: []string{"torch"}}, "yaml", errs.CodeUsage, []string{"unknown format", "requirements, constraints, pip, uv, conda, apt, docker"}},
		{query.ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.16.1"}}, "requirements", errs.CodeIncompatible, []string{"nvidia-cudnn-cu12==8.9.2.26", "nvidia-cudnn-cu12==8.9.7.29"}},
		{query.ResolveRequest{Requirements: []string{"tensorflow==2.11.0"}, Platform: "windows", CUDA: "11.2"}, "requirements", errs.CodeNotFound, []string{"platform windows", "linux"}},
		{query.ResolveRequest{Requirements: []string{"torch==2.4.0"}}, "conda", errs.CodeNotFound, []string{"not published to the conda channels"}},
		{query.ResolveRequest{Requirements: []string{"tensorflow==2.18.0"}}, "conda", errs.CodeNotFound, []string{"not published to the conda channels"}},
		{query.ResolveRequest{Requirements: []string{"torch==2.1.0"}, Channel: "conda"}, "requirements", errs.CodeUsage, []string{"--format conda"}},
		{query.ResolveRequest{Requirements: []string{"torch==9.9"}}, "pip", errs.CodeNotFound, []string{"no torch release matches"}},
	}
	for _, tc := range cases {
		res, err := Pins(ctx, d, tc.req, tc.format, PinOptions{})
		var qe *errs.Error
		if !errors.As(err, &qe) {
			t.Errorf("%v %s: want *errs.Error, got %v", tc.req.Requirements, tc.format, err)
			continue
		}
		if qe.Code != tc.code || qe.Hint == "" {
			t.Errorf("%v %s: code %s hint %q, want %s", tc.req.Requirements, tc.format, qe.Code, qe.Hint, tc.code)
		}
		for _, s := range tc.contains {
			if !strings.Contains(qe.Message, s) {
				t.Errorf("%v %s: %q lacks %q", tc.req.Requirements, tc.format, qe.Message, s)
			}
		}
		if tc.code == errs.CodeIncompatible && (res == nil || len(res.Conflicts) == 0) {
			t.Errorf("%v: conflicts missing from the result", tc.req.Requirements)
		}
	}
}

func TestSplitExtra(t *testing.T) {
	cases := []struct{ in, rest, extra string }{
		{`extra == "and-cuda"`, "", "and-cuda"},
		{`platform_system == "Linux" and extra == "and-cuda"`, `platform_system == "Linux"`, "and-cuda"},
		{`platform_system == "Linux"`, `platform_system == "Linux"`, ""},
		{"", "", ""},
	}
	for _, c := range cases {
		rest, extra := splitExtra(c.in)
		if rest != c.rest || extra != c.extra {
			t.Errorf("splitExtra(%q) = %q, %q", c.in, rest, extra)
		}
	}
	if _, err := version.ParseRequirement("tensorflow[and-cuda]==2.18.0"); err != nil {
		t.Errorf("rendered extra does not parse: %v", err)
	}
}
