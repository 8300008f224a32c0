package report

import (
	"regexp"
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
	tcReplLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^['"](\d+\.\d+(?:\.\d+)?(?:[+a-z0-9.]*)?)['"]$`) })
)

// torchConfig reads torch.__config__.show() from its "PyTorch built
// with:" line to the end of its indented "  - " list.
func (p *parser) torchConfig() {
	in := false
	var ver, cuda string
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
		for _, m := range tcSetting().FindAllStringSubmatch(t, -1) {
			switch m[1] {
			case "TORCH_VERSION":
				ver = m[2]
			case "CUDA_VERSION":
				cuda = m[2]
			}
		}
	}
	if p.hasFormat(FormatTorchConfig) && ver != "" && p.pyTorch == nil {
		p.python(FormatTorchConfig)
		p.pyTorch = host.TorchFrom(ver, cuda, FormatTorchConfig)
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
