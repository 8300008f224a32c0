package app

import (
	"encoding/json"
	"strings"
	"testing"
)

// The commands quoted in issue 12 ("answers you can act on"), run through
// the command tree on the embedded data: each gives the corrected answer.

type trustCase struct {
	name    string
	args    []string
	tty     bool
	code    int
	want    []string // substrings of stdout+stderr
	notWant []string
}

func runTrust(t *testing.T, cases []trustCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, tc.tty, tc.args...)
			all := out + stderr
			if code != tc.code {
				t.Fatalf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("%v: output lacks %q:\n%s", tc.args, w, all)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(all, w) {
					t.Errorf("%v: output has %q:\n%s", tc.args, w, all)
				}
			}
		})
	}
}

func TestIssue12Resolve(t *testing.T) {
	runTrust(t, []trustCase{
		// torch 2.11's cuDNN is not in the data: no agreement is claimed.
		{"missing cudnn is no agreement", []string{"resolve", "torch==2.5", "tensorflow==2.18"}, false, ExitIncompatible,
			[]string{"nvidia-cudnn-cu12==9.1.0.70", "nvidia-cudnn-cu12==9.3.0.75"},
			[]string{"torch==2.11.0 tensorflow==2.18.0", "would agree: torch==2.5.0 tensorflow==2.21.0"}},
		// TensorFlow 2.21 needs libcudnn.so.9 >= 9.3; torch 2.5.0 pins 9.1.0.70.
		{"system cudnn minimum", []string{"resolve", "torch==2.5.0", "tensorflow==2.21.0"}, false, ExitIncompatible,
			[]string{"conflict (cudnn)", "pins cuDNN 9.1.0.70", "needs cuDNN >=9.3,<10", "libcudnn.so.9"}, nil},
		// CUDA 13 dropped Pascal.
		{"gpu on cuda target", []string{"resolve", "cuda==13.0", "--gpu", "GTX 1080"}, false, ExitIncompatible,
			[]string{"GTX 1080", "compute capability 6.1", "CUDA 13.0 compiles for sm_75 and newer", "Pascal"}, nil},
		{"sm on cudnn target", []string{"resolve", "cudnn==9.10", "--sm", "3.5"}, false, ExitIncompatible,
			[]string{"no cuDNN release matching ==9.10 supports compute capability 3.5"}, nil},
		{"cuda target keeps a GPU it supports", []string{"resolve", "cuda==12.4", "--gpu", "GTX 1080"}, false, ExitOK,
			[]string{"12.4.1\tCUDA 12.4 Update 1\t550.54.15"}, nil},
		// Tables, not raw JSON, on a terminal.
		{"cuda table on a tty", []string{"resolve", "cuda==12.4"}, true, ExitOK,
			[]string{"LINUX MIN", "12.4.1", "550.54.15"}, []string{"{", "\"cuda\":"}},
		{"cudnn table on a tty", []string{"resolve", "cudnn==9.1.0"}, true, ExitOK,
			[]string{"CUDA VERSIONS", "9.1.0"}, []string{"{", "\"cudnn\":"}},
		{"tensorflow best installs and-cuda", []string{"resolve", "tensorflow==2.16.1"}, true, ExitOK,
			[]string{"best: pip install \"tensorflow[and-cuda]==2.16.1\""}, nil},
		{"jax best installs the plugin and its pjrt", []string{"resolve", "jax==0.4.30"}, true, ExitOK,
			[]string{"best: pip install jax==0.4.30 jaxlib==0.4.30 jax-cuda12-pjrt==0.4.30 jax-cuda12-plugin==0.4.30"}, nil},
		// Builds with no arch list stay, as unknown, below the known-good.
		// (2.14.x cu126, the newest Pascal wheel, pins nvidia-* wheels the
		// data lacks: unknown too, so 2.13.0 cu126 is the best.)
		{"gpu keeps unknown arch lists", []string{"resolve", "torch", "--gpu", "GTX 1080"}, true, ExitOK,
			[]string{"best: pip install torch==2.13.0+cu126", "known-good stack(s) come first",
				"unknown: torch 2.7.1 cu118: GPU architecture list not in the data", "STATUS"}, nil},
	})
}

func TestIssue12ResolveJSONStatus(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "torch", "--gpu", "RTX 5090", "--driver", "570.86.10", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Status  string   `json:"status"`
		Unknown []string `json:"unknown"`
		Stacks  []struct {
			Status   string            `json:"status"`
			Unknown  []string          `json:"unknown"`
			Packages map[string]string `json:"packages"`
			GPU      struct{ Support string }
		} `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) == 0 || res.Status != "ok" || res.Unknown == nil {
		t.Fatalf("status %q unknown %v, %d stacks", res.Status, res.Unknown, len(res.Stacks))
	}
	seenUnknown, has210 := false, false
	for _, s := range res.Stacks {
		switch s.Status {
		case "ok":
			if seenUnknown {
				t.Errorf("known-good %v ranked below an unknown stack", s.Packages)
			}
			if len(s.Unknown) != 0 {
				t.Errorf("ok stack %v names gaps %v", s.Packages, s.Unknown)
			}
		case "unknown":
			seenUnknown = true
			if len(s.Unknown) == 0 {
				t.Errorf("unknown stack %v names no gap", s.Packages)
			}
		default:
			t.Errorf("stack status %q", s.Status)
		}
		if strings.HasPrefix(s.Packages["torch"], "2.10.0") {
			has210 = true
		}
	}
	// torch 2.10's arch list is not in the data: it is shown, not dropped.
	if !seenUnknown || !has210 {
		t.Errorf("unknown stacks %v, torch 2.10 shown %v", seenUnknown, has210)
	}
}

func TestIssue12Pin(t *testing.T) {
	runTrust(t, []trustCase{
		// torch 2.4.0's cu124 wheel pins nvidia-* wheels the data does not hold.
		{"pins not in the data refused", []string{"pin", "torch==2.4.0", "--cuda", "12.4"}, false, ExitNoMatch,
			[]string{"cannot vouch for", "torch 2.4.0 cu124: the wheel's nvidia-* requirements (Requires-Dist pins) are not in the data", "--allow-unknown"}, nil},
		{"allow unknown writes the gap", []string{"pin", "torch==2.4.0", "--cuda", "12.4", "--allow-unknown"}, false, ExitOK,
			[]string{"# UNKNOWN (written with --allow-unknown): torch 2.4.0 cu124: the wheel's nvidia-* requirements (Requires-Dist pins) are not in the data", "torch==2.4.0+cu124"}, nil},
		// The pytorch channel's last release is named, from the data.
		{"conda after the pytorch channel", []string{"pin", "torch==2.6.0", "--format", "conda"}, false, ExitNoMatch,
			[]string{"was not published to the conda channels", "torch releases with conda builds in the data go up to 2.5.1"}, nil},
		{"jax pins its CUDA plugin and pjrt", []string{"pin", "jax==0.4.30"}, false, ExitOK,
			[]string{"\njax==0.4.30\njax-cuda12-pjrt==0.4.30\njax-cuda12-plugin==0.4.30\njaxlib==0.4.30\n", "nvidia-cudnn-cu12>=9.0,<10.0",
				"# source: jax https://github.com/jax-ml/jax/blob/jax-v0.4.30/jax_plugins/cuda/plugin_setup.py#L53"}, nil},
		// Every Linux-only pin keeps its marker; the Windows file carries
		// none of them unmarked.
		{"linux pins keep markers", []string{"pin", "torch==2.1", "--cuda", "12.1"}, false, ExitOK,
			[]string{"nvidia-cusparse-cu12==12.1.0.106; platform_system == \"Linux\"", "nvidia-nccl-cu12==2.18.1; platform_system == \"Linux\"",
				"nvidia-nvtx-cu12==12.1.105; platform_system == \"Linux\"", "triton==2.1.0; platform_system == \"Linux\""},
			[]string{"triton==2.1.0\n", "nvidia-nccl-cu12==2.18.1\n"}},
		{"windows installs no Linux-only pin", []string{"pin", "torch==2.1", "--cuda", "12.1", "--platform", "windows"}, false, ExitOK,
			[]string{"torch==2.1.0+cu121"}, []string{"triton==2.1.0\n", "nvidia-nccl-cu12==2.18.1\n", "nvidia-cusparse-cu12==12.1.0.106\n", "nvidia-nvtx-cu12==12.1.105\n"}},
		// Every onnxruntime-gpu build now has its cuDNN (the wheels' [cudnn]
		// extra from 1.21); 1.28.0's CUDA 12 build is still refused: PyPI
		// serves the CUDA 13 one, and the feed of this one is not known.
		{"non-default build without its index refused", []string{"pin", "onnxruntime-gpu==1.28.0", "--cuda", "12"}, false, ExitNoMatch,
			[]string{"onnxruntime-gpu 1.28.0 cuda12: PyPI serves another of its CUDA builds, and the package index of this one is not in the data", "Try: cudb pin onnxruntime-gpu==1.28.0 --cuda 12 --format requirements --allow-unknown"}, nil},
		// (torch 2.11.0 cu128's cuDNN is now in the data, from RELEASE.md,
		// and the cu102 wheels up to 1.12 have theirs from builder's release
		// branches; 1.7.0 cu110's is left out on purpose: builder changed it
		// two weeks before the release.)
		{"missing torch cudnn refused", []string{"pin", "torch==1.7.0", "--cuda", "11.0"}, false, ExitNoMatch,
			[]string{"torch 1.7.0 cu110: cuDNN not in the data", "Try: cudb pin torch==1.7.0 --cuda 11.0 --format requirements --allow-unknown"}, nil},
	})
}

func TestIssue12DBCheckListsDevSnapshot(t *testing.T) {
	code, out, stderr := run(t, false, "db", "check")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "2.7.0.dev (main)|cu128|nvidia-cudnn-cu12") {
			line = l
		}
	}
	for _, w := range []string{"9.8.0.87", "development snapshot", "2.7.0: 9.7.1.26"} {
		if !strings.Contains(line, w) {
			t.Errorf("db check line lacks %q: %q", w, line)
		}
	}
}

// A node whose driver is loaded but sees no GPU has lost it: an error,
// unless the host is declared GPU-less.
func TestIssue12NoGPUVisible(t *testing.T) {
	host := useHost(t, "no-gpu")
	code, out, stderr := run(t, false, append([]string{"verify", "--json"}, host...)...)
	if code != ExitIncompatible {
		t.Fatalf("exit %d, want 3: %s %s", code, out, stderr)
	}
	var r struct {
		Summary  struct{ Healthy bool }
		Findings []struct {
			Category, Severity, Status string
			Unknown                    []string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Healthy || len(r.Findings) != 1 || r.Findings[0].Category != "no_gpu_visible" || r.Findings[0].Severity != "error" ||
		r.Findings[0].Status != "incompatible" || r.Findings[0].Unknown == nil {
		t.Errorf("report = %+v", r)
	}
	code, out, stderr = run(t, false, append([]string{"verify", "--no-gpu-ok"}, host...)...)
	if code != ExitOK || !strings.HasPrefix(out, "healthy") {
		t.Errorf("--no-gpu-ok: exit %d %s %s", code, out, stderr)
	}
	code, out, _ = run(t, false, append([]string{"verify", "--format", "prometheus"}, host...)...)
	if code != ExitIncompatible || !strings.Contains(out, "cudb_verify_healthy 0") {
		t.Errorf("prometheus: exit %d\n%s", code, out)
	}
	code, _, stderr = run(t, false, append([]string{"verify", "--expect-gpu", "--no-gpu-ok"}, host...)...)
	if code != ExitUsage || !strings.Contains(stderr, "not both") {
		t.Errorf("both flags: exit %d %s", code, stderr)
	}
}

// torch 2.7.x+cu128: the main-branch snapshot's pins (cuDNN 9.8.0.87,
// NCCL 2.25.1) are never written; the file carries the released wheel's
// pins (cuDNN 9.7.1.26, NCCL 2.26.2) and exits 0.
func TestIssue12Torch27CU128(t *testing.T) {
	// The cu128 wheels' own pins, as published installs of each exact
	// local version show them (scraper/pytorch/captures): 2.7.0+cu128 from
	// pip's listing of the installed wheel's requirements, 2.7.1+cu128
	// from a pip freeze. The markers are the ones each release's PyPI
	// wheel states in the data.
	bundle := func(marker, triton string) string {
		var b strings.Builder
		for _, p := range []string{"nvidia-cublas-cu12==12.8.3.14", "nvidia-cuda-cupti-cu12==12.8.57",
			"nvidia-cuda-nvrtc-cu12==12.8.61", "nvidia-cuda-runtime-cu12==12.8.57", "nvidia-cudnn-cu12==9.7.1.26",
			"nvidia-cufft-cu12==11.3.3.41", "nvidia-cufile-cu12==1.13.0.11", "nvidia-curand-cu12==10.3.9.55",
			"nvidia-cusolver-cu12==11.7.2.55", "nvidia-cusparse-cu12==12.5.7.53", "nvidia-cusparselt-cu12==0.6.3",
			"nvidia-nccl-cu12==2.26.2", "nvidia-nvjitlink-cu12==12.8.61", "nvidia-nvtx-cu12==12.8.55", triton} {
			b.WriteString(p + "; " + marker + "\n")
		}
		return b.String()
	}
	for _, c := range []struct{ v, vision, marker, triton string }{
		{"2.7.0", "0.22.0", `platform_system == "Linux" and platform_machine == "x86_64"`, "triton==3.3.0"},
		{"2.7.1", "0.22.1", `sys_platform == "linux" and platform_machine == "x86_64"`, "triton==3.3.1"},
	} {
		code, out, stderr := run(t, false, "pin", "torch=="+c.v, "--cuda", "12.8")
		all := out + stderr
		if code != ExitOK {
			t.Fatalf("torch %s: exit %d: %s", c.v, code, all)
		}
		for _, bad := range []string{"9.8.0.87", "2.25.1"} {
			if strings.Contains(all, bad) {
				t.Errorf("torch %s: writes the dev snapshot's %s", c.v, bad)
			}
		}
		want := "--index-url https://download.pytorch.org/whl/cu128\ntorch==" + c.v + "+cu128\ntorchaudio==" + c.v +
			"\ntorchvision==" + c.vision + "\n" + bundle(c.marker, c.triton)
		if !strings.HasSuffix(out, want) {
			t.Errorf("torch %s: pins are not the cu128 wheel's:\n%s\nwant the file to end with:\n%s", c.v, out, want)
		}
		if !strings.Contains(out, "# variant cu128; CUDA 12.8; cuDNN 9.7.1.26 (pin); NCCL 2.26.2;") {
			t.Errorf("torch %s: header does not name the wheel's cuDNN and NCCL:\n%s", c.v, out)
		}
	}
}

const ortFeed12 = "https://aiinfra.pkgs.visualstudio.com/PublicPackages/_packaging/onnxruntime-cuda-12/pypi/simple/"

// ONNX Runtime 1.17–1.18.x: PyPI serves the CUDA 11.8 build; the CUDA 12
// build comes from ONNX Runtime's own feed, read before PyPI so that its
// wheel wins over PyPI's same-numbered CUDA 11.8 one. From 1.19 PyPI
// serves CUDA 12, and a CUDA 11.8 build without a known index is refused.
func TestIssue12ONNXRuntimeFeed(t *testing.T) {
	runTrust(t, []trustCase{
		{"pin 1.18.0 cuda 12 from the feed", []string{"pin", "onnxruntime-gpu==1.18.0", "--cuda", "12"}, false, ExitOK,
			[]string{"# variant cuda12; CUDA 12; cuDNN 8 (tested)", "\n--index-url " + ortFeed12 + "\n--extra-index-url https://pypi.org/simple\nonnxruntime-gpu==1.18.0\n"},
			[]string{"UNKNOWN"}},
		{"pip command", []string{"pin", "onnxruntime-gpu==1.18.0", "--cuda", "12", "--format", "pip"}, false, ExitOK,
			[]string{"pip install onnxruntime-gpu==1.18.0 --index-url " + ortFeed12 + " --extra-index-url https://pypi.org/simple\n"}, nil},
		{"uv maps the package to the feed", []string{"pin", "onnxruntime-gpu==1.18.1", "--cuda", "12", "--format", "uv"}, false, ExitOK,
			[]string{"[[tool.uv.index]]\nname = \"onnxruntime-gpu-onnxruntime-cuda-12\"\nurl = \"" + ortFeed12 + "\"\nexplicit = true",
				"[tool.uv.sources]\nonnxruntime-gpu = { index = \"onnxruntime-gpu-onnxruntime-cuda-12\" }"}, nil},
		{"docker installs from the feed", []string{"pin", "onnxruntime-gpu==1.17.0", "--cuda", "12", "--format", "docker"}, false, ExitOK,
			[]string{"pip install --no-cache-dir onnxruntime-gpu==1.17.0 --index-url " + ortFeed12 + " --extra-index-url https://pypi.org/simple"}, nil},
		{"plain pin is PyPI's CUDA 11.8 build", []string{"pin", "onnxruntime-gpu==1.18.0"}, false, ExitOK,
			[]string{"# variant cuda11; CUDA 11.8", "\nonnxruntime-gpu==1.18.0\n"}, []string{"index-url"}},
		{"resolve marks the PyPI default", []string{"resolve", "onnxruntime-gpu==1.18.0"}, false, ExitOK,
			[]string{"onnxruntime-gpu==1.18.0\tcuda11\tyes\t11.8", "onnxruntime-gpu==1.18.0\tcuda12\tno\t12", "# best: pip install onnxruntime-gpu==1.18.0\n"},
			[]string{"unknown"}},
		{"best on cuda 12 uses the feed", []string{"resolve", "onnxruntime-gpu==1.18.0", "--cuda", "12"}, false, ExitOK,
			[]string{"# best: pip install onnxruntime-gpu==1.18.0 --index-url " + ortFeed12 + " --extra-index-url https://pypi.org/simple"}, nil},
		{"1.19 default is CUDA 12", []string{"resolve", "onnxruntime-gpu==1.19.0"}, false, ExitOK,
			[]string{"onnxruntime-gpu==1.19.0\tcuda12\tyes\t12", "# best: pip install onnxruntime-gpu==1.19.0\n"}, nil},
		{"1.19 cuda 11.8 has no known index", []string{"pin", "onnxruntime-gpu==1.19.0", "--cuda", "11"}, false, ExitNoMatch,
			[]string{"onnxruntime-gpu 1.19.0 cuda11: PyPI serves another of its CUDA builds, and the package index of this one is not in the data"}, nil},
	})
}

// Every framework marks the build plain pip installs where the data says
// which it is: resolve's default column.
func TestIssue12PyPIDefaultMarked(t *testing.T) {
	for _, c := range []struct{ req, row string }{
		{"torch==2.5.0", "torch==2.5.0+cu124 torchaudio==2.5.0 torchvision==0.20.0\tcu124\tyes"},
		{"onnxruntime-gpu==1.17.0", "onnxruntime-gpu==1.17.0\tcuda11\tyes"},
		{"onnxruntime-gpu==1.20.0", "onnxruntime-gpu==1.20.0\tcuda12\tyes"},
		{"tensorflow==2.15.0", "tensorflow==2.15.0\tcuda12\tyes"},
		{"tensorflow==2.10.0", "tensorflow_gpu==2.10.0\tcuda11\tyes"},
	} {
		code, out, stderr := run(t, false, "resolve", c.req)
		if code != ExitOK || !strings.Contains(out, c.row) {
			t.Errorf("resolve %s: exit %d, lacks %q:\n%s%s", c.req, code, c.row, out, stderr)
		}
	}
}

// Every JAX release × CUDA variant in the data: the pin installs it one
// way only — the monolithic CUDA jaxlib from JAX's find-links page (up to
// 0.4.29, jax[cudaNN_pip]) or the CUDA plugin beside PyPI's jaxlib (from
// 0.4.30, jax[cudaNN]) — and resolve's best: line names the same packages.
func TestIssue12JAXEveryReleasePins(t *testing.T) {
	code, out, stderr := run(t, false, "matrix", "jax", "--json")
	if code != ExitOK {
		t.Fatalf("matrix jax: exit %d %s", code, stderr)
	}
	var rows []struct{ JAX, Status string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	checked, plugins, monolithic := 0, 0, 0
	for _, r := range rows {
		if seen[r.JAX] {
			continue
		}
		seen[r.JAX] = true
		if r.Status != "" {
			// a known release whose facts are pending has no pin: unknown
			if code, _, stderr := run(t, false, "pin", "jax=="+r.JAX); code != 4 || !strings.Contains(stderr, "unknown: jax "+r.JAX) {
				t.Errorf("pin jax==%s (%s): exit %d %s", r.JAX, r.Status, code, stderr)
			}
			continue
		}
		code, out, stderr := run(t, false, "resolve", "jax=="+r.JAX, "--json")
		if code != ExitOK {
			t.Errorf("resolve jax==%s: exit %d %s", r.JAX, code, stderr)
			continue
		}
		var res struct {
			Stacks []struct {
				Status   string
				Variant  string
				Packages map[string]string
				Install  struct{ Command string }
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Stacks {
			major := strings.TrimPrefix(s.Variant, "cuda")
			code, pin, stderr := run(t, false, "pin", "jax=="+r.JAX, "--cuda", major)
			name := "jax " + r.JAX + " " + s.Variant
			if s.Status != "ok" {
				if code != ExitNoMatch || !strings.Contains(stderr, "cannot vouch for") {
					t.Errorf("%s is %s, but pin exits %d: %s", name, s.Status, code, stderr)
				}
				continue
			}
			if code != ExitOK {
				t.Errorf("%s: pin exit %d: %s", name, code, stderr)
				continue
			}
			checked++
			var pkgs []string
			findLinks := false
			for _, l := range strings.Split(pin, "\n") {
				switch {
				case strings.HasPrefix(l, "-f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"):
					findLinks = true
				case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "nvidia-"):
				default:
					pkgs = append(pkgs, l)
				}
			}
			local := s.Packages["jaxlib"] != "" && strings.Contains(s.Packages["jaxlib"], "+cuda")
			// The CUDA plugin comes with the PJRT wheel of its release
			// (plugin_setup.py requires jax-cudaNN-pjrt==<version>).
			plugin, pjrt := "", ""
			for p := range s.Packages {
				switch {
				case strings.HasPrefix(p, "jax-cuda") && strings.HasSuffix(p, "-pjrt"):
					pjrt = p
				case strings.HasPrefix(p, "jax-cuda"):
					plugin = p
				}
			}
			switch {
			case local && plugin == "" && pjrt == "" && findLinks:
				monolithic++
			case !local && plugin == "jax-cuda"+major+"-plugin" && !findLinks && strings.Contains(s.Packages[plugin], r.JAX) &&
				pjrt == "jax-cuda"+major+"-pjrt" && s.Packages[pjrt] == s.Packages[plugin]:
				plugins++
			default:
				t.Errorf("%s: mixes install methods or lacks the plugin's pjrt (local jaxlib %v, plugin %q, pjrt %q, find-links %v):\n%s", name, local, plugin, pjrt, findLinks, pin)
			}
			if len(pkgs) != len(s.Packages) || !strings.Contains(pin, "\njax=="+r.JAX+"\n") {
				t.Errorf("%s: pin packages %v, stack %v", name, pkgs, s.Packages)
			}
			for _, p := range pkgs {
				if !strings.Contains(" "+strings.ReplaceAll(s.Install.Command, `"`, "")+" ", " "+p+" ") {
					t.Errorf("%s: best: %q lacks the pin's %s", name, s.Install.Command, p)
				}
			}
		}
	}
	t.Logf("%d JAX release x variant stacks pinned: %d with the CUDA plugin, %d with the monolithic CUDA jaxlib", checked, plugins, monolithic)
	if checked < 60 || plugins < 30 || monolithic < 20 {
		t.Errorf("checked %d stacks (%d plugin, %d monolithic): the data holds more", checked, plugins, monolithic)
	}
}

// no_gpu_visible follows what the probe reads of the NVIDIA kernel
// driver: its device nodes (or module) make a GPU-less host an error; a
// host with neither (a container started without the GPU, with only the
// driver's libraries inside) gets a warning. The fake hosts' roots are the
// probe's file-system root.
func TestIssue12NoGPUVisibleKernel(t *testing.T) {
	type report struct {
		Summary  struct{ Healthy bool }
		Findings []struct {
			Category, Severity string
			Evidence           []string
		}
	}
	verify := func(host string, extra ...string) (int, report) {
		t.Helper()
		args := append(append([]string{"verify", "--json"}, extra...), useHost(t, host)...)
		code, out, stderr := run(t, false, args...)
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s%s", host, err, out, stderr)
		}
		return code, r
	}
	code, r := verify("no-gpu-devnodes")
	if code != ExitIncompatible || len(r.Findings) != 1 || r.Findings[0].Category != "no_gpu_visible" || r.Findings[0].Severity != "error" ||
		!strings.Contains(strings.Join(r.Findings[0].Evidence, "\n"), "NVIDIA device nodes: /dev/nvidia0, /dev/nvidiactl") {
		t.Errorf("device nodes, no GPU: exit %d %+v", code, r)
	}
	code, r = verify("no-gpu-container")
	ev := ""
	if len(r.Findings) == 1 {
		ev = strings.Join(r.Findings[0].Evidence, "\n")
	}
	if code != ExitOK || !r.Summary.Healthy || len(r.Findings) != 1 || r.Findings[0].Severity != "warning" ||
		!strings.Contains(ev, "NVIDIA kernel module: none") || !strings.Contains(ev, "NVIDIA device nodes: none") {
		t.Errorf("no kernel driver, no GPU: exit %d %+v", code, r)
	}
	if code, r = verify("no-gpu-container", "--expect-gpu"); code != ExitIncompatible || r.Findings[0].Severity != "error" {
		t.Errorf("--expect-gpu: exit %d %+v", code, r)
	}
	code, out, _ := run(t, false, append([]string{"probe", "--json"}, useHost(t, "no-gpu")...)...)
	if code != ExitOK || !strings.Contains(out, `"module": [`) || !strings.Contains(out, `"/proc/driver/nvidia/version"`) {
		t.Errorf("probe --json lacks the kernel module: exit %d\n%s", code, out)
	}
}
