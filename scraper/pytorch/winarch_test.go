package pytorch

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
)

// builder's windows/cuda<nnn>.bat: the CUDA version its nvcc check names
// and the list set in the torch (not torchvision) branch, in the file's
// two forms (CUDA_PATH_V10_1 in 2020, CUDA_PATH_V121 later).
func TestParseWindowsCUDABatCapture(t *testing.T) {
	for _, tc := range []struct{ capture, variant, list string }{
		{"cuda121.bat@55d40b1b.bat", "cu121", "5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0"},
		{"cuda118.bat@aec5fb5d.bat", "cu118", "3.7+PTX;5.0;6.0;6.1;7.0;7.5;8.0;8.6;9.0"},
		{"cuda101.bat@30850f42.bat", "cu101", "3.7+PTX;5.0;6.0;6.1;7.0;7.5"},
	} {
		ref := strings.TrimSuffix(tc.capture, ".bat")
		recs, err := parseWindowsCUDABat(readCapture(t, tc.capture), ref)
		if err != nil {
			t.Fatalf("%s: %v", tc.capture, err)
		}
		if len(recs) != 1 || recs[0].Fields["cuda_variant"] != tc.variant || recs[0].Fields["sm_list"] != tc.list ||
			recs[0].Fields["platform"] != "windows wheel" || !strings.HasPrefix(recs[0].Ref, ref+":3 ") {
			t.Errorf("%s: %+v", tc.capture, recs)
		}
	}
	nvcc := `    IF EXIST "C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.1\bin\nvcc.exe" (` + "\n"
	for name, src := range map[string]string{
		"outside the torch branch": nvcc + "    set TORCH_CUDA_ARCH_LIST=5.0;6.0\n",
		"after the branch closed":  nvcc + "IF \"%BUILD_VISION%\" == \"\" (\n) ELSE (\n    set TORCH_CUDA_ARCH_LIST=5.0\n",
		"no CUDA version":          "IF \"%BUILD_VISION%\" == \"\" (\n    set TORCH_CUDA_ARCH_LIST=5.0;6.0\n",
		"two lists":                nvcc + "IF \"%BUILD_VISION%\" == \"\" (\n    set TORCH_CUDA_ARCH_LIST=5.0\n    set TORCH_CUDA_ARCH_LIST=6.0\n",
		"not a list":               nvcc + "IF \"%BUILD_VISION%\" == \"\" (\n    set TORCH_CUDA_ARCH_LIST=%ARCHS%\n",
		"nothing":                  nvcc,
	} {
		if recs, err := parseWindowsCUDABat([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, records %+v", name, recs)
		}
	}
}

// The Windows lists become the Windows builds' own, citing the script at
// its builder commit; the Linux build of the same release keeps its list,
// and a CUDA version the branch could build but did not ship makes no
// build.
func TestWindowsArchListsAttach(t *testing.T) {
	recs, err := scrapeBuildScripts(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs,
		scraper.Record{Table: "release_matrix", Key: "2.1.0", Ref: "m", Fields: map[string]string{
			"torch_version": "2.1.0", "linux_wheel_cuda_variants": "cu118;cu121", "python_min": "3.8", "python_max": "3.11"}},
		scraper.Record{Table: "release_matrix", Key: "1.9.0", Ref: "m", Fields: map[string]string{
			"torch_version": "1.9.0", "linux_wheel_cuda_variants": "cu102;cu111", "python_min": "3.6", "python_max": "3.9"}},
		scraper.Record{Table: "arch_list", Key: "2.1|cu121|linux", Ref: "linux row", Fields: map[string]string{
			"torch_version": "2.1", "cuda_variant": "cu121", "platform": "linux-x86_64 wheel", "sm_list": "5.0;6.0;7.0;7.5;8.0;8.6;9.0"}})
	f, err := BuildMatrix{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	w := findBuild(f, "2.1.0", "cu121", "windows", "")
	if w == nil || w.ArchList != "sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90" ||
		w.ArchCite().URL != "https://github.com/pytorch/builder/blob/55d40b1b06379fddd0ba14744dc3fdd768530da6/windows/cuda121.bat" ||
		!strings.HasPrefix(w.ArchCite().Ref, "cuda121.bat@55d40b1b.bat:3 ") {
		t.Errorf("2.1.0 cu121 windows = %+v", w)
	}
	if w := findBuild(f, "2.1.0", "cu118", "windows", ""); w == nil || !strings.HasPrefix(w.ArchList, "sm_37 compute_37 sm_50 sm_60 sm_61") {
		t.Errorf("2.1.0 cu118 windows = %+v", w)
	}
	if l := findBuild(f, "2.1.0", "cu121", "linux", ""); l == nil || l.ArchList != "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90" {
		t.Errorf("the Linux list must stay the Linux one: %+v", l)
	}
	for _, v := range []string{"cu92", "cu101", "cu110", "cu112", "cu113"} {
		if b := findBuild(f, "1.9.0", v, "windows", ""); b != nil {
			t.Errorf("release/1.9 can build %s but 1.9.0 did not ship it: %+v", v, b)
		}
	}
}

func FuzzParseWindowsCUDABat(f *testing.F) {
	f.Add(string(readCapture(f, "cuda121.bat@55d40b1b.bat")))
	f.Add(string(readCapture(f, "cuda101.bat@30850f42.bat")))
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseWindowsCUDABat([]byte(src), "fuzz")
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
