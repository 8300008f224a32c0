package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
)

func seeds(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
}

const fuzzMax = 64 << 10

func FuzzParseDockerfile(f *testing.F) {
	seeds(f, "*/Dockerfile.*")
	seeds(f, "*/*/Dockerfile")
	f.Add("FROM a AS b\nARG X=${Y:-1}\nRUN <<EOF\npip install torch\nEOF\nCOPY --from=b /venv /venv\n")
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > fuzzMax {
			return
		}
		u, err := ParseDockerfile("Dockerfile", s, nil)
		if err == nil && u == nil {
			t.Fatal("nil unit without an error")
		}
	})
}

func FuzzParseCompose(f *testing.F) {
	seeds(f, "peer/docker-compose.*")
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > fuzzMax {
			return
		}
		_, _ = ParseCompose("compose.yml", s)
	})
}

func FuzzParseRequirements(f *testing.F) {
	f.Add("--index-url https://download.pytorch.org/whl/cu121\ntorch==2.1.0 \\\n  --hash=sha256:00\nnumpy; python_version<'3.9'\n-r other.txt\n")
	seeds(f, "real/keras/requirements*.txt")
	f.Add("-f ./wheels\n-e .[gpu]\ntorch @ https://download.pytorch.org/whl/cu128/torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl\n")
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > fuzzMax {
			return
		}
		_ = ParseRequirements("requirements.txt", s, false)
	})
}

func FuzzParseTOML(f *testing.F) {
	f.Add("[project]\ndependencies = [\"torch==2.1\"]\n[tool.uv.sources]\ntorch = [{ index = \"cu121\" }]\n[[tool.uv.index]]\nname = \"cu121\"\nurl = \"https://download.pytorch.org/whl/cu121\"\n")
	f.Add("version = 1\n[[package]]\nname = \"torch\"\nversion = \"2.1.0+cu121\"\nsource = { registry = \"https://download.pytorch.org/whl/cu121\" }\n")
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > fuzzMax {
			return
		}
		_, _ = ParsePyproject("pyproject.toml", s)
		_, _ = ParseLock("uv.lock", s, KindUVLock)
		_, _ = ParseLock("poetry.lock", s, KindPoetryLock)
	})
}

// FuzzMarkerAdmitsLinux: any marker text gets an answer, never a panic
// or a runaway recursion, and a marker and its parenthesised self agree.
func FuzzMarkerAdmitsLinux(f *testing.F) {
	f.Add("(python_full_version >= '3.12' and platform_machine != 'aarch64') or (python_full_version >= '3.12' and sys_platform != 'linux')")
	f.Add("sys_platform not in 'darwin win32'")
	f.Add(strings.Repeat("(", 100) + "sys_platform == 'linux'" + strings.Repeat(")", 100))
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > fuzzMax {
			return
		}
		got := markerAdmitsLinux(s)
		if markerAdmitsLinux("("+s+")") != got && strings.Count(s, "(") < maxMarkerDepth {
			t.Errorf("%q admits Linux: %v, but (%q): %v", s, got, s, !got)
		}
	})
}

func FuzzParseCondaEnv(f *testing.F) {
	f.Add("channels:\n  - pytorch\ndependencies:\n  - python=3.10\n  - pytorch=2.0\n  - pytorch-cuda=11.8\n  - pip:\n    - transformers==4.30\n")
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > fuzzMax {
			return
		}
		_, _ = ParseCondaEnv("environment.yml", s)
	})
}

func FuzzDetect(f *testing.F) {
	seeds(f, "*/*")
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > fuzzMax {
			return
		}
		if k, err := Detect("-", []byte(s)); err == nil {
			_, _ = Parse("-", k, s, nil)
		}
	})
}

// FuzzCheck runs the whole judgement on arbitrary Dockerfiles: whatever
// the text, Check answers or refuses, and never panics.
func FuzzCheck(f *testing.F) {
	// A judgement resolves against the whole database: few, small seeds
	// keep the seed run short in `go test`.
	seeds(f, "peer/Dockerfile.pinned_version_mismatch")
	f.Add("FROM pytorch/pytorch:1.13.1-cuda11.6-cudnn8-runtime\nRUN pip install torchvision==0.15.2 nvidia-cudnn-cu12==1\n")
	f.Add("FROM nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04\nENV LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64\nRUN conda install pytorch=2.1 pytorch-cuda=12.1 cpuonly\n")
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	f.Fuzz(func(t *testing.T, s string) {
		heapWatchdog()
		if len(s) > 4<<10 {
			return
		}
		_, _ = Check(context.Background(), d, []Input{{Name: "Dockerfile", Data: []byte(s)}}, Options{JudgeHost: judgeWithVerify, Target: Target{Driver: "535.104.05", SM: "8.9"}})
	})
}
