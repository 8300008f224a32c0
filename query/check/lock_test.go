package check

import (
	"slices"
	"testing"

	"github.com/cudb/cudb/query/findings"
)

// TestLockAlternativesByIndex: mkv-episode-matcher's uv.lock (its cpu and
// cu124 extras declared as conflicts) locks torch four times. The entry
// for aarch64 and macOS is not Linux x86-64's; the cu124 index's, PyPI's
// and the cpu index's are, each under a marker that joins platform and
// Python clauses with `or`. Each index's builds are one alternative,
// judged on its own: the CPU one is the file's choice (an info), not a
// build missing its CUDA variant.
func TestLockAlternativesByIndex(t *testing.T) {
	u, err := ParseLock("uv.lock", read(t, "real/mkv-episode-matcher/uv.lock"), KindUVLock)
	if err != nil {
		t.Fatal(err)
	}
	var torch []string
	for _, r := range u.Reqs {
		if r.Name == "torch" {
			torch = append(torch, r.Spec+" @"+itoa(r.Line)+" "+r.IndexURL)
		}
	}
	want := []string{"==2.5.1 @15 https://download.pytorch.org/whl/cu124", "==2.5.1 @28 ", "==2.5.1+cpu @38 https://download.pytorch.org/whl/cpu"}
	if !slices.Equal(torch, want) {
		t.Errorf("torch entries for Linux x86-64:\n%q\nwant\n%q", torch, want)
	}

	rep := checkFile(t, "real/mkv-episode-matcher/uv.lock", Options{Target: Target{Driver: "550.54.15", GPU: "RTX 4090"}})
	var read []string
	for _, b := range rep.Read.Frameworks {
		if b.Scenario != "" {
			read = append(read, b.Scenario+" @"+itoa(b.Line))
		}
	}
	if want := []string{"index cu124 @15", "index PyPI @28", "index cpu @38"}; !slices.Equal(read, want) {
		t.Errorf("alternatives read %q, want %q", read, want)
	}
	cpu := false
	for _, f := range rep.Findings {
		if f.Severity == findings.SevError {
			t.Errorf("error on a lock whose every alternative installs: %s", f)
		}
		cpu = cpu || f.Line == 38 && f.Category == findings.CatCPUOnlyWheel && f.Severity == findings.SevInfo
	}
	if !cpu {
		t.Errorf("no cpu_only_wheel info for the cpu alternative: %v", rep.Findings)
	}
}
