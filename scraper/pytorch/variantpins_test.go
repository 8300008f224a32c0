package pytorch

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
)

// The captured pip output of the variant wheels is read whole; that of the
// cu128 wheels of 2.7.0 and 2.7.1 becomes
// those builds' pins, each with the marker of its release's PyPI wheel.
func TestVariantPinsCapture(t *testing.T) {
	recs, err := scrapeVariantPins(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.Fields["torch_version"]+"+"+r.Fields["cuda_variant"]+" "+r.Fields["evidence_kind"]]++
	}
	if count["2.7.0+cu128 pip-log"] != 15 || count["2.7.1+cu128 pip-freeze"] != 15 || count["2.6.0+cu118 pip-log"] != 12 ||
		count["2.7.1+cu118 pip-log"] != 12 || count["2.9.0+cu126 pip-log"] != 16 || count["2.11.0+cu128 pip-log"] != 5 || len(count) != 6 {
		t.Fatalf("records per wheel: %v", count)
	}
	var cu128 []scraper.Record // the other wheels: TestVariantPinsNCCL
	for _, r := range recs {
		if r.Fields["cuda_variant"] == "cu128" && r.Fields["torch_version"] != "2.11.0" {
			cu128 = append(cu128, r)
		}
	}
	recs = cu128
	f := newFacts("pytorch-lockfiles")
	marker := map[string]string{
		"2.7.0": `platform_system == "Linux" and platform_machine == "x86_64"`,
		"2.7.1": `sys_platform == "linux" and platform_machine == "x86_64"`,
	}
	for _, r := range recs {
		variantPin(f, r, marker[r.Fields["torch_version"]], "cu126", f.prov(r.URL, r.Ref))
	}
	res := f.result()
	if len(res.Conflicts) != 0 {
		t.Fatalf("refused: %+v", res.Conflicts)
	}
	want := map[string]string{ // build|package → spec
		"2.7.0|nvidia-cudnn-cu12": "==9.7.1.26", "2.7.0|nvidia-nccl-cu12": "==2.26.2", "2.7.0|triton": "==3.3.0",
		"2.7.0|nvidia-cuda-runtime-cu12": "==12.8.57", "2.7.1|nvidia-cudnn-cu12": "==9.7.1.26",
		"2.7.1|nvidia-nccl-cu12": "==2.26.2", "2.7.1|triton": "==3.3.1", "2.7.0|cudnn": "9.7.1.26", "2.7.1|nccl": "2.26.2",
	}
	got := map[string]string{}
	for _, q := range res.Requirements {
		if q.Build.Variant != "cu128" || q.Build.Platform != "linux" {
			t.Errorf("pin on build %s", q.Build)
		}
		if q.Marker != normMarker(marker[q.Build.Version]) {
			t.Errorf("%s %s: marker %q", q.Build, q.Needs, q.Marker)
		}
		got[q.Build.Version+"|"+q.Needs] = q.Spec
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	for _, b := range res.Builds {
		if b.IsDefault || b.PipVersion != b.Version+"+cu128" || b.IndexURL != "https://download.pytorch.org/whl/cu128" {
			t.Errorf("build %s: default %v pip %q index %q", b.Key(), b.IsDefault, b.PipVersion, b.IndexURL)
		}
	}
	if len(res.Builds) != 2 {
		t.Errorf("%d builds, want 2", len(res.Builds))
	}
}

// Rows that cannot stand are refused, naming why.
func TestVariantPinRefusals(t *testing.T) {
	rec := func(ver, variant, pkg, pinned string) scraper.Record {
		return variantPinRecord(ver, variant, pkg, pinned, "pip-log", "x", 1)
	}
	m := `platform_system == "Linux"`
	for name, c := range map[string]struct {
		r            scraper.Record
		marker, pypi string
		why          string
	}{
		"PyPI's own variant": {rec("2.7.0", "cu126", "nvidia-cudnn-cu12", "9.5.1.17"), m, "cu126", "is PyPI's"},
		"no release marker":  {rec("2.7.0", "cu128", "nvidia-cudnn-cu12", "9.7.1.26"), "", "cu126", "no environment marker"},
		"runtime of another": {rec("2.7.0", "cu128", "nvidia-cuda-runtime-cu12", "12.6.77"), m, "cu126", "not the cu128"},
		"not a release":      {rec("2.7.0.dev", "cu128", "triton", "3.3.0"), m, "cu126", "not a release"},
	} {
		f := newFacts("pytorch-lockfiles")
		variantPin(f, c.r, c.marker, c.pypi, f.prov("u", "x"))
		res := f.result()
		if len(res.Requirements) != 0 || len(res.Conflicts) != 1 || res.Conflicts[0].Field != "refused" || !strings.Contains(res.Conflicts[0].Note, c.why) {
			t.Errorf("%s: reqs %d refusals %+v", name, len(res.Requirements), res.Conflicts)
		}
	}
}

func TestParsePipLogPinsSad(t *testing.T) {
	const torch = "Requirement already satisfied: torch in /x (from a) (2.7.0+cu128)\n"
	for name, src := range map[string]string{
		"empty":             "",
		"pin before torch":  "Requirement already satisfied: triton==3.3.0 in /x (from torch->a) (3.3.0)\n" + torch,
		"installed differs": torch + "Requirement already satisfied: triton==3.3.0 in /x (from torch->a) (3.3.1)\n",
		"two torches": torch + "Requirement already satisfied: torch in /x (from a) (2.7.1+cu128)\n" +
			"Requirement already satisfied: triton==3.3.0 in /x (from torch->a) (3.3.0)\n",
		"only ranges": torch + "Requirement already satisfied: sympy>=1.13.3 in /x (from torch->a) (1.14.0)\n",
		"cpu torch":   "Requirement already satisfied: torch in /x (from a) (2.7.0+cpu)\nRequirement already satisfied: triton==3.3.0 in /x (from torch->a) (3.3.0)\n",
	} {
		if recs, err := parsePipLogPins([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, %d records", name, len(recs))
		}
	}
	// Requirements of something else than torch are not its pins.
	recs, err := parsePipLogPins([]byte(torch+
		"Requirement already satisfied: nvidia-nccl-cu12==2.26.2 in /x (from torch->a) (2.26.2)\n"+
		"Requirement already satisfied: nvidia-cublas-cu12==12.8.3.14 in /x (from nvidia-cudnn-cu12->torch->a) (12.8.3.14)\n"), "x")
	if err != nil || len(recs) != 1 || recs[0].Fields["package"] != "nvidia-nccl-cu12" {
		t.Errorf("%+v %v", recs, err)
	}
}

func TestParseFreezePinsSad(t *testing.T) {
	for name, src := range map[string]string{
		"empty":       "",
		"no torch":    "nvidia-nccl-cu12==2.26.2\n",
		"cpu torch":   "torch==2.7.1+cpu\nnvidia-nccl-cu12==2.26.2\n",
		"plain torch": "torch==2.7.1\nnvidia-nccl-cu12==2.26.2\n",
		"two torches": "torch==2.7.1+cu128\ntorch==2.7.0+cu128\nnvidia-nccl-cu12==2.26.2\n",
		"no pins":     "torch==2.7.1+cu128\nnumpy==2.1.2\n",
	} {
		if recs, err := parseFreezePins([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, %d records", name, len(recs))
		}
	}
}

func FuzzParseVariantPins(f *testing.F) {
	for _, name := range []string{"pip-log@torch-2.7.0-cu128.md", "pip-freeze@jllama-py-a1fa1376.md", "pip-log@torch-2.9.0-cu126.md"} {
		b, err := captures.ReadFile("captures/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, parse := range []func([]byte, string) ([]scraper.Record, error){parsePipLogPins, parseFreezePins} {
			recs, err := parse([]byte(src), "fuzz")
			if err != nil {
				continue
			}
			for _, r := range recs {
				if !reRelease().MatchString(r.Fields["torch_version"]) || !strings.HasPrefix(r.Fields["cuda_variant"], "cu") ||
					!wheelDependency(r.Fields["package"]) || r.Fields["pinned_version"] == "" {
					t.Fatalf("record %+v", r.Fields)
				}
				fs := newFacts("pytorch-lockfiles")
				variantPin(fs, r, `platform_system == "Linux"`, "cu126", fs.prov("u", r.Ref))
				if res := fs.result(); len(res.Requirements)+len(res.Conflicts) == 0 {
					t.Fatalf("record %+v neither pinned nor refused", r.Fields)
				}
			}
		}
	})
}

// pip's listing of the installed 2.6.0+cu118, 2.7.1+cu118 and 2.9.0+cu126
// wheels' own requirements (a terminal, a Colab output cell, a notebook's
// JSON) gives those builds their NCCL and cuDNN pins: the wheel's
// Requires-Dist, which no release table of the data states.
func TestVariantPinsNCCL(t *testing.T) {
	want := map[string]struct{ pypi, nccl, cudnn, ncclPkg string }{
		"pip-log@torch-2.6.0-cu118.md": {"cu124", "2.21.5", "9.1.0.70", "nvidia-nccl-cu11"},
		"pip-log@torch-2.7.1-cu118.md": {"cu126", "2.21.5", "9.1.0.70", "nvidia-nccl-cu11"},
		"pip-log@torch-2.9.0-cu126.md": {"cu128", "2.27.5", "9.10.2.21", "nvidia-nccl-cu12"},
	}
	for capture, w := range want {
		recs, err := parsePipLogPins(readCapture(t, capture), strings.TrimSuffix(capture, ".md"))
		if err != nil {
			t.Fatalf("%s: %v", capture, err)
		}
		f := newFacts("pytorch-lockfiles")
		for _, r := range recs {
			variantPin(f, r, `platform_system == "Linux" and platform_machine == "x86_64"`, w.pypi, f.prov(r.URL, r.Ref))
		}
		res := f.result()
		if len(res.Conflicts) != 0 {
			t.Fatalf("%s: refused %+v", capture, res.Conflicts)
		}
		got := map[string]string{}
		for _, q := range res.Requirements {
			got[q.Needs] = q.Spec
		}
		if got["nccl"] != w.nccl || got[w.ncclPkg] != "=="+w.nccl || got["cudnn"] != w.cudnn {
			t.Errorf("%s: nccl %q (%s %q), cudnn %q", capture, got["nccl"], w.ncclPkg, got[w.ncclPkg], got["cudnn"])
		}
	}
}

// The two shapes of a published pip line that the captures hold: a torch
// line with no "(from …)" (pip re-run over an installed torch), and a
// notebook output line kept as a JSON string.
func TestParsePipLogShapes(t *testing.T) {
	src := `            "Requirement already satisfied: torch in /usr/lib/python3/dist-packages (2.9.0+cu126)\n",` + "\n" +
		`            "Requirement already satisfied: nvidia-nccl-cu12==2.27.5 in /usr/lib/python3/dist-packages (from torch) (2.27.5)\n",` + "\n"
	recs, err := parsePipLogPins([]byte(src), "x")
	if err != nil || len(recs) != 1 || recs[0].Fields["torch_version"] != "2.9.0" || recs[0].Fields["cuda_variant"] != "cu126" ||
		recs[0].Fields["package"] != "nvidia-nccl-cu12" || recs[0].Fields["pinned_version"] != "2.27.5" {
		t.Fatalf("notebook lines: %+v, %v", recs, err)
	}
	bad := "Requirement already satisfied: torch in /x (2.9.0+cu126)\nRequirement already satisfied: nvidia-nccl-cu12==2.27.5 in /x (from torch) (2.27.3)\n"
	if _, err := parsePipLogPins([]byte(bad), "x"); err == nil {
		t.Error("an installed version other than the pin: no error")
	}
}
