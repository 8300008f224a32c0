package report

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

type golden struct {
	Formats []string       `json:"formats,omitempty"`
	Facts   *host.Snapshot `json:"facts,omitempty"`
	Error   string         `json:"error,omitempty"`
}

func reportFixtures(t testing.TB) []string {
	var out []string
	for _, pat := range []string{"testdata/*.txt", "testdata/probe.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

// TestParseGoldens: every fixture parses to exactly its golden facts and
// detected formats (testdata/<name>.golden.json; -update rewrites them).
func TestParseGoldens(t *testing.T) {
	fixtures := reportFixtures(t)
	if len(fixtures) < 15 {
		t.Fatalf("want at least 15 report fixtures, have %d", len(fixtures))
	}
	for _, fx := range fixtures {
		name := strings.TrimSuffix(filepath.Base(fx), filepath.Ext(fx))
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			facts, formats, err := Parse(text)
			g := golden{Formats: formats, Facts: facts}
			if err != nil {
				g.Error = err.Error()
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			var w, gg any
			json.Unmarshal(want, &w)
			json.Unmarshal(got, &gg)
			if d := cmp.Diff(w, gg); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseTorchVersionPy(t *testing.T) {
	for _, tc := range []struct{ text, v, cuda string }{
		{"__version__ = '2.7.1+cu126'\ndebug = False\ncuda: Optional[str] = '12.6'\n", "2.7.1+cu126", "12.6"},
		{"__version__ = '1.7.0'\ndebug = False\ncuda = '10.2'\n", "1.7.0", "10.2"},
		{"__version__ = '2.1.0+cpu'\ncuda: Optional[str] = None\n", "2.1.0+cpu", ""},
	} {
		v, cuda, ok := ParseTorchVersionPy([]byte(tc.text))
		if !ok || v != tc.v || cuda != tc.cuda {
			t.Errorf("ParseTorchVersionPy(%q) = %q %q %v, want %q %q", tc.text, v, cuda, ok, tc.v, tc.cuda)
		}
	}
}

func TestParseProcVersion(t *testing.T) {
	for _, tc := range []struct{ text, v, mod string }{
		{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.144.03  Release Build  (dvs-builder@U16)  Mon Dec 30 17:26:13 UTC 2024\nGCC version:  gcc version 12.3.0\n", "550.144.03", "open"},
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n", "550.90.07", "proprietary"},
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module  375.74  Wed Jun 14 01:39:39 PDT 2017", "375.74", "proprietary"},
	} {
		v, mod, ok := ParseProcVersion([]byte(tc.text))
		if !ok || v != tc.v || mod != tc.mod {
			t.Errorf("ParseProcVersion(%q) = %q %q %v", tc.text, v, mod, ok)
		}
	}
}

func TestParseBannerVariants(t *testing.T) {
	for _, tc := range []struct{ line, driver, cuda string }{
		{"| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |", "535.129.03", "12.2"},
		{"| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |", "610.43.02", "13.3"},
		{"| NVIDIA-SMI 470.256.02   Driver Version: 580.95.05    CUDA Version: 13.0     |", "580.95.05", "13.0"},
		{"| NVIDIA-SMI 340.108    Driver Version: 340.108        |", "340.108", ""},
	} {
		b, ok := ParseBanner([]byte(tc.line))
		if !ok || b.Driver != tc.driver || b.CUDA != tc.cuda {
			t.Errorf("ParseBanner(%q) = %+v %v", tc.line, b, ok)
		}
	}
}

func TestCUDNNHeader(t *testing.T) {
	h := "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 0\n#define CUDNN_PATCHLEVEL 0\n--\n#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n"
	v, major, ok := ParseCUDNNHeader([]byte(h))
	if !ok || v != "9.0.0" || major != 9 {
		t.Errorf("got %q %d %v", v, major, ok)
	}
}

// fuzzOne checks the contract every parser keeps: no panic, and a result
// that serialises to JSON.
func fuzzOne(t *testing.T, b []byte) {
	if len(b) > maxFuzzInput {
		return
	}
	f, _, err := Parse(b)
	if err == nil {
		if _, jerr := json.Marshal(f); jerr != nil {
			t.Fatalf("parse result does not serialise: %v", jerr)
		}
	}
}

func seed(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err == nil {
			f.Add(b)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, fx := range reportFixtures(f) {
		b, _ := os.ReadFile(fx)
		f.Add(b)
	}
	f.Fuzz(fuzzOne)
}

func FuzzCollectEnv(f *testing.F) {
	seed(f, "collect_env_new.txt", "collect_env_old.txt", "collect_env_cpu.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		p := &parser{lines: lines(b), text: b}
		p.collectEnv()
		fuzzOne(t, b)
	})
}

func FuzzNvidiaSMI(f *testing.F) {
	seed(f, "smi_banner.txt", "smi_banner_r610.txt", "smi_q.txt", "smi_csv_header.txt", "smi_csv_noheader.txt", "smi_l.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		ParseBanner(b)
		ParseSMIQuery(b)
		ParseQueryCSV(b, nil)
		ParseQueryCSV(b, []string{"index", "name", "compute_cap"})
		ParseProcVersion(b)
		ParseNvcc(b)
	})
}

func FuzzPackages(f *testing.F) {
	seed(f, "pip_list.txt", "pip_freeze.txt", "conda_list.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		p := &parser{lines: lines(b), text: b}
		p.packages()
		ParseMetadata(b)
		fuzzOne(t, b)
	})
}

func FuzzBuildFiles(f *testing.F) {
	seed(f, "tf_build_info.txt", "tf_build_info_dict.txt")
	f.Add([]byte("__version__ = '2.1.0+cu121'\ncuda: Optional[str] = '12.1'\n"))
	f.Add([]byte("#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		ParseTFBuildInfo(b)
		ParseTorchVersionPy(b)
		ParseCUDNNHeader(b)
		host.NormalizeCUDNN(string(b))
	})
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10

func TestWSLBanner(t *testing.T) {
	for _, tc := range []struct {
		smi, driver string
		want        bool
	}{
		{"510.73.05", "516.94", true},      // the WSL2 shim over a Windows driver
		{"470.256.02", "580.95.05", false}, // a snap-bundled old nvidia-smi
		{"535.129.03", "535.129.03", false},
		{"", "516.94", false},
	} {
		if got := wslBanner(tc.smi, tc.driver); got != tc.want {
			t.Errorf("wslBanner(%q, %q) = %v", tc.smi, tc.driver, got)
		}
	}
}

func TestTorchConfigCUDNN(t *testing.T) {
	for in, want := range map[string]string{"91.9": "9.19.0", "90.1": "9.1.0", "91.9.1": "9.19.1", "8.9.2": "8.9.2", "x": ""} {
		if got := torchConfigCUDNN(in); got != want {
			t.Errorf("torchConfigCUDNN(%q) = %q, want %q", in, got, want)
		}
	}
}
