package report

import (
	"testing"

	"github.com/cudb/cudb/internal/frameworks"
)

// TestVersionAttribution: a version is read as installed from a listing,
// a version print or a template's version field, never from an
// instruction; shorthand is normalised. Lines are from public threads.
func TestVersionAttribution(t *testing.T) {
	cases := []struct {
		name, text, pkg, want string
	}{
		// tensorflow/tensorflow#99592: "tf 2.20" in the template
		{"shorthand tf", "### TensorFlow version\n\ntf 2.20\n", frameworks.TensorFlow, "2.20"},
		// tensorflow/tensorflow#60237: GIT_VERSION then VERSION
		{"template git version", "### Tensorflow Version\n\nv2.12.0-rc1-12-g0db597d0d75 2.12.0\n", frameworks.TensorFlow, "2.12.0"},
		// tensorflow/tensorflow#60237: a version print
		{"version print", "Tensor Flow Version: 2.12.0\n", frameworks.TensorFlow, "2.12.0"},
		// jax-ml/jax#18032: a REPL version print
		{"repl jax", ">>> jax.__version__\n'0.4.23'\n", frameworks.JAX, "0.4.23"},
		// tensorflow/tensorflow#64536 (title)
		{"no space", "TF2.16 cant use GPU\n", frameworks.TensorFlow, "2.16"},
		// jax-ml/jax#25718: an install instruction names no installed jax
		{"instruction", "pip install -U \"jax[cuda12]==0.4.38\"\n", frameworks.JAX, ""},
		// tensorflow/docs#2153: "pip install tensorflow=2.10" is advice
		{"instruction tf", "    python3 -m pip install tensorflow==2.10 # Anything above 2.10 is not supported\nTensorFlow version: 2.15\n", frameworks.TensorFlow, "2.15"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, _, err := Parse([]byte(c.text))
			got := ""
			if err == nil && len(f.Pythons) > 0 {
				got = f.Pythons[0].Packages[c.pkg]
			}
			if got != c.want {
				t.Errorf("%s = %q, want %q", c.pkg, got, c.want)
			}
		})
	}
}
