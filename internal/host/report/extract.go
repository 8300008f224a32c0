package report

import (
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
)

// FormatText names facts found in free text: prose, markdown lists,
// issue templates, log lines. They fill only what no known format said.
const FormatText = "text"

// Extractor patterns: a component name, then within a few characters its
// version. They are loose on purpose (markdown bullets, "X: v", "X==v",
// "X v", env-style X_VERSION=v) and anchored on the version shape.
var (
	xDriver = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:nvidia[ -]?)?driver(?:[ _-]?version)?\s*(?:is\s*|[:=(]\s*)*v?(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b`)
	})
	xDriverCUDA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bcuda version\s*:?\s*(\d{1,2}\.\d)\b`) })
	xNVRM       = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`NVRM version:.*?Kernel Module\s+(\d{3}\.\d+(?:\.\d+)?)`)
	})
	xToolkit = sync.OnceValue(func() *regexp.Regexp {
		// "CUDA 12.1", "CUDA version: 11.8", "cuda_11.8.0_522.06_windows" (an installer's name)
		return regexp.MustCompile(`(?i)\bcuda(?:[ _-]?(?:toolkit|runtime))?(?:[ _-]?version)?_?\s*(?:is\s*|[:=：]\s*|\s)*(?:cuda\s*)?v?(\d{1,2}\.\d)(?:\.\d+)*(?:\b|_)`)
	})
	xCUDASlashCUDNN = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bcuda\s*/\s*cudnn(?:\s+versions?)?\s*[:=]\s*(?:cuda\s*)?v?(\d{1,2}\.\d)(?:\.\d+)*(?:\s*[,/]\s*(?:cudnn\s*)?v?(\d\.\d{1,2}(?:\.\d+)*))?\b`)
	})
	xCUDNN = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bcudnn(?:[ _-]?(?:version|backend))?(?:\s*\(loaded\))?\s*(?:is\s*|[:=：]\s*|\s)*v?(\d{1,2}\.\d{1,2}(?:\.\d+)*|[89]\d{3}|9\d{4})\b`)
	})
	xLibCUDNN = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(/[^\s:'"]*?/)(libcudnn\.so\.\d+(?:\.\d+)*)\b`) })
	xPython   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bpython(?:[ _-]?version)?\s*(?:[:=-]\s*|\s)*v?(3\.\d{1,2})(?:\.\d+)?\b`)
	})
	xTorch = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:py)?torch(?:[ _-]?version)?\s*(?:[:=]=?\s*|[ -])\s*v?(\d+\.\d+(?:\.\d+)?(?:\+[a-z0-9.]+)?)\b`)
	})
	xTF = sync.OnceValue(func() *regexp.Regexp {
		// "tensorflow==2.15.0", "TF 2.20", "TF2.16", "Tensor Flow Version: 2.12.0"
		return regexp.MustCompile(`(?i)\b(tensorflow(?:-gpu|-cpu)?|tensor flow|tf)(?:[ _-]?version)?\s*(?:[:=]=?\s*|\s|)\s*(?:tf\s*)?v?(\d\.\d{1,2}(?:\.\d+)?)\b`)
	})
	xJAX = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|\s)(jax|jaxlib)(?:[ _-]?version)?\s*(?:[:=]=?\s*|\s)\s*v?(0\.\d+\.\d+(?:\+[a-z0-9.]+)?)\b`)
	})
	xORT = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bonnx\s*runtime(-gpu)?\b[^\n\d]{0,40}?(1\.\d{1,2}(?:\.\d+)?)\b`)
	})
	xGPU = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:nvidia\s+)?(?:geforce\s+)?(?:((?:rtx|gtx)\s*\d{3,4}(?:\s*(?:ti|super))?)|((?:tesla|quadro)[\s-]*[a-z]{0,2}\d{1,4}[a-z]?)|(titan\s+(?:v|xp|x|rtx))|(rtx\s*a\d{4}|a100|h100|h200|b200|l40s|l40|l4|a10g|a10|a30|a40|t4|v100|p100|p40|k80))\b`)
	})
	xOS = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(ubuntu\s*\d{2}\.\d{2}|windows\s*(?:10|11|server\s*\d{4})|win\s?1[01]|wsl\s*2?|macos\s*\d*|debian\s*\d+|rocky linux\s*\d+(?:\.\d+)?|centos\s*\d+|linux mint\s*\d+(?:\.\d+)?)\b`)
	})
	xCUTag      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(cu\d{3})\b`) })
	smiCUDA     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)CUDA (?:UMD )?Version\s*:`) })
	xLDPath     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bLD_LIBRARY_PATH\s*[:=]\s*(/\S+)`) })
	xLDPreload  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bLD_PRELOAD\s*[:=]\s*['"]?(/[^\s'"]+)`) })
	xDockerFrom = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bFROM\s+nvidia/cuda:(\d+\.\d+)(?:\.\d+)?(?:-cudnn(\d+))?`)
	})
	// lines naming a missing library: a soname there is absent, not present.
	xMissing = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)cannot open|not found|could not|couldn't|unable to|no such file|failed`)
	})
)

// extract finds facts anywhere in the text, line by line, for whatever
// the exact recognisers left unset. It never overrides them.
func (p *parser) extract() {
	x := &extracted{}
	echoLD := false
	prev := ""
	smi := p.hasFormat(FormatSMIBanner) || p.hasFormat(FormatSMIQuery)
	for i, l := range p.lines {
		if (p.collectEnvKeyLines[i] && p.hasFormat(FormatCollectEnv)) || p.consumed[i] {
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		line := i + 1
		if mod, v, ok := replVersion(prev, t); ok {
			// ">>> jax.__version__" then "'0.4.23'": a version print
			if f, known := frameworks.Get(mod); known { // torch, jax, tf, onnxruntime
				x.template(f.Name, v, line)
			}
		}
		if fw, v, ok := templateVersion(prev, t); ok {
			x.template(fw, v, line)
		}
		if c, d, ok := templateCUDA(prev, t); ok {
			if x.cuda == "" {
				x.cuda, x.cudaLine = c, line
			}
			if x.cudnn == "" && d != "" {
				x.cudnn, x.cudnnLine = d, line
			}
		}
		prev = t
		if echoLD && strings.HasPrefix(t, "/") {
			x.ldPath, x.ldLine = t, line
		}
		echoLD = strings.Contains(t, "echo $LD_LIBRARY_PATH")
		if smi && smiCUDA().MatchString(t) {
			// nvidia-smi's "CUDA Version" is the driver's, read already.
			continue
		}
		x.line(t, line)
	}
	p.apply(x)
}

func (p *parser) hasFormat(f string) bool {
	for _, x := range p.formats {
		if x == f {
			return true
		}
	}
	return false
}

// extracted holds the first value of each fact found in free text.
type extracted struct {
	driver, cuda, cudnn, python, os, ldPath    string
	ldPreload                                  string
	ldPreloadLine                              int
	driverLine, cudaLine, cudnnLine, pyLine    int
	osLine, ldLine, torchLine, tfLine, ortLine int
	nvcc, driverCUDA                           string
	driverCUDALine                             int
	nvccLine                                   int
	torch, tf, tfPkg, jax, jaxlib, ort, ortPkg string
	jaxLine, jaxlibLine                        int
	gpus                                       []string
	gpuLines                                   []int
	libs                                       []host.CUDNN
	libLines                                   []int
	dockerCUDA, dockerCUDNN                    string
	dockerLine                                 int
}

// gpuWords are the substrings (lowercase) xGPU needs one of.
var gpuWords = []string{"rtx", "gtx", "tesla", "quadro", "titan", "a100", "h100", "h200", "b200", "l40", "l4", "a10", "a30",
	"a40", "t4", "v100", "p100", "p40", "k80"}

// tfWords are TensorFlow's names and aliases ("tf").
func tfWords() []string {
	return append([]string{frameworks.TensorFlow}, frameworks.Must(frameworks.TensorFlow).Aliases...)
}

func hasAny(l string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// line reads one line. Each pattern runs only when the lowercase line
// holds its keyword: most lines of a long log hold none.
func (x *extracted) line(t string, n int) {
	lower := strings.ToLower(t)
	if x.driver == "" && hasAny(lower, "driver", "nvrm") {
		if m := xNVRM().FindStringSubmatch(t); m != nil {
			x.driver, x.driverLine = m[1], n
		} else if m := xDriver().FindStringSubmatch(t); m != nil {
			x.driver, x.driverLine = m[1], n
		}
	}
	if x.nvcc == "" && strings.Contains(t, "Cuda compilation tools") {
		if v, ok := ParseNvcc([]byte(t)); ok {
			x.nvcc, x.nvccLine = v, n
		}
	}
	// A banner or "Driver Version ... CUDA Version" line states what the
	// driver supports, not an installed toolkit; an error line names
	// what is missing or wanted.
	slash := false
	if strings.Contains(lower, "cuda/cudnn") || strings.Contains(lower, "cuda / cudnn") {
		// "CUDA/cuDNN version: 11.5" (issue templates): CUDA first.
		if m := xCUDASlashCUDNN().FindStringSubmatch(t); m != nil {
			slash = true
			if x.cuda == "" {
				x.cuda, x.cudaLine = m[1], n
			}
			if x.cudnn == "" && m[2] != "" {
				x.cudnn, x.cudnnLine = m[2], n
			}
		}
	}
	smiLike := strings.Contains(lower, "driver") && strings.Contains(lower, "cuda version")
	if smiLike && x.driverCUDA == "" {
		// "CUDA Version: 12.8 (Driver 570.181)": what the driver supports
		if m := xDriverCUDA().FindStringSubmatch(t); m != nil {
			x.driverCUDA, x.driverCUDALine = m[1], n
		}
	}
	if x.cuda == "" && !slash && strings.Contains(lower, "cuda") && !smiLike && !strings.Contains(lower, "capabilit") && !xMissing().MatchString(t) {
		if m := xToolkit().FindStringSubmatch(t); m != nil {
			x.cuda, x.cudaLine = m[1], n
		}
	}
	if x.cudnn == "" && !slash && strings.Contains(lower, "cudnn") && !xMissing().MatchString(t) && !strings.Contains(lower, "compiled") {
		if m := xCUDNN().FindStringSubmatch(t); m != nil {
			x.cudnn, x.cudnnLine = m[1], n
		}
	}
	if strings.Contains(lower, "libcudnn.so") && !xMissing().MatchString(t) {
		for _, m := range xLibCUDNN().FindAllStringSubmatch(t, -1) {
			if c, ok := CUDNNFromLib(m[2], m[1]+m[2], host.CUDNNLib); ok {
				x.libs = append(x.libs, c)
				x.libLines = append(x.libLines, n)
			}
		}
	}
	if x.python == "" && strings.Contains(lower, "python") && !strings.Contains(lower, "site-packages") && !strings.Contains(lower, "dist-packages") {
		if m := xPython().FindStringSubmatch(t); m != nil {
			x.python, x.pyLine = m[1], n
		}
	}
	if instruction(lower) {
		// "pip install torch==2.8": what the user was told to install,
		// not what is installed
		return
	}
	if x.torch == "" && strings.Contains(lower, frameworks.Torch) && !strings.Contains(lower, "compiled") {
		if m := xTorch().FindStringSubmatch(t); m != nil {
			x.torch, x.torchLine = m[1], n
			if !strings.Contains(x.torch, "+") {
				// "torch 2.8 cu128", "cu121 torch 2.1.2": the wheel's label
				if c := xCUTag().FindStringSubmatch(t); c != nil {
					x.torch += "+" + strings.ToLower(c[1])
				}
			}
		}
	}
	if x.tf == "" && (hasAny(lower, tfWords()...) || strings.Contains(lower, "tensor flow")) {
		if m := xTF().FindStringSubmatch(t); m != nil {
			x.tfPkg, x.tf, x.tfLine = strings.ToLower(m[1]), m[2], n
			if !frameworks.IsMain(x.tfPkg) {
				x.tfPkg = frameworks.TensorFlow // "tf 2.9"
			}
		}
	}
	for _, m := range jaxMatches(lower, t) {
		switch strings.ToLower(m[1]) {
		case frameworks.JAX:
			if x.jax == "" {
				x.jax, x.jaxLine = m[2], n
			}
		case frameworks.JAXLib:
			if x.jaxlib == "" {
				x.jaxlib, x.jaxlibLine = m[2], n
			}
		}
	}
	if x.ort == "" && strings.Contains(lower, "onnx") {
		if m := xORT().FindStringSubmatch(t); m != nil {
			x.ort, x.ortLine = m[2], n
			x.ortPkg = ortCPU()
			if m[1] != "" {
				x.ortPkg = frameworks.ONNXRuntime
			}
		}
	}
	if len(x.gpus) < 8 && hasAny(lower, gpuWords...) {
		if m := xGPU().FindStringSubmatch(t); m != nil {
			name := gpuName(m)
			if !containsFold(x.gpus, name) {
				x.gpus = append(x.gpus, name)
				x.gpuLines = append(x.gpuLines, n)
			}
		}
	}
	if x.os == "" && hasAny(lower, "ubuntu", "windows", "win1", "wsl", "macos", "debian", "rocky", "centos", "mint") {
		if m := xOS().FindStringSubmatch(t); m != nil {
			x.os, x.osLine = strings.Join(strings.Fields(m[1]), " "), n
			if l := strings.ToLower(x.os); strings.HasPrefix(l, "win") && !strings.HasPrefix(l, "windows") {
				x.os = "Windows " + strings.TrimSpace(x.os[3:]) // "win10"
			}
		}
	}
	if x.ldPreload == "" && strings.Contains(t, "LD_PRELOAD") {
		if m := xLDPreload().FindStringSubmatch(t); m != nil {
			x.ldPreload, x.ldPreloadLine = strings.TrimRight(m[1], ";,"), n
		}
	}
	if x.ldPath == "" && strings.Contains(t, "LD_LIBRARY_PATH") {
		if m := xLDPath().FindStringSubmatch(t); m != nil {
			x.ldPath, x.ldLine = strings.TrimRight(m[1], ";,"), n
		}
	}
	if x.dockerCUDA == "" && strings.Contains(lower, "nvidia/cuda:") {
		if m := xDockerFrom().FindStringSubmatch(t); m != nil {
			x.dockerCUDA, x.dockerCUDNN, x.dockerLine = m[1], m[2], n
		}
	}
}

func jaxMatches(lower, t string) [][]string {
	if !strings.Contains(lower, frameworks.JAX) {
		return nil
	}
	return xJAX().FindAllStringSubmatch(t, -1)
}

// gpuName writes a matched GPU the way NVIDIA names it.
func gpuName(m []string) string {
	raw := ""
	for _, g := range m[1:] {
		if g != "" {
			raw = g
			break
		}
	}
	f := strings.Fields(strings.ReplaceAll(raw, "-", " "))
	for i, w := range f {
		switch lw := strings.ToLower(w); {
		case lw == "ti":
			f[i] = "Ti"
		case lw == "super":
			f[i] = "SUPER"
		case lw == "tesla" || lw == "quadro" || lw == "titan":
			f[i] = strings.ToUpper(lw[:1]) + lw[1:]
		default:
			f[i] = strings.ToUpper(w)
		}
	}
	name := strings.Join(f, " ")
	// "RTX3090" → "RTX 3090"
	for _, pre := range []string{"RTX", "GTX"} {
		if strings.HasPrefix(name, pre) && len(name) > 3 && name[3] != ' ' {
			name = pre + " " + name[3:]
		}
	}
	return name
}

// ortCPU is ONNX Runtime's CPU package, which has no CUDA provider.
func ortCPU() string { return strings.TrimSuffix(frameworks.ONNXRuntime, "-gpu") }

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// apply folds the text facts into what the exact recognisers found,
// filling only what they left empty.
func (p *parser) apply(x *extracted) {
	got := false
	read := func(fact, value string, line int) {
		got = true
		p.read = append(p.read, host.Reading{Fact: fact, Value: value, Format: FormatText, Line: line, Sure: host.SureText})
	}
	if p.driver == "" && x.driver != "" {
		p.driver, p.driverSrc = x.driver, FormatText
		read("driver", x.driver, x.driverLine)
	}
	if p.driverCUDA == "" && x.driverCUDA != "" {
		p.driverCUDA, p.dcSrc = x.driverCUDA, FormatText
		read("driver_cuda", x.driverCUDA, x.driverCUDALine)
	}
	if len(p.gpuSets) == 0 && len(x.gpus) > 0 {
		gpus := make([]host.GPU, len(x.gpus))
		for i, name := range x.gpus {
			gpus[i] = host.GPU{Index: i, Name: name, Source: FormatText}
			read("gpu", name, x.gpuLines[i])
		}
		p.gpuSets = append(p.gpuSets, gpus)
	}
	if len(p.toolkits) == 0 {
		switch {
		case x.nvcc != "":
			v, raw := host.ToolkitVersion(x.nvcc)
			p.toolkits = append(p.toolkits, host.Toolkit{Version: v, Raw: raw, Source: "nvcc", Nvcc: true, OnPath: true})
			read("cuda", x.nvcc+" (nvcc)", x.nvccLine)
		case x.cuda != "":
			p.toolkits = append(p.toolkits, host.Toolkit{Version: x.cuda, Source: FormatText})
			read("cuda", x.cuda, x.cudaLine)
		case x.dockerCUDA != "":
			p.toolkits = append(p.toolkits, host.Toolkit{Version: x.dockerCUDA, Source: FormatText})
			read("cuda", x.dockerCUDA+" (image)", x.dockerLine)
		}
	}
	if len(p.cudnn) == 0 {
		for i, c := range x.libs {
			p.addCUDNN(c)
			read("cudnn", c.Version+" "+c.Path, x.libLines[i])
		}
		if len(x.libs) == 0 && x.cudnn != "" {
			if v, major, ok := host.NormalizeCUDNN(x.cudnn); ok {
				p.addCUDNN(host.CUDNN{Version: v, Major: major, Raw: x.cudnn, Source: FormatText})
				read("cudnn", v, x.cudnnLine)
			}
		}
	}
	if x.python != "" && (p.py == nil || p.py.Version == "") {
		p.python(FormatText).Version = x.python
		read("python", x.python, x.pyLine)
	}
	setPkg := func(name, v string, line int, fact string) {
		if v == "" {
			return
		}
		if p.py != nil {
			if _, ok := p.py.Packages[name]; ok {
				return
			}
		}
		p.python(FormatText)
		p.setPackage(name, v)
		read(fact, name+" "+v, line)
	}
	if p.pyTorch == nil && x.torch != "" {
		if p.py == nil || p.py.Packages[frameworks.Torch] == "" {
			p.pyTorch = host.TorchFrom(x.torch, p.buildCUDA, FormatText)
			setPkg(frameworks.Torch, x.torch, x.torchLine, frameworks.Torch)
		}
	}
	if p.tf == nil {
		setPkg(x.tfPkg, x.tf, x.tfLine, frameworks.TensorFlow)
	}
	setPkg(frameworks.JAX, x.jax, x.jaxLine, frameworks.JAX)
	setPkg(frameworks.JAXLib, x.jaxlib, x.jaxlibLine, frameworks.JAX)
	setPkg(x.ortPkg, x.ort, x.ortLine, frameworks.ONNXRuntime)
	if x.os != "" {
		p.os = x.os
		read("os", x.os, x.osLine)
	}
	if x.ldPath != "" && len(p.ldPath) == 0 {
		p.ldPath = strings.Split(x.ldPath, ":")
		read("ld_library_path", x.ldPath, x.ldLine)
	}
	if x.ldPreload != "" && len(p.ldPreload) == 0 {
		// A cuDNN the loader maps first is the copy every process meets
		// first, ahead of the ones the report lists.
		p.ldPreload = strings.Split(x.ldPreload, ":")
		read("ld_preload", x.ldPreload, x.ldPreloadLine)
		var pre []host.CUDNN
		for _, lib := range p.ldPreload {
			if c, ok := CUDNNFromLib(baseName(lib), lib, host.CUDNNLDPreload); ok {
				pre = append(pre, c)
			}
		}
		p.cudnn = append(pre, p.cudnn...)
	}
	if got {
		p.found(FormatText)
	}
}
