package query

import (
	"slices"
	"strings"
	"testing"
)

// One compatible and one conflicting pair per framework combination, on
// the embedded data. A conflict must name both sides' pins or versions.
func TestCrossFrameworkPairs(t *testing.T) {
	cases := []struct {
		name     string
		reqs     []string
		ok       bool
		conflict []string // substrings the first conflicts must contain
		// noSuggest: no known-good nearby pair exists (every candidate
		// is unknown), so none may be suggested.
		noSuggest bool
	}{
		{"torch+tf agree", []string{"torch==2.3.1", "tensorflow==2.14.1"}, true, nil, false},
		// torch 2.3.1's cu118 wheel, the one that would suit a CUDA 11
		// tensorflow, pins nvidia-*-cu11 wheels the data lacks: unknown,
		// so not suggested; 2.1.0's cu118 wheel bundles its libraries.
		{"torch+tf cuDNN pins", []string{"torch==2.3.1", "tensorflow==2.16.1"}, false, []string{"nvidia-cudnn-cu12==8.9.2.26", "nvidia-cudnn-cu12==8.9.7.29"}, true},
		{"torch+tf cuDNN pins, bundled neighbour", []string{"torch==2.1.0", "tensorflow==2.16.1"}, false, []string{"nvidia-cudnn-cu12==8.9.2.26", "nvidia-cudnn-cu12==8.9.7.29"}, false},
		{"torch+jax agree", []string{"torch==2.4.0", "jax==0.4.30"}, true, nil, false},
		{"torch+jax cuDNN major", []string{"torch==2.1.0", "jax==0.4.30"}, false, []string{"nvidia-cudnn-cu12==8.9.2.26", "nvidia-cudnn-cu12>=9.0,<10.0"}, false},
		{"tf+jax agree", []string{"tensorflow==2.16.1", "jax==0.4.26"}, true, nil, false},
		{"tf+jax cuDNN", []string{"tensorflow==2.15.0", "jax==0.4.30"}, false, []string{"nvidia-cudnn-cu12==8.9.4.25", "nvidia-cudnn-cu12>=9.0,<10.0"}, false},
		{"tf+jax CUDA major", []string{"tensorflow==2.14.0", "jax==0.4.30"}, false, []string{"CUDA 11.8", "CUDA 12.3"}, false},
		{"torch+ort agree", []string{"torch==2.6.0", "onnxruntime-gpu==1.21.0"}, true, nil, false},
		// Every pair is judged, not only each against the first: the
		// tensorflow 2.14.1 wheel pins nvidia-cudnn-cu11==8.7.0.84 and
		// jax 0.4.20's cuda11 extra asks for nvidia-cudnn-cu11>=8.8.
		{"torch+tf+jax tf/jax cuDNN pins", []string{"torch==2.3.1", "tensorflow==2.14.1", "jax==0.4.20"}, false,
			[]string{"nvidia-cudnn-cu11==8.7.0.84", "nvidia-cudnn-cu11>=8.8"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := resolveReal(t, ResolveRequest{Requirements: tc.reqs})
			if err != nil {
				t.Fatal(err)
			}
			if tc.ok {
				if len(res.Stacks) == 0 || len(res.Conflicts) != 0 {
					t.Fatalf("want a shared stack, got conflicts %v", res.Conflicts)
				}
				s := res.Stacks[0]
				if len(s.Parts) != len(tc.reqs) {
					t.Errorf("stack has %d parts", len(s.Parts))
				}
				majors := map[string]bool{}
				for _, p := range s.Parts {
					majors[cudaMajor(p)] = true
				}
				if len(majors) != 1 {
					t.Errorf("parts span CUDA majors %v", majors)
				}
				return
			}
			if len(res.Stacks) != 0 || len(res.Conflicts) == 0 {
				t.Fatalf("want a conflict, got %d stacks", len(res.Stacks))
			}
			var all []string
			for _, c := range res.Conflicts {
				all = append(all, c.Message)
				if len(c.Between) != 2 {
					t.Errorf("conflict names %v", c.Between)
				}
			}
			text := strings.Join(all, "\n")
			for _, w := range tc.conflict {
				if !strings.Contains(text, w) {
					t.Errorf("conflicts lack %q:\n%s", w, text)
				}
			}
			if tc.noSuggest {
				if len(res.Suggestions) != 0 {
					t.Errorf("suggested %+v, though every nearby pair is unknown", res.Suggestions)
				}
			} else if len(res.Suggestions) == 0 {
				t.Error("no nearby versions suggested")
			}
		})
	}
}

// TensorFlow >= 2.11 on native Windows is a CPU-only build: that is an
// answer (the CPU build, with a note pointing at WSL2 for the GPU), while
// asking for a CUDA on native Windows is still no match, naming WSL2.
func TestWindowsTensorFlowPointsToWSL2(t *testing.T) {
	res, err := resolveReal(t, ResolveRequest{Requirements: []string{"tensorflow==2.12.0"}, Platform: "windows"})
	if err != nil {
		t.Fatalf("tensorflow 2.12.0 on windows must answer its CPU-only build: %v", err)
	}
	s := res.Stacks[0]
	note := strings.Join(s.Notes, "\n")
	if s.Variant != "cpu" || !slices.Contains(s.Platforms, "windows") || !strings.Contains(note, "CPU only") ||
		!strings.Contains(note, "WSL2") || !strings.Contains(note, "2.10.0") || !strings.Contains(note, "pip.md") {
		t.Fatalf("stack %s %v notes %q", s.Variant, s.Platforms, note)
	}
	_, err = resolveReal(t, ResolveRequest{Requirements: []string{"tensorflow==2.12.0"}, Platform: "windows", CUDA: "11.8"})
	if err == nil || !strings.Contains(err.Error(), "WSL2") || !strings.Contains(err.Error(), "2.10.0") {
		t.Fatalf("a CUDA on native windows: err = %v", err)
	}
	res, err = resolveReal(t, ResolveRequest{Requirements: []string{"tensorflow==2.10.0"}, Platform: "windows"})
	if err != nil || len(res.Stacks) == 0 {
		t.Fatalf("2.10.0 on windows: %v", err)
	}
}
