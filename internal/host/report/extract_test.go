package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
)

// TestExtractProse: facts named in prose and issue templates are read,
// each tagged "text" with its line.
func TestExtractProse(t *testing.T) {
	// wording of tensorflow/tensorflow#53362's template
	text := "- TensorFlow version: 2.7.0\n- Python version: 3.9.7\n- Installed using virtualenv? pip? conda?: pip3\n- CUDA/cuDNN version: 11.5\n- GPU model and memory: Gtx 1060\n"
	f, formats, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(formats) != 1 || formats[0] != FormatText {
		t.Errorf("formats %v", formats)
	}
	if len(f.GPUs) != 1 || f.GPUs[0].Name != "GTX 1060" || f.GPUs[0].Source != FormatText {
		t.Errorf("gpus %+v", f.GPUs)
	}
	if len(f.Toolkits) != 1 || f.Toolkits[0].Version != "11.5" {
		t.Errorf("toolkits %+v", f.Toolkits)
	}
	py := f.Pythons[0]
	if py.Version != "3.9" || py.TensorFlow == nil || py.TensorFlow.Version != "2.7.0" {
		t.Errorf("python %+v", py)
	}
	want := map[string]int{"tensorflow": 1, "python": 2, "cuda": 4, "gpu": 5}
	for _, r := range f.Read {
		if l, ok := want[r.Fact]; ok {
			if r.Line != l || r.Sure != host.SureText || r.Format != FormatText {
				t.Errorf("reading %+v, want line %d", r, l)
			}
			delete(want, r.Fact)
		}
	}
	if len(want) > 0 {
		t.Errorf("no reading for %v in %+v", want, f.Read)
	}
}

// TestExtractNeverOverrides: a structured block wins over prose that
// names other versions, and its facts are tagged exact.
func TestExtractNeverOverrides(t *testing.T) {
	text := "I have driver 470.82.01 and CUDA 11.2 and cuDNN 8.0.4 installed\n" +
		"| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |\n" +
		"torch==2.1.0+cu121\n" +
		"I also tried torch 1.13.1\n"
	f, _, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if f.Driver.Version != "535.129.03" || f.Driver.Source != FormatSMIBanner {
		t.Errorf("driver %+v", f.Driver)
	}
	if f.Pythons[0].Torch.Version != "2.1.0+cu121" {
		t.Errorf("torch %+v", f.Pythons[0].Torch)
	}
	for _, r := range f.Read {
		if r.Fact == "driver" && r.Sure != host.SureExact {
			t.Errorf("driver reading %+v", r)
		}
	}
	// the prose CUDA and cuDNN fill what the banner and freeze left empty
	if len(f.Toolkits) != 1 || f.Toolkits[0].Version != "11.2" || f.Toolkits[0].Source != FormatText {
		t.Errorf("toolkits %+v", f.Toolkits)
	}
}

// TestExtractMissingIsNotPresent: a soname in an error line is what is
// missing, not a copy that is there.
func TestExtractMissingIsNotPresent(t *testing.T) {
	f, _, err := Parse([]byte("ImportError: /usr/lib/x86_64-linux-gnu/libcudnn.so.8: cannot open shared object file: No such file or directory\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.CUDNN) != 0 || len(f.Errors) != 1 {
		t.Errorf("cudnn %+v errors %v", f.CUDNN, f.Errors)
	}
	f, _, err = Parse([]byte("$ find / -name 'libcudnn.so*'\n/usr/lib/x86_64-linux-gnu/libcudnn.so.9.2.1\n"))
	if err != nil || len(f.CUDNN) != 1 || f.CUDNN[0].Version != "9.2.1" {
		t.Errorf("%v %+v", err, f)
	}
}

// TestNothingRecognisable: only text with nothing recognisable is refused,
// and the error says what was looked for.
func TestNothingRecognisable(t *testing.T) {
	_, _, err := Parse([]byte("hello, this is not a report\njust some words\n"))
	if err == nil || !strings.Contains(err.Error(), "looked for collect_env") {
		t.Errorf("err = %v", err)
	}
	if _, _, err := Parse([]byte("My RTX 3090 is slow\n")); err != nil {
		t.Errorf("a GPU name alone is something: %v", err)
	}
}

const fuzzBanner = "| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |\n"

// FuzzExtract: whatever follows a banner, the reader does not panic, the
// banner's driver stands (prose never overrides a format), and every
// free-text reading points at a line of the input.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"driver 470.82.01, CUDA 11.2, cuDNN 8.1.0, RTX 3090, python 3.10, torch 2.1.0+cu121",
		"TensorFlow version: tf 2.9\nGPU model and memory: GRID T4-8Q", "jax:    0.4.33\njaxlib: 0.4.33",
		"onnxruntime-gpu==1.22.0\nLD_LIBRARY_PATH=/usr/local/cuda/lib64:/opt/x", "FROM nvidia/cuda:12.1.0-cudnn8-runtime-ubuntu22.04",
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024",
		"/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "Windows 11 WSL2 Ubuntu 22.04"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		in := append([]byte(fuzzBanner), b...)
		facts, _, err := Parse(in)
		if err != nil {
			return
		}
		lower := bytes.ToLower(b)
		if !bytes.Contains(lower, []byte("nvidia-smi")) && !bytes.Contains(lower, []byte("driver version")) &&
			!bytes.Contains(lower, []byte("driver_version")) && !bytes.Contains(lower, []byte("nvidia driver version")) {
			if facts.Driver == nil || facts.Driver.Version != "535.129.03" {
				t.Fatalf("driver %+v: the banner's driver was overridden", facts.Driver)
			}
		}
		n := len(lines(in))
		for _, r := range facts.Read {
			if r.Sure == host.SureText && (r.Line < 1 || r.Line > n || r.Format != FormatText) {
				t.Fatalf("reading %+v outside the input's %d lines", r, n)
			}
		}
	})
}
