package check

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reqLines lists "name spec @line index" for comparison.
func reqLines(rs []Requirement) []string {
	var out []string
	for _, r := range rs {
		s := r.Name + r.Spec
		if len(r.Extras) > 0 {
			s += "[" + strings.Join(r.Extras, ",") + "]"
		}
		s += " @" + itoa(r.Line)
		if r.IndexURL != "" {
			s += " " + r.IndexURL
		}
		for _, x := range r.ExtraIndexURLs {
			s += " +" + x
		}
		if r.Scenario != "" {
			s += " [" + r.Scenario + "]"
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestDockerfileContinuationsAndIndex(t *testing.T) {
	u, err := ParseDockerfile("Dockerfile", read(t, "real/Dockerfile.khlam-cu117"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"torch==2.0.0+cu117 @7 https://download.pytorch.org/whl/cu117",
		"torchvision==0.15.1+cu117 @7 https://download.pytorch.org/whl/cu117",
		"torchaudio==2.0.1 @7 https://download.pytorch.org/whl/cu117",
	}
	if d := cmp.Diff(want, reqLines(u.Reqs)); d != "" {
		t.Errorf("requirements (-want +got):\n%s", d)
	}
	if u.Image.CUDA != "12.2.0" || u.Image.Flavour != "runtime" || u.Image.OS != "ubuntu20.04" || u.Image.Python != "3.8" || u.Image.Line != 1 {
		t.Errorf("image = %+v", u.Image)
	}
}

func TestDockerfileMultiStageCopyFrom(t *testing.T) {
	u, err := ParseDockerfile("Dockerfile", read(t, "peer/Dockerfile.multistage"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Image.Ref != "nvidia/cuda:12.1.0-runtime-ubuntu22.04" || u.Image.Line != 9 {
		t.Errorf("final stage image = %+v", u.Image)
	}
	// COPY --from=builder …/site-packages carries the builder's -r file.
	var inc []string
	for _, i := range u.Includes {
		inc = append(inc, i.Path+"@"+itoa(i.Line)+":"+i.Installer)
	}
	if d := cmp.Diff([]string{"requirements.txt@5:copy", "requirements.txt@6:pip"}, inc); d != "" {
		t.Errorf("includes (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"torch @16 https://download.pytorch.org/whl/cu121"}, reqLines(u.Reqs)); d != "" {
		t.Errorf("requirements (-want +got):\n%s", d)
	}
}

func TestDockerfileFromStageInherits(t *testing.T) {
	u, err := ParseDockerfile("Dockerfile", read(t, "real/tf63/Dockerfile"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "torch-2.0.0" || u.Image == nil || u.Image.CUDA != "11.7.1" || u.Image.CUDNN != "8" {
		t.Fatalf("unit %q image %+v", u.Name, u.Image)
	}
	if len(u.Syncs) != 1 || u.Syncs[0].Tool != "poetry" {
		t.Errorf("syncs = %+v", u.Syncs)
	}
	var py bool
	for _, p := range u.Apt {
		py = py || p.Name == "python3.8"
	}
	if !py {
		t.Errorf("apt python3.8 not inherited from the base stage: %+v", u.Apt)
	}
}

func TestDockerfileHeredocAndArgs(t *testing.T) {
	u, err := ParseDockerfile("Dockerfile", read(t, "real/Dockerfile.thr3a-cu126"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var apt []string
	for _, p := range u.Apt {
		if strings.HasPrefix(p.Name, "python") {
			apt = append(apt, p.Name+"@"+itoa(p.Line))
		}
	}
	// ${PYTHON_VERSION} comes from ARG PYTHON_VERSION=3.13.
	if d := cmp.Diff([]string{"python3.13@27", "python3.13-dev@27"}, apt); d != "" {
		t.Errorf("heredoc apt packages (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"uv @32", "torch @35 https://download.pytorch.org/whl/cu126", "torchvision @35 https://download.pytorch.org/whl/cu126"}, reqLines(u.Reqs)); d != "" {
		t.Errorf("requirements (-want +got):\n%s", d)
	}
	if u.Image.Ref != "nvcr.io/nvidia/cuda:12.6.3-cudnn-devel-ubuntu24.04" || u.Image.CUDNN != "9" {
		t.Errorf("image = %+v", u.Image)
	}
}

func TestDockerfileBuildArgOverridesDefault(t *testing.T) {
	src := "ARG CUDA=12.1.0\nFROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04\nARG TORCH\nRUN pip install torch==${TORCH:-2.1.0}\n"
	u, err := ParseDockerfile("Dockerfile", src, map[string]string{"CUDA": "11.8.0"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Image.CUDA != "11.8.0" {
		t.Errorf("image CUDA = %q, want the --build-arg value", u.Image.CUDA)
	}
	if d := cmp.Diff([]string{"torch==2.1.0 @4"}, reqLines(u.Reqs)); d != "" {
		t.Errorf("requirements (-want +got):\n%s", d)
	}
	if _, err := ParseDockerfile("Dockerfile", "RUN pip install torch\n", nil); err == nil {
		t.Error("a file with no FROM parsed as a Dockerfile")
	}
}

func TestRequirementsFile(t *testing.T) {
	src := "# comment\n--extra-index-url https://download.pytorch.org/whl/cu118\n\ntorch==2.1.2 \\\n    --hash=sha256:00\ntorchvision==0.16.2  # pinned\nnvidia-cudnn-cu11==8.7.0.84; platform_system == \"Linux\"\n-r common.txt\n-c constraints.txt\n"
	u := ParseRequirements("requirements.txt", src, false)
	want := []string{
		"torch==2.1.2 @4 +https://download.pytorch.org/whl/cu118",
		"torchvision==0.16.2 @6 +https://download.pytorch.org/whl/cu118",
		"nvidia-cudnn-cu11==8.7.0.84 @7 +https://download.pytorch.org/whl/cu118",
	}
	if d := cmp.Diff(want, reqLines(u.Reqs)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(u.Includes) != 2 || u.Includes[0].Path != "common.txt" || u.Includes[0].Constraint || !u.Includes[1].Constraint {
		t.Errorf("includes = %+v", u.Includes)
	}
	if u.Reqs[2].Marker != `platform_system == "Linux"` {
		t.Errorf("marker = %q", u.Reqs[2].Marker)
	}
}

func TestPyprojectUVSources(t *testing.T) {
	u, err := ParsePyproject("pyproject.toml", read(t, "real/yyhhenry/pyproject.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const ix = "https://download.pytorch.org/whl/cu126"
	want := []string{"numpy>=2.2.5 @8", "setuptools>=78.1.1 @9", "torch==2.7.1+cu126 @10 " + ix, "torchaudio>=2.7.1 @11 " + ix, "torchvision>=0.22.1 @12 " + ix}
	if d := cmp.Diff(want, reqLines(u.Reqs)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if u.Python != "3.12" {
		t.Errorf("python = %q from requires-python ==3.12.*", u.Python)
	}
}

func TestPyprojectPoetry(t *testing.T) {
	u, err := ParsePyproject("pyproject.toml", read(t, "real/tf63/pyproject.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const ix = "https://download.pytorch.org/whl/cu117/"
	want := []string{"torch==2.0.0+cu117 @10 " + ix, "torchvision==0.15.0+cu117 @11 " + ix,
		"autopep8==2.0.0 @18", "isort>=5.13.2,<6.0.0 @19", "pytest>=7.4.3,<8.0.0 @20"}
	if d := cmp.Diff(want, reqLines(u.Reqs)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for in, want := range map[string]string{"^2.3.1": ">=2.3.1,<3.0.0", "~2.3.1": ">=2.3.1,<2.4.0", "2.0.1+cu118": "==2.0.1+cu118", "*": "", "^0.17": ">=0.17.0,<0.18.0", ">=2,<3": ">=2,<3"} {
		if got := poetrySpec(in); got != want {
			t.Errorf("poetrySpec(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocks(t *testing.T) {
	u, err := ParseLock("uv.lock", read(t, "real/yyhhenry/uv.lock"), KindUVLock)
	if err != nil {
		t.Fatal(err)
	}
	const ix = "https://download.pytorch.org/whl/cu121"
	want := []string{"nvidia-cudnn-cu12==8.9.2.26 @5", "torch==2.3.1+cu121 @13 " + ix, "torchaudio==2.3.1+cu121 @25 " + ix, "torchvision==0.18.1+cu121 @33 " + ix, "uv-torch-env==0.1.0 @43"}
	if d := cmp.Diff(want, reqLines(u.Reqs)); d != "" {
		t.Errorf("uv.lock (-want +got):\n%s", d)
	}
	if u.Python != "3.10" {
		t.Errorf("python = %q", u.Python)
	}
	p, err := ParseLock("poetry.lock", read(t, "real/tf63/poetry.lock"), KindPoetryLock)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Reqs) != 2 || p.Reqs[0].Spec != "==2.0.0+cu117" || p.Reqs[0].Line != 4 || !strings.Contains(p.Reqs[0].IndexURL, "/whl/cu117/") {
		t.Errorf("poetry.lock = %v", reqLines(p.Reqs))
	}
}

func TestCondaEnv(t *testing.T) {
	u, err := ParseCondaEnv("environment.yml", read(t, "real/anibali-2.0.1-cu118/environment.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range u.Reqs {
		got = append(got, r.Name+r.Spec+" @"+itoa(r.Line)+" "+r.IndexURL)
	}
	want := []string{"mamba==1.4.9 @7 conda-forge", "pip==23.2.1 @8 conda-forge", "pytorch==2.0.1 @10 pytorch", "pytorch-cuda==11.8.* @11 pytorch", "scipy==1.11.2 @12 conda-forge", "torchvision==0.15.2 @13 pytorch", "tqdm==4.66.1 @14 conda-forge"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if u.Python != "3.11.4" || u.PythonLine != 9 {
		t.Errorf("python %q line %d", u.Python, u.PythonLine)
	}
	for in, want := range map[string]string{"pytorch=1.11.0=py3.9_cuda11.5_cudnn8.3.2_0": "==1.11.0", "cudatoolkit=11.3": "==11.3.*", "numpy>=1.2": ">=1.2", "conda-forge::cudnn": ""} {
		r, ok := parseCondaSpec(in)
		if !ok || r.Spec != want {
			t.Errorf("parseCondaSpec(%q) = %+v, %v; want spec %q", in, r, ok, want)
		}
	}
}

func TestCompose(t *testing.T) {
	us, err := ParseCompose("docker-compose.yml", read(t, "peer/docker-compose.invalid.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range us {
		got = append(got, u.Name+" "+u.Image.Family+" "+u.GPU.How+" "+u.GPU.Driver+" @"+itoa(u.GPU.Line))
	}
	want := []string{"old-style nvidia-cuda runtime nvidia @7", "missing-config pytorch/pytorch   @11", "wrong-driver tensorflow/tensorflow deploy.devices amd @22"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	b, err := ParseCompose("compose.yaml", read(t, "real/lirt1231/docker-compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 2 || b[0].Build == nil || b[0].Build.Context != "." || b[0].Build.Line != 5 {
		t.Errorf("build = %+v", b[0].Build)
	}
}

func TestClassifyImage(t *testing.T) {
	for ref, want := range map[string]string{
		"nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04":       "nvidia-cuda cuda=11.8.0 cudnn=8 runtime ubuntu22.04 py=3.10",
		"nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04":          "nvidia-cuda cuda=12.4.1 cudnn=9 devel ubuntu22.04 py=3.10",
		"nvidia/cuda:10.0-cudnn7-devel-ubuntu18.04":           "nvidia-cuda cuda=10.0 cudnn=7 devel ubuntu18.04 py=3.6",
		"pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime":       "pytorch/pytorch cuda=12.1 cudnn=8 runtime  py= torch==2.1.0",
		"tensorflow/tensorflow:2.15.0-gpu":                    "tensorflow/tensorflow cuda= cudnn= gpu  py= tensorflow==2.15.0",
		"tensorflow/tensorflow:2.1.0-gpu-py3":                 "tensorflow/tensorflow cuda= cudnn= gpu  py= tensorflow==2.1.0",
		"python:3.11-slim":                                    "python cuda= cudnn=   py=3.11",
		"docker.io/library/python:3.10.12-bookworm@sha256:ab": "python cuda= cudnn=   py=3.10",
		"ubuntu:22.04": "other cuda= cudnn=  ubuntu22.04 py=3.10",
	} {
		i := ClassifyImage(ref)
		got := i.Family + " cuda=" + i.CUDA + " cudnn=" + i.CUDNN + " " + i.Flavour + " " + i.OS + " py=" + i.Python
		if i.Framework != "" {
			got += " " + i.Framework + "==" + i.FrameworkVersion
		}
		if got != want {
			t.Errorf("ClassifyImage(%q) = %q, want %q", ref, got, want)
		}
	}
	for _, ref := range []string{"tensorflow/tensorflow:latest-gpu", "nvcr.io/nvidia/pytorch:23.10-py3", "nvidia/cuda:latest", "python:3"} {
		if ClassifyImage(ref).Unknown == "" {
			t.Errorf("ClassifyImage(%q) names nothing unknown", ref)
		}
	}
}

func TestDetect(t *testing.T) {
	for name, want := range map[string]Kind{
		"peer/Dockerfile.valid": KindDockerfile, "peer/docker-compose.valid.yml": KindCompose,
		"real/yyhhenry/pyproject.toml": KindPyproject, "real/yyhhenry/uv.lock": KindUVLock, "real/tf63/poetry.lock": KindPoetryLock,
		"real/anibali-2.0.1-cu118/environment.yml": KindCondaEnv, "real/yyhhenry/requirements-torch.txt": KindRequirements,
	} {
		text := read(t, name)
		if k, err := Detect(name, []byte(text)); err != nil || k != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", name, k, err, want)
		}
		// From standard input the content alone decides.
		if k, err := Detect("-", []byte(text)); err != nil || k != want {
			t.Errorf("Detect(-, %s) = %q, %v; want %q", name, k, err, want)
		}
	}
	if _, err := Detect("-", []byte("hello world\n")); err == nil {
		t.Error("prose detected as a project file")
	}
}

func TestKindOfName(t *testing.T) {
	for name, want := range map[string]Kind{
		"Dockerfile": KindDockerfile, "Dockerfile.gpu": KindDockerfile, "app.dockerfile": KindDockerfile, "Containerfile": KindDockerfile,
		"docker-compose.yml": KindCompose, "compose.yaml": KindCompose, "requirements-dev.txt": KindRequirements,
		"constraints.txt": KindRequirements, "environment.yml": KindCondaEnv, "uv.lock": KindUVLock, "poetry.lock": KindPoetryLock,
		"pyproject.toml": KindPyproject,
	} {
		if k, ok := KindOfName(name); !ok || k != want {
			t.Errorf("KindOfName(%q) = %q, %v; want %q", name, k, ok, want)
		}
	}
	for _, name := range []string{"dockerfile.go", "Dockerfile.md", "README.md", "setup.py", "main.go"} {
		if k, ok := KindOfName(name); ok {
			t.Errorf("KindOfName(%q) = %q", name, k)
		}
	}
}

func TestWithoutWord(t *testing.T) {
	for in, want := range map[string]string{
		"RUN apt-get update && apt-get install -y nvidia-driver-535":                  "RUN apt-get update",
		"RUN apt-get update && apt-get install -y nvidia-driver-535 git":              "RUN apt-get update && apt-get install -y git",
		"RUN apt-get install -y nvidia-driver-535 && rm -rf /var/lib/apt/lists/*":     "RUN rm -rf /var/lib/apt/lists/*",
		"RUN apt-get update && apt-get install -y nvidia-driver-535 && apt-get clean": "RUN apt-get update && apt-get clean",
	} {
		if got := withoutWord(in, "nvidia-driver-535"); got != want {
			t.Errorf("withoutWord(%q) = %q, want %q", in, got, want)
		}
	}
}
