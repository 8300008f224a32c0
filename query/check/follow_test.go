package check

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/findings"

	"github.com/google/go-cmp/cmp"

	"github.com/cudb/cudb/query/querytest"
)

// checkFile runs Check on a testdata file, following what it refers to
// inside its own folder.
func checkFile(t *testing.T, file string, opts Options) *Report {
	t.Helper()
	p := filepath.Join("testdata", file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(p)
	opts.JudgeHost = judgeWithVerify
	opts.Read = func(name string) ([]byte, error) {
		full := filepath.Clean(filepath.Join("testdata", filepath.FromSlash(name)))
		if !strings.HasPrefix(full, root) {
			return nil, os.ErrNotExist
		}
		return os.ReadFile(full)
	}
	rep, err := Check(context.Background(), querytest.Embedded(t), []Input{{Name: file, Data: b}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func readBuilds(r *Report) []string {
	var out []string
	for _, b := range r.Read.Frameworks {
		s := filepath.Base(b.File) + ":" + itoa(b.Line)
		if b.Scenario != "" {
			s += " [" + b.Scenario + "]"
		}
		out = append(out, s)
	}
	return out
}

// TestConditionalBranches: the Dockerfile of tensorflow/tensorflow#62194
// installs tensorflow[and-cuda] or tensorflow by `if [ "$USE_GPU" =
// "true" ]`. Without --build-arg each branch is judged on its own; a
// --build-arg picks one.
func TestConditionalBranches(t *testing.T) {
	rep := checkFile(t, "real/tf-62194/Dockerfile", Options{})
	want := []string{`Dockerfile:12 [line 11: if [ $USE_GPU = true ]]`, `Dockerfile:14 [line 11: not [ $USE_GPU = true ]]`}
	if d := cmp.Diff(want, readBuilds(rep)); d != "" {
		t.Errorf("branches (-want +got):\n%s", d)
	}
	if n := len(rep.Files[0].Units); n != 2 {
		t.Errorf("%d results, want one per branch", n)
	}
	for arg, line := range map[string]string{"true": "Dockerfile:12", "false": "Dockerfile:14"} {
		rep := checkFile(t, "real/tf-62194/Dockerfile", Options{BuildArgs: map[string]string{"USE_GPU": arg}})
		if d := cmp.Diff([]string{line}, readBuilds(rep)); d != "" {
			t.Errorf("USE_GPU=%s (-want +got):\n%s", arg, d)
		}
	}
}

// TestLocalInstallFollowed: norse's publish/Dockerfile runs `COPY . .`
// and `pip3 install -e .`; its setup.py reads requirements.txt, whose
// torch line is judged.
func TestLocalInstallFollowed(t *testing.T) {
	rep := checkFile(t, "real/norse/Dockerfile", Options{})
	if d := cmp.Diff([]string{"requirements.txt:2"}, readBuilds(rep)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(rep.Read.NotFollowed) != 0 {
		t.Errorf("not followed: %+v", rep.Read.NotFollowed)
	}
}

// TestUVSyncAfterCopyDir: pyros-projects/the_experiment ADDs the whole
// context and runs `uv sync --frozen`: the lock's linux torch is judged
// (its aarch64 entry is not).
func TestUVSyncAfterCopyDir(t *testing.T) {
	rep := checkFile(t, "corpus/the-experiment/Dockerfile", Options{})
	if len(rep.Read.Frameworks) != 1 || !strings.HasPrefix(rep.Read.Frameworks[0].Build, "torch==2.5.1+cu124") || filepath.Base(rep.Read.Frameworks[0].File) != "uv.lock" {
		t.Errorf("read %+v", rep.Read.Frameworks)
	}
}

// TestNoMatchKeepsHostChecks: realfill's requirements before its fix
// pin torch==2.2.1+cu118 with no PyTorch index (no_matching_build); the
// build the label names still has no sm_120 kernels, a second finding
// of its own.
func TestNoMatchKeepsHostChecks(t *testing.T) {
	rep := checkFile(t, "corpus/realfill-22922e0p/requirements.txt", Options{Target: Target{Driver: "570.86.10", SM: "12.0"}})
	var got []string
	for _, f := range rep.Findings {
		if f.Severity == findings.SevError {
			got = append(got, itoa(f.Line)+":"+f.Category)
		}
	}
	if d := cmp.Diff([]string{"5:no_matching_build", "5:gpu_arch_unsupported"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestWheelNames reads the wheel files jihuacao/ProjectManager's
// Dockerfile module installs (Dockerfiles/torch.v1.0.1.Dockerfile).
func TestWheelNames(t *testing.T) {
	for name, want := range map[string]Wheel{
		"torch-1.8.1%2Bcu101-cp39-cp39-linux_x86_64.whl":            {Name: "torch", Version: "1.8.1+cu101", Python: "cp39", ABI: "cp39", Platform: "linux_x86_64"},
		"torchvision-0.9.1+cu101-cp39-cp39-linux_x86_64.whl":        {Name: "torchvision", Version: "0.9.1+cu101", Python: "cp39", ABI: "cp39", Platform: "linux_x86_64"},
		"torchaudio-0.8.1-cp39-cp39-linux_x86_64.whl":               {Name: "torchaudio", Version: "0.8.1", Python: "cp39", ABI: "cp39", Platform: "linux_x86_64"},
		"tensorflow-2.15.0-1-cp311-cp311-manylinux_2_17_x86_64.whl": {Name: "tensorflow", Version: "2.15.0", Python: "cp311", ABI: "cp311", Platform: "manylinux_2_17_x86_64"},
	} {
		got, ok := parseWheelName(name)
		if !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", name, got, ok, want)
		}
	}
	for _, bad := range []string{"torch-1.8.1.tar.gz", "torch.whl", "torch-x-cp39-cp39-linux.whl", "a-b-c.whl"} {
		if w, ok := parseWheelName(bad); ok {
			t.Errorf("%s parsed as %+v", bad, w)
		}
	}
	u := &Unit{}
	body := "cd /root/DockerContext && wget -c -q https://download.pytorch.org/whl/cu101/torch-1.8.1%2Bcu101-cp39-cp39-linux_x86_64.whl && pip install torch-1.8.1+cu101-cp39-cp39-linux_x86_64.whl"
	readShell(u, body, shellCtx{expand: func(s string) string { return s }, decided: func(string) bool { return false }, lineOf: func(int) int { return 3 }})
	if len(u.Reqs) != 1 || u.Reqs[0].Name != "torch" || u.Reqs[0].Spec != "==1.8.1+cu101" || !slices.Equal(u.Reqs[0].FindLinks, []string{"."}) {
		t.Errorf("reqs %+v", u.Reqs)
	}
	w, _ := parseWheelName("torch-1.8.1%2Bcu101-cp39-cp39-linux_x86_64.whl")
	for _, c := range []struct {
		py, platform string
		fits         bool
	}{{"3.9", "linux", true}, {"3.9.18", "linux", true}, {"3.10", "linux", false}, {"", "linux", true}, {"3.9", "linux-aarch64", false}, {"3.9", "windows", true}} {
		if got := wheelFits(&w, c.py, c.platform) == ""; got != c.fits {
			t.Errorf("cp39 linux_x86_64 wheel on Python %q %s: fits=%v, want %v", c.py, c.platform, got, c.fits)
		}
	}
	if win, _ := parseWheelName("torch-2.7.0+cu128-cp311-cp311-win_amd64.whl"); wheelFits(&win, "3.11", "linux") == "" {
		t.Error("a Windows wheel fits a Linux image")
	}
	r, ok := parseReqText("torch @ https://download.pytorch.org/whl/cu128/torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl")
	if !ok || r.Spec != "==2.7.0+cu128" || r.IndexURL != "https://download.pytorch.org/whl/cu128" || r.Wheel.Python != "cp311" {
		t.Errorf("direct URL: %+v", r)
	}
}

// TestServingIndex: an index serves its own framework family only; a
// location cudb cannot read (a wheelhouse, a private index) is kept as
// a source that may serve what the data does not know.
func TestServingIndex(t *testing.T) {
	cpu := "https://download.pytorch.org/whl/cpu"
	cases := []struct {
		fw            string
		r             Requirement
		index, unseen string
	}{
		{"torch", Requirement{Installer: InstallerPip, ExtraIndexURLs: []string{cpu}}, cpu, ""},
		{"tensorflow", Requirement{Installer: InstallerPip, ExtraIndexURLs: []string{cpu}}, "", ""},
		{"jax", Requirement{Installer: InstallerPip, ExtraIndexURLs: []string{cpu}, FindLinks: []string{"https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"}}, "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html", ""},
		{"torch", Requirement{Installer: InstallerPip, FindLinks: []string{"./wheels"}}, "", "./wheels"},
		{"torch", Requirement{Installer: InstallerPip, IndexURL: "https://pypi.org/simple"}, "", ""},
		{"torch", Requirement{Installer: InstallerConda, IndexURL: "conda-forge"}, "conda-forge", "the conda channel conda-forge"},
		{"torch", Requirement{Installer: InstallerConda, IndexURL: "pytorch"}, "pytorch", ""},
	}
	for _, c := range cases {
		index, unseen := servingIndex(c.fw, c.r)
		if index != c.index || unseen != c.unseen {
			t.Errorf("%s %+v: %q %q, want %q %q", c.fw, c.r, index, unseen, c.index, c.unseen)
		}
	}
}

func TestMarkerAdmitsLinux(t *testing.T) {
	for marker, want := range map[string]bool{
		"sys_platform != 'darwin'":                                  true,
		"sys_platform == 'darwin'":                                  false,
		`platform_system == "Windows"`:                              false,
		"sys_platform == 'linux'":                                   true,
		"platform_machine == 'aarch64' and sys_platform == 'linux'": false,
		"platform_machine != 'aarch64' or sys_platform != 'linux'":  true,
		"python_version >= '3.10'":                                  true,
		"sys_platform == 'linux' and platform_machine == 'x86_64'":  true,
		"sys_platform != 'linux'":                                   false,
		// uv.lock resolution markers (mkv-episode-matcher's): an `or` of
		// alternatives admits Linux x86-64 when one of them does.
		"(python_full_version >= '3.12' and platform_machine != 'aarch64') or (python_full_version >= '3.12' and sys_platform != 'linux')":                              true,
		"(python_full_version >= '3.12' and platform_machine == 'aarch64' and sys_platform == 'linux') or (python_full_version >= '3.12' and sys_platform == 'darwin')": false,
		// markers published with `in` (uv's docs for cuml-cu12; a setup.py's
		// SUPPORTED_ARCHS), and one clause of the first's sibling marker
		"sys_platform == 'linux' and platform_machine in 'x86_64 aarch64'": true,
		"platform_machine in 'x86_64,AMD64'":                               true,
		"sys_platform == 'darwin' and platform_machine in 'arm64 x86_64'":  false,
		"(sys_platform == 'linux'":                                         true, // malformed: unreadable, nothing ruled out
	} {
		if got := markerAdmitsLinux(marker); got != want {
			t.Errorf("%s: %v, want %v", marker, got, want)
		}
	}
}

// TestUVSourcePick: uv's per-extra sources (astral-sh/uv#16386).
func TestUVSourcePick(t *testing.T) {
	b, err := os.ReadFile("testdata/real/uv-16386/pyproject.toml")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParsePyproject("pyproject.toml", string(b))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range u.Reqs {
		got[r.Scenario+" "+r.Name] = variantOf(r.IndexURL)
	}
	want := map[string]string{}
	for _, x := range []string{"cpu", "cu126", "cu128", "cu130"} {
		want["extra "+x+" torch"] = x
		want["extra "+x+" torchvision"] = x
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
