package version

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRequirement(t *testing.T) {
	tests := []struct {
		in, name string
		extras   []string
		specs    string
		specText string
	}{
		{"torch==2.1", "torch", nil, "==2.1", "==2.1"},
		{"torch", "torch", nil, "", ""},
		{"torch >= 2, <2.3", "torch", nil, ">=2,<2.3", ">= 2, <2.3"},
		{"tensorflow[and-cuda]==2.16.1", "tensorflow", []string{"and-cuda"}, "==2.16.1", "==2.16.1"},
		{"jax[cuda12]==0.4.30", "jax", []string{"cuda12"}, "==0.4.30", "==0.4.30"},
		{"cuda==12.1", "cuda", nil, "==12.1", "==12.1"},
		{"Jax_Lib.Foo==0.4", "jax-lib-foo", nil, "==0.4", "==0.4"},
		{"nvidia-cudnn-cu12 (>=8.9,<9)", "nvidia-cudnn-cu12", nil, ">=8.9,<9", ">=8.9,<9"},
		{"jax[ CUDA12_pip , tpu ]>=0.4", "jax", []string{"cuda12-pip", "tpu"}, ">=0.4", ">=0.4"},
		{"torch[]", "torch", nil, "", ""},
		{"  torch==2.1.0+cu121  ", "torch", nil, "==2.1.0+cu121", "==2.1.0+cu121"},
		{"torch~=2.1", "torch", nil, "~=2.1", "~=2.1"},
	}
	for _, tt := range tests {
		r, err := ParseRequirement(tt.in)
		if err != nil {
			t.Errorf("ParseRequirement(%q): %v", tt.in, err)
			continue
		}
		if r.Name != tt.name || !reflect.DeepEqual(r.Extras, tt.extras) || r.Specs.String() != tt.specs {
			t.Errorf("ParseRequirement(%q) = name %q extras %q specs %q, want %q %q %q",
				tt.in, r.Name, r.Extras, r.Specs, tt.name, tt.extras, tt.specs)
		}
		if got := r.SpecText(); got != tt.specText {
			t.Errorf("ParseRequirement(%q).SpecText() = %q, want %q", tt.in, got, tt.specText)
		}
		if r.Raw != strings.TrimSpace(tt.in) {
			t.Errorf("ParseRequirement(%q).Raw = %q", tt.in, r.Raw)
		}
	}
}

func TestParseRequirementErrors(t *testing.T) {
	for _, in := range []string{
		"", " ", "torch===", "torch===2.1", "torch>=abc", "==2.1", "torch=>2", "torch==",
		"torch[cuda==2.1", "torch]==2.1", "torch[cuda]]==2", "torch(>=2", "torch>=2)",
		"torch[a,,b]", "torch[-a]", "torch 2.1", "torch; python_version<'3.8'",
		"torch @ https://example.invalid/t.whl", "-torch==2", "torch.==2", "torch~=2",
		"torch==2.1,", "torch (==2.1) extra", "torch [cuda] [x]",
	} {
		if r, err := ParseRequirement(in); err == nil {
			t.Errorf("ParseRequirement(%q) = %+v, want error", in, r)
		}
	}
}

func TestRequirementString(t *testing.T) {
	r, err := ParseRequirement("JAX[CUDA12] >= 0.4 , <0.5")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), "jax[cuda12]>=0.4,<0.5"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Torch": "torch", "jax_lib": "jax-lib", "a.-_b": "a-b", "nvidia-cudnn-cu12": "nvidia-cudnn-cu12",
	} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}
