package tensorflow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTestedBuildsPicksTablesByHeading(t *testing.T) {
	rows, err := TestedBuilds(read(t, "source_ok.md"), "source.md")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Row{}
	for _, r := range rows {
		got[r.Platform+"/"+r.Device+"/"+r.Cells["version"]] = r
	}
	if len(rows) != 4 {
		t.Fatalf("got %d rows, want 4", len(rows))
	}
	gpu := got["linux/gpu/tensorflow-2.15.0"]
	// cuDNN comes before CUDA in the table: the columns must not swap.
	if gpu.Cells["cudnn"] != "8.9" || gpu.Cells["cuda"] != "12.2" {
		t.Errorf("2.15.0 GPU row = %v", gpu.Cells)
	}
	// The macOS GPU table has the Linux header; it must stay macOS.
	if _, ok := got["macos/gpu/tensorflow_gpu-1.1.0"]; !ok {
		t.Errorf("macOS GPU row missing or mislabelled: %v", got)
	}
}

func TestTestedBuildsSad(t *testing.T) {
	for _, name := range []string{"source_moved.md", "source_empty.md"} {
		if _, err := TestedBuilds(read(t, name), "source.md"); err == nil {
			t.Errorf("%s: expected an error", name)
		}
	}
}

func normalizeFile(t *testing.T, name string) *db.Facts {
	t.Helper()
	rows, err := TestedBuilds(read(t, name), "source.md")
	if err != nil {
		t.Fatal(err)
	}
	var recs []scraper.Record
	for _, r := range rows {
		recs = append(recs, r.record(tableBuild, sourceMain, true))
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGarbageVersionIsRefused(t *testing.T) {
	f := normalizeFile(t, "source_garbage.md")
	refused := 0
	for _, c := range f.Conflicts {
		if c.Field == "refused" && strings.Contains(c.Other, "tensorflow-two.fifteen") {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("garbage row: %d refusals, want 1 (%v)", refused, f.Conflicts)
	}
	if len(f.Builds) != 3 {
		t.Errorf("builds = %d, want the 3 good rows", len(f.Builds))
	}
}

func TestNormalizeFacts(t *testing.T) {
	f := normalizeFile(t, "source_ok.md")
	want := db.BuildKey{Component: "tensorflow", Version: "2.15.0", Variant: "cuda12", Platform: "linux"}
	var b *db.Build
	for i := range f.Builds {
		if f.Builds[i].Key() == want {
			b = &f.Builds[i]
		}
	}
	if b == nil {
		t.Fatalf("no build %v in %v", want, f.Builds)
	}
	if b.CUDA != "12.2" || b.PythonMin != "3.9" || b.PythonMax != "3.11" || b.Package != "tensorflow" {
		t.Errorf("build = %+v", b)
	}
	specs := map[string]string{}
	for _, r := range f.Requirements {
		if r.Build == want {
			specs[r.Needs+"/"+r.Kind] = r.Spec
		}
	}
	if specs["cudnn/tested"] != "8.9" || specs["cuda/tested"] != "12.2" {
		t.Errorf("requirements = %v", specs)
	}
	for _, x := range append(append([]db.Provenance{}, b.Provenance), f.Requirements[0].Provenance) {
		if x.Source != "tensorflow" || x.Ref == "" {
			t.Errorf("provenance %+v", x)
		}
	}
}

func TestPythonRange(t *testing.T) {
	for cell, want := range map[string][2]string{"2.7, 3.3-3.7": {"2.7", "3.7"}, "3.9-3.12": {"3.9", "3.12"}, "3.5": {"3.5", "3.5"}, "3.10-3.13": {"3.10", "3.13"}} {
		lo, hi, err := PythonRange(cell)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("PythonRange(%q) = %q, %q, %v", cell, lo, hi, err)
		}
	}
	for _, bad := range []string{"", "three", "3.x", "9.1-9.2"} {
		if _, _, err := PythonRange(bad); err == nil {
			t.Errorf("PythonRange(%q): expected an error", bad)
		}
	}
}

func TestPipPage(t *testing.T) {
	b := read(t, "pip_ok.md")
	c, err := WindowsGPUCutoff(b)
	if err != nil || c.Version != "2.10" {
		t.Errorf("cutoff = %+v, %v", c, err)
	}
	fl, err := DriverFloors(b)
	if err != nil || len(fl) != 2 || fl[0].MinDriver != "525.60.13" || fl[0].CUDA != "12" || fl[1].MinDriver != "528.33" {
		t.Errorf("floors = %+v, %v", fl, err)
	}
	if _, err := WindowsGPUCutoff([]byte("nothing")); err == nil {
		t.Error("expected an error without the statement")
	}
	if _, err := DriverFloors([]byte("nothing")); err == nil {
		t.Error("expected an error without a driver statement")
	}
}

// snapshotFacts scrapes and normalizes the real snapshots.
func snapshotFacts(t *testing.T) ([]scraper.Record, *db.Facts) {
	t.Helper()
	dir := sourcestest.Dir(t)
	recs, err := Source{}.Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := scraper.CheckUnique(recs); err != nil {
		t.Fatal(err)
	}
	f, err := Source{}.Normalize(recs)
	if err != nil {
		t.Fatal(err)
	}
	return recs, f
}

func TestSnapshotEveryTestedRow(t *testing.T) {
	_, f := snapshotFacts(t)
	dir := sourcestest.Dir(t)
	builds := map[string]db.Build{}
	for _, b := range f.Builds {
		builds[b.Platform+"/"+b.Variant+"/"+b.Version] = b
	}
	// Every <tr><td> row of the newest Linux and Windows GPU and CPU
	// tables is a build (the macOS CPU table repeats 2.0.0 once; that
	// repeat is a conflict).
	for _, file := range []string{"source.md@7c3650212.md", "source_windows.md@7c3650212.md"} {
		b, err := os.ReadFile(filepath.Join(dir, "tensorflow", file))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := TestedBuilds(b, strings.Split(file, "@")[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Nth > 1 {
				continue
			}
			_, ver, _ := strings.Cut(r.Cells["version"], "-")
			variant := "cpu"
			if r.Device == "gpu" {
				variant, _ = cudaVariant(r.Cells["cuda"])
			}
			got, ok := builds[r.Platform+"/"+variant+"/"+ver]
			if !ok {
				t.Errorf("%s line %d: no build for %v", file, r.Line, r.Cells)
				continue
			}
			if r.Device == "gpu" && got.CUDA != r.Cells["cuda"] {
				t.Errorf("%s line %d: CUDA %q, table says %q", file, r.Line, got.CUDA, r.Cells["cuda"])
			}
		}
	}
	counts := map[string]int{}
	for _, b := range f.Builds {
		if b.Variant != "cpu" && !strings.Contains(b.Ref, "inherited") && !strings.Contains(b.Ref, "the build of the tested row of") && !strings.HasPrefix(b.Ref, pinsCSV) {
			counts[b.Platform]++
		}
	}
	if counts["linux"] != 38 || counts["windows"] != 27 || counts["macos"] != 2 {
		t.Errorf("GPU rows per platform = %v, want linux 38, windows 27, macos 2", counts)
	}
	// Patch releases TF Serving's release notes name get their minor's
	// tested builds, every platform and device (captures/).
	for _, k := range []string{"linux/cuda8/1.0.0", "linux/cuda12/2.21.0", "windows/cuda8/1.0.0", "windows/cuda11/2.10.0",
		"linux/cuda11/2.12.1", "linux/cuda11/2.10.1", "windows/cuda11/2.10.1", "linux/cuda11/2.9.3", "linux/cuda10/1.15.5", "linux/cpu/2.12.1", "macos/cpu/2.13.1"} {
		if _, ok := builds[k]; !ok {
			t.Errorf("missing build %s", k)
		}
	}
	if _, ok := builds["windows/cuda11/2.11.0"]; ok {
		t.Error("the phantom Windows GPU 2.11.0 row became a build")
	}
}

func TestSnapshotTraps(t *testing.T) {
	_, f := snapshotFacts(t)
	var cudnn215, phantom bool
	for _, c := range f.Conflicts {
		if c.Subject == "build tensorflow==2.15.0 cuda12 linux" && c.Field == "cudnn" && c.Kept == "8.9" && c.Other == "8.8" {
			cudnn215 = true
		}
		if c.Subject == "build tensorflow==2.11.0 cuda11 windows" && c.Field == "refused" {
			phantom = true
		}
	}
	if !cudnn215 || !phantom {
		t.Errorf("2.15 cuDNN correction recorded: %v; phantom 2.11 Windows row refused: %v", cudnn215, phantom)
	}
	attrs := map[string]string{}
	for _, a := range f.Attributes {
		attrs[a.Version+"/"+a.Key] = a.Value
	}
	if attrs["/windows_native_gpu_last"] != "2.10.0" || attrs["/driver_min_linux"] != "525.60.13" || attrs["/driver_min_wsl"] != "528.33" {
		t.Errorf("attributes: cutoff %q, linux driver %q, wsl driver %q", attrs["/windows_native_gpu_last"], attrs["/driver_min_linux"], attrs["/driver_min_wsl"])
	}
	reqs := map[string]string{}
	for _, r := range f.Requirements {
		reqs[r.Build.String()+"/"+r.Needs+"/"+r.Kind] = r.Spec
	}
	for k, want := range map[string]string{
		"tensorflow==2.15.0 cuda12 linux/nvidia-cudnn-cu12/pin": "==8.9.4.25",
		"tensorflow==2.15.0 cuda12 linux/driver/minimum":        ">=525.60.13",
		"tensorflow==2.10.0 cuda11 linux/driver/minimum":        ">=450.80.02",
		"tensorflow==2.20.0 cuda12 linux/nvidia-cudnn-cu12/pin": ">=9.3.0.75,<10.0",
		"tensorflow==2.14.0 cuda11 linux/nvidia-cudnn-cu11/pin": "==8.7.0.84",
		"tensorflow==2.15.1 cuda12 linux/nvidia-cudnn-cu12/pin": "==8.9.4.25",
		"tensorflow==1.12.0 cuda9 windows/cudnn/tested":         "7.2",
		"tensorflow==2.0.0 cuda10 windows/cuda/tested":          "10",
		"tensorflow==1.13.1 cuda10 linux/cudnn/tested":          "7.4",
		"tensorflow==2.21.0 cuda12 linux/cudnn/tested":          "9.3",
	} {
		if reqs[k] != want {
			t.Errorf("%s = %q, want %q", k, reqs[k], want)
		}
	}
}

// TestSnapshotFactsMatchText checks facts against the snapshot lines
// their provenance names: the cited line must hold the fact's values.
func TestSnapshotFactsMatchText(t *testing.T) {
	_, f := snapshotFacts(t)
	dir := sourcestest.Dir(t)
	lines := map[string][]string{}
	line := func(ref string) (string, bool) {
		file, rest, ok := strings.Cut(ref, " line ")
		if !ok {
			return "", false
		}
		var n int
		for _, c := range rest {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		name := file + ".md"
		if strings.HasSuffix(file, ".csv") {
			name = file
		}
		if lines[name] == nil {
			b, err := os.ReadFile(filepath.Join(dir, "tensorflow", name))
			if err != nil {
				t.Fatalf("ref %q: %v", ref, err)
			}
			lines[name] = strings.Split(string(b), "\n")
		}
		if n < 1 || n > len(lines[name]) {
			return "", false
		}
		return lines[name][n-1], true
	}
	// A patch release without a row of its own (2.12.1) inherits its
	// minor's tested row: its requirements cite that row, which names the
	// row's release.
	testedRow := map[string]string{}
	for _, a := range f.Attributes {
		if a.Key == "tested_row" {
			testedRow[a.Version] = a.Value
		}
	}
	checked := 0
	for _, r := range f.Requirements {
		if r.Kind != db.KindTested && r.Kind != db.KindPin {
			continue
		}
		named := r.Build.Version
		if base, ok := testedRow[named]; ok && r.Kind == db.KindTested {
			named = base
		}
		l, ok := line(r.Ref)
		if !ok {
			continue
		}
		want := "<td>" + r.Spec + "</td>"
		if r.Kind == db.KindPin {
			want = r.Needs + "," + r.Spec
			if strings.Contains(r.Spec, ",") {
				want = r.Needs + `,"` + r.Spec + `"`
			}
		}
		if !strings.Contains(l, want) || !strings.Contains(l, named) {
			t.Errorf("%s needs %s %s: cited line %q lacks %q", r.Build, r.Needs, r.Spec, l, want)
		}
		checked++
	}
	if checked < 25 {
		t.Errorf("checked %d facts against their text, want at least 25", checked)
	}
}

func FuzzTestedBuilds(f *testing.F) {
	for _, name := range []string{"source_ok.md", "source_moved.md", "source_garbage.md", "source_empty.md"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		rows, err := TestedBuilds(b, "source.md")
		if err != nil {
			return
		}
		var recs []scraper.Record
		for _, r := range rows {
			recs = append(recs, r.record(tableBuild, sourceMain, true))
		}
		Source{}.Normalize(recs)
		DriverFloors(b)
		WindowsGPUCutoff(b)
	})
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
