package report

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
)

var (
	ceKey      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 _./()-]*?):\s*(.*)$`) })
	ceGPU      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*GPU (\d+): (.+?)(?:\s+\(UUID: [^)]*\))?\s*$`) })
	ceLibCUDNN = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\S*/)?libcudnn\.so\.(\d+(?:\.\d+)*)\b`) })
	cePip      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(pip3?|conda)\]\s+(.*)$`) })
	pyVersion  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+\.\d+(?:\.\d+)?)`) })
)

func isCollected(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "n/a", "none", "could not collect", "no cuda", "false":
		return false
	}
	return true
}

// collectEnv reads `python -m torch.utils.collect_env`, old and new
// layouts: "Key: value" lines, with GPUs and cuDNN libraries possibly on
// the lines after their key.
func (p *parser) collectEnv() {
	isCE := false
	for _, l := range p.lines {
		if strings.HasPrefix(l, "PyTorch version:") || strings.HasPrefix(l, "CUDA used to build PyTorch:") || strings.HasPrefix(l, "Is debug build:") {
			isCE = true
			break
		}
	}
	gpus := []host.GPU{}
	if isCE {
		p.found(FormatCollectEnv)
		p.collectEnvKeyLines = map[int]bool{}
	}
	var torchV, torchCUDA, rocm string
	key := ""
	for i, l := range p.lines {
		t := strings.TrimSpace(l)
		if m := ceGPU().FindStringSubmatch(l); m != nil {
			idx, _ := strconv.Atoi(m[1])
			src := FormatCollectEnv
			if !isCE {
				src = FormatSMIList
				p.found(FormatSMIList)
			}
			gpus = append(gpus, host.GPU{Index: idx, Name: m[2], Source: src})
			continue
		}
		if !isCE {
			continue
		}
		if m := cePip().FindStringSubmatch(t); m != nil {
			p.collectEnvKeyLines[i] = true
			p.collectEnvPackage(m[1], m[2])
			continue
		}
		m := ceKey().FindStringSubmatch(t)
		if m == nil || strings.HasPrefix(t, "/") {
			// a continuation line: cuDNN candidates after "Probably one
			// of the following:"
			if key == "cuDNN version" {
				p.collectEnvCUDNN(t)
			}
			continue
		}
		key = m[1]
		val := strings.TrimSpace(m[2])
		if maybeErrLine(t) && errLine().MatchString(t) {
			// "RuntimeError: CUDA error: ..." has the shape of a key
			// line but is an error to keep.
			key = ""
			continue
		}
		p.collectEnvKeyLines[i] = true
		switch key {
		case "PyTorch version":
			if isCollected(val) {
				torchV = val
			}
		case "CUDA used to build PyTorch":
			if isCollected(val) {
				torchCUDA = val
			}
		case "ROCM used to build PyTorch":
			if isCollected(val) {
				rocm = val
			}
		case "OS":
			// "Microsoft Windows 11 Pro", "Ubuntu 22.04.3 LTS (x86_64)":
			// which platform's wheels the environment runs.
			if isCollected(val) && p.os == "" {
				p.os = val
			}
		case "Python version":
			if v := pyVersion().FindString(val); v != "" {
				p.python(FormatCollectEnv).Version = v
			}
		case "Nvidia driver version":
			if isCollected(val) {
				p.setDriver(val, FormatCollectEnv)
			}
		case "CUDA runtime version":
			if v := dottedRun().FindString(val); isCollected(val) && v != "" {
				p.toolkits = append(p.toolkits, host.Toolkit{Version: v, Source: FormatCollectEnv})
			}
		case "GPU models and configuration":
			if g := ceGPU().FindStringSubmatch(val); g != nil {
				idx, _ := strconv.Atoi(g[1])
				gpus = append(gpus, host.GPU{Index: idx, Name: g[2], Source: FormatCollectEnv})
			} else if isCollected(val) && !strings.HasPrefix(val, "GPU") {
				gpus = append(gpus, host.GPU{Index: 0, Name: val, Source: FormatCollectEnv})
			}
		case "cuDNN version":
			p.collectEnvCUDNN(val)
		}
	}
	if len(gpus) > 0 {
		p.gpuSets = append(p.gpuSets, gpus)
	}
	if torchV != "" {
		t := host.TorchFrom(torchV, torchCUDA, FormatCollectEnv)
		if rocm != "" && t.Variant == "" {
			parts := strings.Split(rocm, ".")
			if len(parts) >= 2 {
				t.Variant = "rocm" + parts[0] + "." + parts[1]
			}
		}
		if torchCUDA == "" && t.Variant == "" && rocm == "" && host.LocalLabel(torchV) == "" {
			// collect_env says "CUDA used to build PyTorch: None" for
			// CPU builds.
			t.Variant = "cpu"
		}
		p.pyTorch = t
		p.python(FormatCollectEnv)
	}
}

func (p *parser) collectEnvCUDNN(val string) {
	if m := ceLibCUDNN().FindStringSubmatch(val); m != nil {
		v, major, ok := host.NormalizeCUDNN(m[2])
		if ok {
			p.addCUDNN(host.CUDNN{Path: m[0], Version: v, Major: major, Source: host.CUDNNLib})
		}
		return
	}
	if strings.Contains(val, "libcudnn") || !bareVersion().MatchString(val) {
		return
	}
	if v, major, ok := host.NormalizeCUDNN(val); ok {
		c := host.CUDNN{Version: v, Major: major, Source: FormatCollectEnv}
		if v != val {
			c.Raw = val
		}
		p.addCUDNN(c)
	}
}

// collectEnvPackage reads "[pip3] torch==2.1.0" and "[conda] pytorch
// 2.1.0 py3.10_cuda12.1_cudnn8.9.2_0 pytorch".
func (p *parser) collectEnvPackage(kind, rest string) {
	if kind != "conda" {
		if name, v, ok := strings.Cut(rest, "=="); ok {
			p.setPackage(strings.TrimSpace(name), strings.TrimSpace(v))
		}
		return
	}
	f := strings.Fields(rest)
	if len(f) >= 2 && f[1][0] >= '0' && f[1][0] <= '9' {
		p.condaLine(f)
	}
}

var condaCUDA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cuda(\d+)\.(\d+)`) })

// condaLine reads one `conda list` row: name version [build [channel]].
func (p *parser) condaLine(f []string) {
	name, v := f[0], f[1]
	build, channel := "", ""
	if len(f) >= 3 {
		build = f[2]
	}
	if len(f) >= 4 {
		channel = f[3]
	}
	if channel == "pypi" || build == "pypi_0" {
		p.setPackage(name, v)
		return
	}
	py := p.python("")
	if py.CondaPackages == nil {
		py.CondaPackages = map[string]string{}
	}
	py.CondaPackages[name] = v
	switch name {
	case frameworks.Must(frameworks.Torch).CondaName:
		t := &host.Torch{Version: v, Source: FormatCondaList}
		if m := condaCUDA().FindStringSubmatch(build); m != nil {
			t.CUDA = m[1] + "." + m[2]
			t.Variant = host.VariantFromCUDA(t.CUDA)
		} else if strings.HasPrefix(build, "cpu") || strings.Contains(build, "_cpu_") {
			t.Variant = "cpu"
		}
		if p.pyTorch == nil {
			p.pyTorch = t
		}
	case "cudnn":
		if ver, major, ok := host.NormalizeCUDNN(v); ok {
			p.addCUDNN(host.CUDNN{Version: ver, Major: major, Raw: v, Source: host.CUDNNConda})
		}
	case "python":
		if py.Version == "" {
			py.Version = v
		}
	}
}
