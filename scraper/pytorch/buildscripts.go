package pytorch

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
)

// Build scripts read at the commit that built a release. PyTorch's wheel
// build scripts state, per CUDA version, what a release's wheels were built
// with: .ci/manywheel/build_cuda.sh sets TORCH_CUDA_ARCH_LIST (the GPU
// architectures compiled in), pytorch/builder's common/install_cuda.sh
// installs the cuDNN that the Linux build image (and, up to 1.12, every
// Linux wheel that bundles its libraries) carries, and its
// windows/internal/cuda_install.bat the cuDNN of the Windows build (which
// the Windows wheel ships). Each copy is a trimmed,
// verbatim capture (captures/CAPTURES.md); its rows take the shape of the
// derived tables (arch_list, toolchain) so BuildMatrix.Normalize reads both
// the same way.
//
// A copy read at a release branch is release evidence; a copy of main in
// force on a release's day, or one tied to its release by the maintainers'
// statements only (see each entry's note), is the best evidence found for
// the releases it names. Either way a script lists every CUDA version its
// image can build rather than the variants that shipped, so its rows are
// attach-only: they complete builds other rows define and never make one.
//
// Snapshot-only, like the derived tables: the commits are fixed and live
// refresh does not read them.
type buildScript struct {
	capture string // file under captures/
	kind    string // "build_cuda", "install_cuda" or "cuda_install_bat"
	repo    string
	path    string
	commit  string // full hash
	torch   string // the releases it built: "2.8" (every 2.8.x) or "1.7.1"
	branch  string // the release branch the commit is on; "" when not shown
	// skip names CUDA variants whose value changed too close to the
	// release to say which one built it (install_cuda.sh on main only).
	skip map[string]string
}

func (b buildScript) url() string {
	return "https://github.com/" + b.repo + "/blob/" + b.commit + "/" + b.path
}

// archScripts are the build_cuda.sh copies read. Why each copy is tied to
// its release is in captures/CAPTURES.md.
var archScripts = []buildScript{
	// The 2.8 release's TORCH_CUDA_ARCH_LIST: the script's CUDA arms are
	// 2.8's variant set (12.6, 12.8, 12.9; 13.0 arrived for 2.9), and the
	// 12.8 arm matches the 2.8 support matrix the maintainers announced
	// (Maxwell and Pascal removed from 12.8/12.9, Volta kept,
	// pytorch/pytorch#157517; +PTX removed from 12.8 by #157516, picked onto
	// release/2.8). The commit itself is not shown to be on release/2.8.
	{capture: "build_cuda.sh@00c7a380.sh", kind: "build_cuda", repo: "pytorch/pytorch", path: ".ci/manywheel/build_cuda.sh",
		commit: "00c7a380b8369d08e02dd400aa76dc6c0738b589", torch: "2.8"},
}

// builderCommits are the pytorch/builder commits read: each gives the
// Linux image's cuDNN (common/install_cuda.sh) and the Windows build's
// (windows/internal/cuda_install.bat).
var builderCommits = []struct {
	commit, torch, branch  string
	skipLinux, skipWindows map[string]string
}{
	{commit: "7e44027ebad0045165d929fb05a811098e04fbcd", torch: "1.8.2", branch: "lts/release/1.8"},
	{commit: "0877fd10dd14817c0f84d35bee3840ada86ae34b", torch: "1.9", branch: "release/1.9"},
	{commit: "f0f41b25781aeb12a59937da169d87aece5a90c5", torch: "1.10", branch: "release/1.10"},
	{commit: "e77e5d077c1870283a7b391bf58e4857c58fb7f4", torch: "1.11", branch: "release/1.11"},
	{commit: "049415d44cf345cc531962e15160d910b2f9d620", torch: "1.12", branch: "release/1.12"},
	// Before builder had release branches (up to 1.8.1), its main built
	// the wheels: the copy in force on each release's day.
	{commit: "30850f425c45cb3050570a77e9bfdd321b237083", torch: "1.5.0"},
	{commit: "40a20b28f302a8c60eceecb29c3b1ce9b3c4b98b", torch: "1.5.1"},
	{commit: "8d064bfcfe2e73d89a067dd5f9311828c1792f90", torch: "1.6.0"},
	{commit: "c286aade3d1d8f9448d8d6a30d0da1eb1281f4fa", torch: "1.7.0",
		skipLinux:   map[string]string{"cu110": "builder moved CUDA 11.0 on Linux from cuDNN 8.0.3.33 to 8.0.4.30 on 2020-10-13 (3c86295b), two weeks before 1.7.0: which one built the wheel is not known"},
		skipWindows: map[string]string{"cu110": "builder moved CUDA 11.0 on Windows to cuDNN 8.0.4.30 on 2020-10-20 (a865203b), a week before 1.7.0: which one built the wheel is not known"}},
	{commit: "24274a90b59258ec16c264615b30ae2f4597f49c", torch: "1.7.1"},
	{commit: "d3bf8530f7712870626f8a3ce609a82cff356a97", torch: "1.8.0"},
	{commit: "a17d71fa32fc34240ed074f9a73ad5db7853ff25", torch: "1.8.1"},
}

// windowsArchCommits are the pytorch/builder commits whose
// windows/cuda<nnn>.bat files are read: each sets the TORCH_CUDA_ARCH_LIST
// of the Windows wheel build of its CUDA version (pytorch's Windows binary
// job runs builder's windows/internal/build_wheels.bat, which calls
// build_pytorch.bat and through it cuda<nnn>.bat). The Windows lists are
// their own: they keep sm_61 (and 3.7+PTX up to CUDA 11.8), which the
// Linux lists of the same releases leave out. No release branch changed
// these files after it was cut, so each branch's copy is the one that
// built every patch release of its minor. Before builder had release
// branches (up to 1.8.1), main in force on the release's day, as for the
// cuDNN captures.
var windowsArchCommits = []struct{ commit, torch, branch string }{
	{"7e44027ebad0045165d929fb05a811098e04fbcd", "1.8.2", "lts/release/1.8"},
	{"0877fd10dd14817c0f84d35bee3840ada86ae34b", "1.9", "release/1.9"},
	{"f0f41b25781aeb12a59937da169d87aece5a90c5", "1.10", "release/1.10"},
	{"e77e5d077c1870283a7b391bf58e4857c58fb7f4", "1.11", "release/1.11"},
	{"049415d44cf345cc531962e15160d910b2f9d620", "1.12", "release/1.12"},
	{"d08f22640ad6f332026f26242d458b8d157187be", "1.13", "release/1.13"},
	{"9f0fad92f342b146272d0f99d3969c2c148e80ba", "2.0", "release/2.0"},
	{"55d40b1b06379fddd0ba14744dc3fdd768530da6", "2.1", "release/2.1"},
	{"af60d11447443059c6c6c7590241a446a33db0f9", "2.2", "release/2.2"},
	{"ba10bae9fe9b93365412297d40bc9a3a3eae6155", "2.3", "release/2.3"},
	{"4ce1afeb2262808c1e9707b93682ac66acf2db2a", "2.4", "release/2.4"},
	{"aec5fb5de2380a9084f4bb430eec4e576066a17c", "2.5", "release/2.5"},
	{"30850f425c45cb3050570a77e9bfdd321b237083", "1.5.0", ""},
	{"40a20b28f302a8c60eceecb29c3b1ce9b3c4b98b", "1.5.1", ""},
	{"8d064bfcfe2e73d89a067dd5f9311828c1792f90", "1.6.0", ""},
	{"c286aade3d1d8f9448d8d6a30d0da1eb1281f4fa", "1.7.0", ""},
	{"24274a90b59258ec16c264615b30ae2f4597f49c", "1.7.1", ""},
	{"d3bf8530f7712870626f8a3ce609a82cff356a97", "1.8.0", ""},
	{"a17d71fa32fc34240ed074f9a73ad5db7853ff25", "1.8.1", ""},
}

// buildScripts lists every copy read: the build_cuda.sh copies, two files
// per builder commit, then the Windows cuda<nnn>.bat copies (every one
// captured for the commit: captures/cuda<nnn>.bat@<commit>.bat).
func buildScripts() ([]buildScript, error) {
	all := append([]buildScript(nil), archScripts...)
	for _, c := range builderCommits {
		short := c.commit[:8]
		all = append(all,
			buildScript{capture: "install_cuda.sh@" + short + ".sh", kind: "install_cuda", repo: "pytorch/builder",
				path: "common/install_cuda.sh", commit: c.commit, torch: c.torch, branch: c.branch, skip: c.skipLinux},
			buildScript{capture: "cuda_install.bat@" + short + ".bat", kind: "cuda_install_bat", repo: "pytorch/builder",
				path: "windows/internal/cuda_install.bat", commit: c.commit, torch: c.torch, branch: c.branch, skip: c.skipWindows})
	}
	for _, c := range windowsArchCommits {
		names, err := fs.Glob(captures, "captures/cuda[0-9]*.bat@"+c.commit[:8]+".bat")
		if err != nil || len(names) == 0 {
			return nil, fmt.Errorf("no windows/cuda<nnn>.bat captured for pytorch/builder %s (%v)", c.commit[:8], err)
		}
		for _, n := range names {
			base := strings.TrimPrefix(n, "captures/")
			file, _, _ := strings.Cut(base, "@")
			all = append(all, buildScript{capture: base, kind: "windows_cuda_bat", repo: "pytorch/builder",
				path: "windows/" + file, commit: c.commit, torch: c.torch, branch: c.branch})
		}
	}
	return all, nil
}

// scrapeBuildScripts reads the captured build scripts (snapshot mode).
func scrapeBuildScripts(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	scripts, err := buildScripts()
	if err != nil {
		return nil, err
	}
	var all []scraper.Record
	for _, s := range scripts {
		parse := parseInstallCUDA
		what := "the cuDNN per CUDA version"
		switch s.kind {
		case "build_cuda":
			parse, what = parseBuildCUDA, "TORCH_CUDA_ARCH_LIST per CUDA version"
		case "cuda_install_bat":
			parse, what = parseCUDAInstallBat, "the Windows cuDNN per CUDA version"
		case "windows_cuda_bat":
			parse, what = parseWindowsCUDABat, "the Windows TORCH_CUDA_ARCH_LIST"
		}
		recs, err := doc{capture: s.capture}.scrape(ctx, in, what, parse)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			variant := r.Fields["cuda_variant"]
			if s.kind == "windows_cuda_bat" && "windows/cuda"+strings.TrimPrefix(variant, "cu")+".bat" != s.path {
				return nil, fmt.Errorf("%s: %s builds CUDA %s, not the version its name says", s.capture, s.path, cudaOfVariant(variant))
			}
			if why, ok := s.skip[variant]; ok {
				r.Fields["skip"] = why
			}
			r.URL = s.url()
			r.Fields["torch_version"] = s.torch
			r.Fields["source_repo"], r.Fields["source_path"] = s.repo, s.path
			r.Fields["source_commit"] = s.commit
			if s.branch != "" {
				r.Fields["source_commit"] += " (" + s.branch + ")"
			}
			// A script names every CUDA version its image can build, not
			// the variants that shipped: its rows never make a build.
			r.Fields["attach_only"] = "yes"
			r.Key = s.torch + "|" + variant + "|" + r.Fields["platform"] + "|" + s.capture
			all = append(all, r)
		}
	}
	return all, nil
}

var (
	reBCArm    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([0-9][0-9.|]*)\)\s*(?:#.*)?$`) })
	reBCAssign = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:export\s+)?TORCH_CUDA_ARCH_LIST="([^"]*)"\s*(?:#.*)?$`)
	})
	reBCArchs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\d+\.\d+[a-z]?(?:\+PTX)?(?:;\d+\.\d+[a-z]?(?:\+PTX)?)*$`)
	})
)

// parseBuildCUDA reads the `case ${CUDA_VERSION} in` block of a
// build_cuda.sh: each arm (`12.8)`, `12.8|12.9)`) and the
// TORCH_CUDA_ARCH_LIST it assigns. An assignment may extend the list set
// before the case block (`"${TORCH_CUDA_ARCH_LIST};9.0"`); any other
// expansion is not evaluated, and the arm is an error rather than a guess.
// The rows are the Linux x86-64 wheel's (the aarch64 builds filter the
// list elsewhere).
func parseBuildCUDA(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	base := ""
	var arms []string // the arm being read
	inCase := false
	for i, line := range strings.Split(string(src), "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "case ") && strings.Contains(trim, "CUDA_VERSION"):
			inCase = true
		case trim == "esac":
			inCase = false
			arms = nil
		case inCase && trim == ";;":
			arms = nil
		case inCase && reBCArm().MatchString(line):
			arms = strings.Split(reBCArm().FindStringSubmatch(line)[1], "|")
		default:
			m := reBCAssign().FindStringSubmatch(line)
			if m == nil {
				continue
			}
			val := m[1]
			if rest, ok := strings.CutPrefix(val, "${TORCH_CUDA_ARCH_LIST}"); ok {
				if base == "" {
					return nil, fmt.Errorf("line %d: extends a TORCH_CUDA_ARCH_LIST that was never set", i+1)
				}
				val = base + rest
			}
			if !reBCArchs().MatchString(val) {
				return nil, fmt.Errorf("line %d: %q is not a list of architectures this parser can evaluate", i+1, m[1])
			}
			if !inCase {
				base = val
				continue
			}
			if len(arms) == 0 {
				return nil, fmt.Errorf("line %d: TORCH_CUDA_ARCH_LIST set outside a CUDA version arm", i+1)
			}
			for _, cuda := range arms {
				variant := variantOfCUDA(cuda)
				if variant == "" {
					return nil, fmt.Errorf("line %d: %q is not a CUDA version", i+1, cuda)
				}
				recs = append(recs, scraper.Record{Table: "arch_list", Ref: fmt.Sprintf("%s:%d (CUDA %s)", ref, i+1, cuda),
					Fields: map[string]string{"cuda_variant": variant, "platform": "linux-x86_64 wheel",
						"torch_cuda_arch_list": val, "sm_list": val, "row": strings.TrimSpace(line)}})
			}
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no TORCH_CUDA_ARCH_LIST assigned in a CUDA version arm")
	}
	return recs, nil
}

var (
	reICFunc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^function install_(\d+)\s*\{?\s*$`) })
	// the cuDNN a line downloads: the Debian package of cuDNN 7, the
	// cudnn-<cuda>-linux-x64-v<version>.tgz archive, and the later
	// cudnn-linux-x86_64-<version>_cuda<cuda>-archive.tar.xz
	reICCUDNN = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`libcudnn\d+_(\d+\.\d+\.\d+\.\d+)-1\+cuda|cudnn-\d+\.\d+-linux-x64-v(\d+\.\d+\.\d+\.\d+)\.tgz|cudnn-linux-x86_64-(\d+\.\d+\.\d+\.\d+)_cuda`)
	})
)

// cudnnDownloads collects the cuDNN each CUDA section of a builder
// script downloads, one toolchain record per variant; a section that
// names two cuDNN versions is an error.
type cudnnDownloads struct {
	platform string
	recs     []scraper.Record
	found    map[string]int // variant -> index in recs
}

// add records that the section (install_118, :cuda118) of variant
// downloads cuDNN ver on line i of the script at ref.
func (c *cudnnDownloads) add(variant, ver, section, ref string, i int, line string) error {
	if j, ok := c.found[variant]; ok {
		if c.recs[j].Fields["cudnn"] != ver {
			return fmt.Errorf("line %d: %s downloads cuDNN %s and %s", i+1, section, c.recs[j].Fields["cudnn"], ver)
		}
		return nil
	}
	c.found[variant] = len(c.recs)
	c.recs = append(c.recs, scraper.Record{Table: "toolchain", Ref: fmt.Sprintf("%s:%d (%s)", ref, i+1, section),
		Fields: map[string]string{"cuda_variant": variant, "platform": c.platform, "cudnn": ver, "row": strings.TrimSpace(line)}})
	return nil
}

// parseInstallCUDA reads the cuDNN each `function install_<cuda>` of a
// common/install_cuda.sh downloads. A function naming two different cuDNN
// versions is an error.
func parseInstallCUDA(src []byte, ref string) ([]scraper.Record, error) {
	c := cudnnDownloads{platform: "linux build image (docker)", found: map[string]int{}}
	variant := ""
	for i, line := range strings.Split(string(src), "\n") {
		if m := reICFunc().FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			variant = "cu" + m[1]
			if cudaOfVariant(variant) == "" {
				variant = "" // install_0 names no CUDA version
			}
			continue
		}
		m := reICCUDNN().FindStringSubmatch(line)
		if m == nil || variant == "" {
			continue
		}
		if err := c.add(variant, m[1]+m[2]+m[3], "install_"+strings.TrimPrefix(variant, "cu"), ref, i, line); err != nil {
			return nil, err
		}
	}
	recs := c.recs
	if len(recs) == 0 {
		return nil, fmt.Errorf("no install_<cuda> function downloads a cuDNN")
	}
	return recs, nil
}

var (
	reBatLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^:([A-Za-z0-9_]+)\s*$`) })
	reBatCUDNN = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`cudnn-\d+\.\d+-windows\d*-x64-v(\d+\.\d+\.\d+\.\d+)\.zip|cudnn-windows-x86_64-(\d+\.\d+\.\d+\.\d+)_cuda`)
	})
)

// parseCUDAInstallBat reads the cuDNN each `:cuda<nnn>` section of
// builder's windows/internal/cuda_install.bat downloads (any other label
// ends the section). A section naming two cuDNN versions is an error.
func parseCUDAInstallBat(src []byte, ref string) ([]scraper.Record, error) {
	c := cudnnDownloads{platform: "windows build", found: map[string]int{}}
	variant := ""
	for i, line := range strings.Split(string(src), "\n") {
		if m := reBatLabel().FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			variant = ""
			if n, ok := strings.CutPrefix(m[1], "cuda"); ok && cudaOfVariant("cu"+n) != "" {
				variant = "cu" + n
			}
			continue
		}
		m := reBatCUDNN().FindStringSubmatch(line)
		if m == nil || variant == "" {
			continue
		}
		if err := c.add(variant, m[1]+m[2], ":cuda"+strings.TrimPrefix(variant, "cu"), ref, i, line); err != nil {
			return nil, err
		}
	}
	recs := c.recs
	if len(recs) == 0 {
		return nil, fmt.Errorf("no :cuda<nnn> section downloads a cuDNN")
	}
	return recs, nil
}

var (
	reWinNVCC = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^IF EXIST "[^"]*\\CUDA\\v(\d+\.\d+)\\bin\\nvcc\.exe"`)
	})
	reWinTorchBranch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^IF "%BUILD_VISION%"\s*==\s*""\s*\($`) })
	reWinArchSet     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^set TORCH_CUDA_ARCH_LIST=(\S+)$`) })
)

// parseWindowsCUDABat reads builder's windows/cuda<nnn>.bat: the CUDA
// version whose nvcc it requires (`IF EXIST "...\CUDA\v12.1\bin\nvcc.exe"`)
// and the TORCH_CUDA_ARCH_LIST it sets in the branch that builds torch
// (`IF "%BUILD_VISION%" == "" (`; the other branch sets torchvision's
// flags). An assignment outside that branch, before the CUDA version, or
// a second, different list is an error rather than a guess.
func parseWindowsCUDABat(src []byte, ref string) ([]scraper.Record, error) {
	cuda, inTorch := "", false
	var rec *scraper.Record
	for i, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case reWinNVCC().MatchString(t):
			cuda = reWinNVCC().FindStringSubmatch(t)[1]
		case reWinTorchBranch().MatchString(t):
			inTorch = true
		case strings.HasPrefix(t, ")"):
			inTorch = false
		case reWinArchSet().MatchString(t):
			val := reWinArchSet().FindStringSubmatch(t)[1]
			switch {
			case !inTorch:
				return nil, fmt.Errorf("line %d: TORCH_CUDA_ARCH_LIST set outside the torch build's branch", i+1)
			case cuda == "":
				return nil, fmt.Errorf("line %d: TORCH_CUDA_ARCH_LIST set before the script names its CUDA version", i+1)
			case !reBCArchs().MatchString(val):
				return nil, fmt.Errorf("line %d: %q is not a list of architectures", i+1, val)
			case rec != nil && rec.Fields["sm_list"] != val:
				return nil, fmt.Errorf("line %d: a second TORCH_CUDA_ARCH_LIST (%s, then %s)", i+1, rec.Fields["sm_list"], val)
			case rec == nil:
				rec = &scraper.Record{Table: "arch_list", Ref: fmt.Sprintf("%s:%d (CUDA %s)", ref, i+1, cuda),
					Fields: map[string]string{"cuda_variant": variantOfCUDA(cuda), "platform": "windows wheel",
						"torch_cuda_arch_list": val, "sm_list": val, "row": t}}
			}
		}
	}
	if rec == nil {
		return nil, fmt.Errorf("no TORCH_CUDA_ARCH_LIST set for the torch build")
	}
	return []scraper.Record{*rec}, nil
}
