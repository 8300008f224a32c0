package probe

import (
	"context"
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
)

var cudaDirName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cuda(-\d+(\.\d+)*)?$`) })

// toolkits finds CUDA toolkits: /usr/local/cuda*, /opt/cuda, $CUDA_HOME,
// $CUDA_PATH and the nvcc first on PATH.
func (p *prober) toolkits(ctx context.Context) []host.Toolkit {
	var cands []string
	for _, dir := range []string{"/usr/local", "/opt"} {
		ents, err := p.fs.readDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if cudaDirName().MatchString(e.Name()) {
				cands = append(cands, path.Join(dir, e.Name()))
			}
		}
	}
	for _, k := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := p.opts.Env[k]; v != "" {
			cands = append(cands, path.Clean(v))
		}
	}

	byReal := map[string]*host.Toolkit{}
	var order []string
	add := func(c string) *host.Toolkit {
		r, err := p.fs.resolve(c)
		if err != nil || !p.fs.isDir(r) {
			return nil
		}
		if tk, ok := byReal[r]; ok {
			if c != tk.Path && !contains(tk.Aliases, c) {
				tk.Aliases = append(tk.Aliases, c)
			}
			return tk
		}
		tk := &host.Toolkit{Path: r}
		if c != r {
			tk.Aliases = []string{c}
		}
		p.toolkitVersion(tk)
		tk.Nvcc = p.fs.exists(path.Join(r, "bin/nvcc"))
		byReal[r] = tk
		order = append(order, r)
		return tk
	}
	for _, c := range cands {
		add(c)
	}

	// The nvcc first on PATH decides what a build sees; Debian's
	// nvidia-cuda-toolkit puts it in /usr/bin with no version file.
	for _, dir := range splitPath(p.opts.Env["PATH"]) {
		nv := path.Join(dir, "nvcc")
		r, err := p.fs.resolve(nv)
		if err != nil || p.fs.isDir(r) {
			continue
		}
		tk := add(path.Dir(path.Dir(r)))
		if tk == nil {
			break
		}
		tk.OnPath, tk.Nvcc = true, true
		if tk.Version == "" {
			if out, code, ok := p.run(ctx, "nvcc", nv, "--version"); ok && code == 0 {
				if v, ok := report.ParseNvcc(out); ok {
					tk.Version, tk.Source = v, "nvcc"
				}
			}
		}
		break
	}

	out := make([]host.Toolkit, 0, len(order))
	for _, r := range order {
		tk := byReal[r]
		if tk.Source == "" {
			tk.Source = "directory"
		}
		sort.Strings(tk.Aliases)
		out = append(out, *tk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

var versionTxt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`CUDA Version\s+(\d+(?:\.\d+)*)`) })

func (p *prober) toolkitVersion(tk *host.Toolkit) {
	if b, err := p.fs.read(path.Join(tk.Path, "version.json")); err == nil {
		var v struct {
			CUDA struct {
				Version string `json:"version"`
			} `json:"cuda"`
		}
		if json.Unmarshal(b, &v) == nil && v.CUDA.Version != "" {
			tk.Version, tk.Raw = host.ToolkitVersion(v.CUDA.Version)
			tk.Source = "version_json"
			return
		}
		p.note("toolkit", "%s/version.json has no cuda.version", tk.Path)
	}
	if b, err := p.fs.read(path.Join(tk.Path, "version.txt")); err == nil {
		if m := versionTxt().FindSubmatch(b); m != nil {
			tk.Version, tk.Source = string(m[1]), "version_txt"
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// headerCandidates are where cuDNN headers live: the system include
// directories (with Debian's alternatives names) and each toolkit.
func (p *prober) headerCandidates(toolkits []host.Toolkit) []string {
	c := []string{"/usr/include/cudnn_version.h", "/usr/include/cudnn.h"}
	for _, arch := range []string{"x86_64-linux-gnu", "aarch64-linux-gnu"} {
		dir := "/usr/include/" + arch
		c = append(c, p.fs.glob(dir, "cudnn_version*.h")...)
		c = append(c, p.fs.glob(dir, "cudnn_v[0-9]*.h")...)
	}
	c = append(c, "/usr/local/cuda/include/cudnn_version.h", "/usr/local/cuda/include/cudnn.h")
	for _, tk := range toolkits {
		c = append(c, path.Join(tk.Path, "include/cudnn_version.h"), path.Join(tk.Path, "include/cudnn.h"))
	}
	return c
}

// cudnn lists cuDNN copies in the order a process meets them.
func (p *prober) cudnn(ldPath []string, toolkits []host.Toolkit, pythons []host.Python) []host.CUDNN {
	var out []host.CUDNN
	seen := map[string]bool{}
	addLib := func(c host.CUDNN) {
		key := c.Source + "\x00" + c.Path
		if !seen[key] {
			seen[key] = true
			out = append(out, c)
		}
	}
	for _, dir := range ldPath {
		if c, ok := p.cudnnInDir(dir, host.CUDNNLDLibraryPath); ok {
			addLib(c)
		}
	}
	for _, e := range p.ld {
		if !strings.HasPrefix(e.Name, "libcudnn.so.") {
			continue
		}
		target := e.Path
		if r, err := p.fs.resolve(e.Path); err == nil {
			target = r
		}
		if c, ok := report.CUDNNFromLib(e.Name, target, host.CUDNNLdconfig); ok {
			c.Path = e.Path
			addLib(c)
		}
	}
	realSeen := map[string]bool{}
	for _, h := range p.headerCandidates(toolkits) {
		r, err := p.fs.resolve(h)
		if err != nil || realSeen[r] {
			continue
		}
		realSeen[r] = true
		b, err := p.fs.read(r)
		if err != nil {
			continue
		}
		if v, major, ok := report.ParseCUDNNHeader(b); ok {
			addLib(host.CUDNN{Path: h, Version: v, Major: major, Source: host.CUDNNHeader})
		}
	}
	for _, py := range pythons {
		names := make([]string, 0, len(py.NvidiaWheels))
		for name := range py.NvidiaWheels {
			if strings.HasPrefix(name, "nvidia-cudnn-cu") {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			raw := py.NvidiaWheels[name]
			v, major, ok := host.NormalizeCUDNN(raw)
			if !ok {
				continue
			}
			c := host.CUDNN{Version: v, Major: major, Raw: raw, Source: host.CUDNNPip, Env: py.Prefix}
			for _, sp := range py.SitePackages {
				if lib := path.Join(sp, "nvidia/cudnn/lib"); p.fs.isDir(lib) {
					c.Path = lib
					break
				}
			}
			addLib(c)
		}
		if raw, ok := py.CondaPackages["cudnn"]; ok {
			if v, major, ok := host.NormalizeCUDNN(raw); ok {
				addLib(host.CUDNN{Path: path.Join(py.Prefix, "lib"), Version: v, Major: major, Raw: raw, Source: host.CUDNNConda, Env: py.Prefix})
			}
		}
	}
	return out
}

// preloaded lists the cuDNN libraries LD_PRELOAD names: the loader maps
// them before anything else, so they are the copies a process meets
// first. The version comes from the file the name resolves to.
func (p *prober) preloaded(preload []string) []host.CUDNN {
	var out []host.CUDNN
	for _, lib := range preload {
		name := path.Base(lib)
		if !strings.HasPrefix(name, "libcudnn.so") || !path.IsAbs(lib) {
			continue
		}
		target := lib
		if r, err := p.fs.resolve(lib); err == nil {
			target = r
		}
		if c, ok := report.CUDNNFromLib(name, target, host.CUDNNLDPreload); ok {
			c.Path = lib
			out = append(out, c)
		}
	}
	return out
}

var libcudnnFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^libcudnn\.so(\.\d+)*$`) })

// cudnnInDir finds the main cuDNN library in dir and reads its version
// from the most specific file name (libcudnn.so.8.2.4 over libcudnn.so.8).
func (p *prober) cudnnInDir(dir, source string) (host.CUDNN, bool) {
	ents, err := p.fs.readDir(dir)
	if err != nil {
		return host.CUDNN{}, false
	}
	best, bestTarget := "", ""
	for _, e := range ents {
		if !libcudnnFile().MatchString(e.Name()) || e.Name() == "libcudnn.so" && best != "" {
			continue
		}
		target := e.Name()
		if r, err := p.fs.resolve(path.Join(dir, e.Name())); err == nil {
			target = path.Base(r)
		}
		if len(e.Name()) > len(best) {
			best = e.Name()
		}
		if len(target) > len(bestTarget) {
			bestTarget = target
		}
	}
	if best == "" {
		return host.CUDNN{}, false
	}
	name := best
	if name == "libcudnn.so" {
		name = bestTarget
	}
	c, ok := report.CUDNNFromLib(name, bestTarget, source)
	if !ok {
		return host.CUDNN{}, false
	}
	c.Path = path.Join(dir, best)
	return c, true
}
