package pytorch

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

func readCapture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := captures.ReadFile("captures/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The captured build_cuda.sh of the 2.8 cycle gives one list per CUDA arm,
// as written (12.8 without PTX, 12.9 with it), citing its own lines.
func TestParseBuildCUDACapture(t *testing.T) {
	recs, err := parseBuildCUDA(readCapture(t, "build_cuda.sh@00c7a380.sh"), "build_cuda.sh@00c7a380")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Fields["cuda_variant"]] = r.Fields["sm_list"]
		if !strings.HasPrefix(r.Ref, "build_cuda.sh@00c7a380:") || r.Fields["platform"] != "linux-x86_64 wheel" {
			t.Errorf("record %+v", r)
		}
	}
	want := map[string]string{
		"cu128": "7.0;7.5;8.0;8.6;9.0;10.0;12.0",
		"cu129": "7.0;7.5;8.0;8.6;9.0;10.0;12.0+PTX",
		"cu126": "5.0;6.0;7.0;7.5;8.0;8.6;9.0",
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// The older form of the script: a base list extended per arm, and one arm
// naming two CUDA versions.
func TestParseBuildCUDABaseAndSharedArms(t *testing.T) {
	src := "TORCH_CUDA_ARCH_LIST=\"5.0;6.0;7.0;7.5;8.0;8.6\"\ncase ${CUDA_VERSION} in\n" +
		"    12.8|12.9)\n        TORCH_CUDA_ARCH_LIST=\"7.5;8.0;8.6;9.0;10.0;12.0+PTX\" #removing sm_50-sm_70\n        ;;\n" +
		"    12.6)\n        TORCH_CUDA_ARCH_LIST=\"${TORCH_CUDA_ARCH_LIST};9.0\"\n        ;;\nesac\n"
	recs, err := parseBuildCUDA([]byte(src), "x")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Fields["cuda_variant"]] = r.Fields["sm_list"]
	}
	if got["cu128"] != "7.5;8.0;8.6;9.0;10.0;12.0+PTX" || got["cu129"] != got["cu128"] || got["cu126"] != "5.0;6.0;7.0;7.5;8.0;8.6;9.0" {
		t.Errorf("got %v", got)
	}
}

// What the parser cannot evaluate is an error, never a guess.
func TestParseBuildCUDARefuses(t *testing.T) {
	for name, src := range map[string]string{
		"substitution": "case ${CUDA_VERSION} in\n  12.6) TORCH_CUDA_ARCH_LIST=\"5.0;${TORCH_CUDA_ARCH_LIST//10.0/}\" ;;\n  12.6)\n    TORCH_CUDA_ARCH_LIST=\"${TORCH_CUDA_ARCH_LIST//10.0/}\"\n    ;;\nesac\n",
		"no base":      "case ${CUDA_VERSION} in\n  12.6)\n    TORCH_CUDA_ARCH_LIST=\"${TORCH_CUDA_ARCH_LIST};9.0\"\n    ;;\nesac\n",
		"no arm":       "case ${CUDA_VERSION} in\n    TORCH_CUDA_ARCH_LIST=\"8.0\"\nesac\n",
		"nothing":      "#!/bin/bash\necho hello\n",
		"bad version":  "case ${CUDA_VERSION} in\n  1)\n    TORCH_CUDA_ARCH_LIST=\"8.0\"\n    ;;\nesac\n",
	} {
		if recs, err := parseBuildCUDA([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, records %+v", name, recs)
		}
	}
}

func TestParseInstallCUDACapture(t *testing.T) {
	recs, err := parseInstallCUDA(readCapture(t, "install_cuda.sh@049415d4.sh"), "install_cuda.sh@049415d4")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Fields["cuda_variant"]] = r.Fields["cudnn"]
	}
	want := map[string]string{"cu102": "7.6.5.32", "cu113": "8.3.2.44", "cu115": "8.3.2.44", "cu116": "8.3.2.44"}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// the .tgz archive form
	recs, err = parseInstallCUDA(readCapture(t, "install_cuda.sh@24274a90.sh"), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Fields["cuda_variant"] == "cu111" && r.Fields["cudnn"] != "8.0.5.39" {
			t.Errorf("cu111 = %+v", r)
		}
	}
	if _, err := parseInstallCUDA([]byte("function install_102 {\n libcudnn7_7.6.5.32-1+cuda10.2\n libcudnn7_7.6.4.38-1+cuda10.2\n"), "x"); err == nil {
		t.Error("two cuDNN versions in one function: no error")
	}
	if _, err := parseInstallCUDA([]byte("echo nothing\n"), "x"); err == nil {
		t.Error("no function: no error")
	}
}

// Script rows attach to builds other rows define and never make one: the
// 1.12 image can build CUDA 11.5, but 1.12.1 shipped no cu115 wheel. A
// variant marked skip is refused, so db check lists why it is missing.
func TestBuildScriptRowsAttachOnly(t *testing.T) {
	recs, err := scrapeBuildScripts(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rel := func(v, variants string) scraper.Record {
		return scraper.Record{Table: "release_matrix", Key: v, Ref: "m", Fields: map[string]string{
			"torch_version": v, "linux_wheel_cuda_variants": variants, "python_min": "3.7", "python_max": "3.10"}}
	}
	recs = append(recs, rel("1.12.1", "cu102;cu113;cu116"), rel("1.7.0", "cu92;cu101;cu102;cu110"), rel("2.8.0", "cu126;cu128;cu129"))
	f, err := BuildMatrix{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	if b := findBuild(f, "1.12.1", "cu115", "linux", ""); b != nil {
		t.Errorf("a script row made a build: %+v", b)
	}
	if got := findReq(f, "1.12.1", "cu102", "linux", "", "cudnn", db.KindBundled); got != "7.6.5.32" {
		t.Errorf("1.12.1 cu102 cuDNN = %q", got)
	}
	if got := findReq(f, "1.7.0", "cu110", "linux", "", "cudnn", db.KindBundled); got != "" {
		t.Errorf("1.7.0 cu110 cuDNN = %q, want none (skipped)", got)
	}
	refusedSkip := false
	for _, c := range f.Conflicts {
		refusedSkip = refusedSkip || (c.Field == "refused" && strings.Contains(c.Note, "3c86295b"))
	}
	if !refusedSkip {
		t.Errorf("the skipped cu110 row is not listed: %+v", f.Conflicts)
	}
	b := findBuild(f, "2.8.0", "cu129", "linux", "")
	if b == nil || b.ArchList != "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120" {
		t.Errorf("2.8.0 cu129 = %+v", b)
	}
}

func FuzzParseBuildCUDA(f *testing.F) {
	f.Add(string(readCapture(f, "build_cuda.sh@00c7a380.sh")))
	f.Add("TORCH_CUDA_ARCH_LIST=\"5.0\"\ncase ${CUDA_VERSION} in\n 12.6|12.8)\n TORCH_CUDA_ARCH_LIST=\"${TORCH_CUDA_ARCH_LIST};9.0+PTX\"\n ;;\nesac\n")
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseBuildCUDA([]byte(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if cudaOfVariant(r.Fields["cuda_variant"]) == "" {
				t.Fatalf("variant %q", r.Fields["cuda_variant"])
			}
			if _, err := archList(r.Fields["sm_list"]); err != nil {
				t.Fatalf("parsed list not an arch list: %v", err)
			}
		}
	})
}

func FuzzParseInstallCUDA(f *testing.F) {
	f.Add(string(readCapture(f, "install_cuda.sh@049415d4.sh")))
	f.Add(string(readCapture(f, "install_cuda.sh@24274a90.sh")))
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseInstallCUDA([]byte(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if !reDotted().MatchString(r.Fields["cudnn"]) || cudaOfVariant(r.Fields["cuda_variant"]) == "" {
				t.Fatalf("record %+v", r)
			}
		}
	})
}

// Windows: the cuDNN of each :cuda<nnn> section, in both of the file's
// forms (a versioned zip before 11.x, a CUDNN_FOLDER name after); a
// section of another name ends the CUDA section.
func TestParseCUDAInstallBatCapture(t *testing.T) {
	recs, err := parseCUDAInstallBat(readCapture(t, "cuda_install.bat@049415d4.bat"), "cuda_install.bat@049415d4")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Fields["cuda_variant"]] = r.Fields["cudnn"]
		if r.Fields["platform"] != "windows build" {
			t.Errorf("record %+v", r)
		}
	}
	want := map[string]string{"cu102": "7.6.5.32", "cu113": "8.3.2.44", "cu115": "8.3.2.44", "cu116": "8.3.2.44"}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	recs, err = parseCUDAInstallBat(readCapture(t, "cuda_install.bat@24274a90.bat"), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Fields["cuda_variant"] == "cu101" && r.Fields["cudnn"] != "7.6.4.38" {
			t.Errorf("Windows cu101 = %+v (Linux has 7.6.3.30; Windows 7.6.4.38)", r)
		}
	}
	for name, src := range map[string]string{
		"after another label": ":cuda_common\ncurl https://x/cudnn-10.2-windows10-x64-v7.6.5.32.zip\n",
		"two versions":        ":cuda102\ncudnn-10.2-windows10-x64-v7.6.5.32.zip\ncudnn-10.2-windows10-x64-v7.6.4.38.zip\n",
		"no CUDA label":       ":cuda0\ncudnn-10.2-windows10-x64-v7.6.5.32.zip\n",
	} {
		if recs, err := parseCUDAInstallBat([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, records %+v", name, recs)
		}
	}
}

func FuzzParseCUDAInstallBat(f *testing.F) {
	f.Add(string(readCapture(f, "cuda_install.bat@049415d4.bat")))
	f.Add(string(readCapture(f, "cuda_install.bat@24274a90.bat")))
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseCUDAInstallBat([]byte(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if !reDotted().MatchString(r.Fields["cudnn"]) || cudaOfVariant(r.Fields["cuda_variant"]) == "" {
				t.Fatalf("record %+v", r)
			}
		}
	})
}
