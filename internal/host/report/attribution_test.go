package report

import (
	"strings"
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
		// kzhang2/aoneus#2 lists "torch 2.9.1+cu128"; shorthand forms of the same
		{"shorthand cu tag", "torch 2.9.1 cu128 on an RTX 5060\n", frameworks.Torch, "2.9.1+cu128"},
		{"cu tag first", "cu121 torch 2.1.2\n", frameworks.Torch, "2.1.2+cu121"},
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

// TestTemplateCUDA: TensorFlow's issue template states CUDA and cuDNN on
// the line after "### CUDA/cuDNN version" (tensorflow/tensorflow#64536).
func TestTemplateCUDA(t *testing.T) {
	f, _, err := Parse([]byte("### CUDA/cuDNN version\n\n12.3\n"))
	if err != nil || len(f.Toolkits) != 1 || f.Toolkits[0].Version != "12.3" {
		t.Fatalf("%v %+v", err, f)
	}
	f, _, err = Parse([]byte("### CUDA/cuDNN version\n\n11.2/8.1\n"))
	if err != nil || len(f.Toolkits) != 1 || f.Toolkits[0].Version != "11.2" || len(f.CUDNN) != 1 || f.CUDNN[0].Major != 8 {
		t.Fatalf("%v %+v", err, f)
	}
}

// TestRepeatedLogLineIsOneError: a message a log repeats with new
// timestamps is one error line (billwuhao/ComfyUI_StepAudioTTS#22 prints
// the Memcpy warning once per run), so a long log of a working host stays
// within the error-line bound.
func TestRepeatedLogLineIsOneError(t *testing.T) {
	text := "2025-03-29 01:50:38.8222061 [W:onnxruntime:, transformer_memcpy.cc:83 onnxruntime::MemcpyTransformer::ApplyImpl] 10 Memcpy nodes are added to the graph main_graph for CUDAExecutionProvider. It might have negative impact on performance (including unable to run CUDA graph). Set session_options.log_severity_level=1 to see the detail logs before this message.\n" +
		"2025-03-29 01:50:46.6492483 [W:onnxruntime:, transformer_memcpy.cc:83 onnxruntime::MemcpyTransformer::ApplyImpl] 10 Memcpy nodes are added to the graph main_graph for CUDAExecutionProvider. It might have negative impact on performance (including unable to run CUDA graph). Set session_options.log_severity_level=1 to see the detail logs before this message.\n"
	f, _, err := Parse([]byte(strings.Repeat(text, 40)))
	if err != nil || len(f.Errors) != 1 {
		t.Fatalf("%v: %d error lines", err, len(f.Errors))
	}
}
