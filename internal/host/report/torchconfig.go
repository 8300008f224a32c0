package report

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/host"
)

// FormatTorchConfig is print(torch.__config__.show()): how the torch
// build was compiled. Its "CUDA Runtime" and "CuDNN" lines are the
// build's, not copies installed on the host.
const FormatTorchConfig = "torch_config"

var (
	tcRuntime = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*-\s*CUDA Runtime\s+(\d+\.\d+)`) })
	tcSetting = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(TORCH_VERSION|CUDA_VERSION|CUDNN_VERSION)=([0-9][0-9.]*[0-9])`)
	})
	// "  - CuDNN 91.9  (built against CUDA 13.1)": torch writes cuDNN
	// 9's version integer (91900) with cuDNN 8's formula, so 9.19.0
	// reads as 91.9.
	tcCuDNN    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*-\s*CuDNN\s+(\d+(?:\.\d+){0,2})\b`) })
	tcReplLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^['"](\d+\.\d+(?:\.\d+)?(?:[+a-z0-9.]*)?)['"]$`) })
)

// torchConfig reads torch.__config__.show() from its "PyTorch built
// with:" line to the end of its indented "  - " list.
func (p *parser) torchConfig() {
	in := false
	var ver, cuda, cudnn, cudnnSetting string
	for i, l := range p.lines {
		t := strings.TrimSpace(l)
		if t == "PyTorch built with:" {
			in = true
			p.found(FormatTorchConfig)
			p.consume(i)
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(t, "-") {
			in = false
			continue
		}
		p.consume(i)
		if m := tcRuntime().FindStringSubmatch(l); m != nil && cuda == "" {
			cuda = m[1]
		}
		if m := tcCuDNN().FindStringSubmatch(l); m != nil {
			cudnn = torchConfigCUDNN(m[1])
		}
		for _, m := range tcSetting().FindAllStringSubmatch(t, -1) {
			switch m[1] {
			case "TORCH_VERSION":
				ver = m[2]
			case "CUDA_VERSION":
				cuda = m[2]
			case "CUDNN_VERSION":
				cudnnSetting = m[2]
			}
		}
	}
	if p.hasFormat(FormatTorchConfig) && ver != "" && p.pyTorch == nil {
		p.python(FormatTorchConfig)
		p.pyTorch = host.TorchFrom(ver, cuda, FormatTorchConfig)
	}
	if cudnnSetting != "" {
		// the build setting is exact; the CuDNN line is re-encoded
		cudnn = cudnnSetting
	}
	if p.pyTorch != nil && p.pyTorch.CUDNN == "" && cudnn != "" {
		p.pyTorch.CUDNN = cudnn
	}
	p.buildCUDA = cuda
}

// replVersion reads ">>> torch.__version__" followed by "'1.8.1'".
func replVersion(prev, t string) (name, version string, ok bool) {
	if !strings.HasSuffix(prev, ".__version__") {
		return "", "", false
	}
	m := tcReplLine().FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	mod := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(prev), ">>>")), ".__version__")
	return mod, m[1], true
}

// torchConfigCUDNN reads the version of torch's "CuDNN" line: "8.9.2"
// as it is, and cuDNN 9's "91.9" (91900 written as cuDNN 8's
// major*1000 + minor*100 + patch) as 9.19.0.
func torchConfigCUDNN(s string) string {
	parts := strings.Split(s, ".")
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return ""
	}
	if major < 90 {
		v, _, ok := host.NormalizeCUDNN(s)
		if !ok {
			return ""
		}
		return v
	}
	n := major * 1000
	if len(parts) > 1 {
		minor, err := strconv.Atoi(parts[1])
		if err != nil {
			return ""
		}
		n += minor * 100
	}
	if len(parts) > 2 {
		patch, err := strconv.Atoi(parts[2])
		if err != nil {
			return ""
		}
		n += patch
	}
	return host.CUDNNFromInt(n)
}
