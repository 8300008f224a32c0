package probe

import (
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
)

type pyCand struct{ prefix, source string }

// pythons finds the Python environments a user may be running, the most
// specific first: --python, the active venv, the active conda env, the
// user site, the system site.
func (p *prober) pythons() []host.Python {
	var cands []pyCand
	if p.opts.Python != "" {
		// bin/python → the prefix; the link is not followed because a
		// venv's python points at the base interpreter.
		cands = append(cands, pyCand{path.Dir(path.Dir(path.Clean(p.opts.Python))), "--python"})
	}
	if v := p.opts.Env["VIRTUAL_ENV"]; v != "" {
		cands = append(cands, pyCand{path.Clean(v), "VIRTUAL_ENV"})
	}
	if v := p.opts.Env["CONDA_PREFIX"]; v != "" {
		cands = append(cands, pyCand{path.Clean(v), "CONDA_PREFIX"})
	}
	interp, pathPrefix := p.pathPython()
	if pathPrefix != "" {
		cands = append(cands, pyCand{pathPrefix, "PATH"})
	}
	if h := p.opts.Env["HOME"]; h != "" {
		cands = append(cands, pyCand{path.Join(h, ".local"), "default"})
	}
	cands = append(cands, pyCand{"/usr", "default"})

	var out []host.Python
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.prefix] {
			continue
		}
		seen[c.prefix] = true
		if py, ok := p.python(c); ok {
			if c.prefix == pathPrefix {
				py.Interpreter = interp
			}
			out = append(out, py)
		}
	}
	return out
}

// pathPython finds python3 as the shell would: the first PATH directory
// holding one (an active venv's or conda env's bin, pyenv's shims, then
// the system's). It returns the interpreter's path and its environment's
// prefix; a pyenv shim is followed to the version pyenv selects
// (PYENV_VERSION, a .python-version from the working directory up, then
// the global version file).
func (p *prober) pathPython() (interp, prefix string) {
	for _, dir := range strings.Split(p.opts.Env["PATH"], ":") {
		if dir == "" || !path.IsAbs(dir) {
			continue
		}
		dir = path.Clean(dir)
		py := path.Join(dir, "python3")
		if !p.fs.exists(py) {
			continue
		}
		if path.Base(dir) != "shims" || !p.fs.isDir(path.Join(path.Dir(dir), "versions")) {
			return py, path.Dir(dir)
		}
		root := path.Dir(dir)
		if r := p.opts.Env["PYENV_ROOT"]; r != "" {
			root = path.Clean(r)
		}
		v := p.pyenvVersion(root)
		if v == "" || v == "system" {
			continue // pyenv hands over to the next python3 on PATH
		}
		return py + " (pyenv " + v + ")", path.Join(root, "versions", v)
	}
	return "", ""
}

// pyenvVersion is the first version pyenv would select under root.
func (p *prober) pyenvVersion(root string) string {
	first := func(b []byte) string {
		if f := strings.Fields(string(b)); len(f) > 0 {
			return f[0]
		}
		return ""
	}
	if v := first([]byte(p.opts.Env["PYENV_VERSION"])); v != "" {
		return strings.Split(v, ":")[0]
	}
	if wd := p.opts.Env["PWD"]; path.IsAbs(wd) {
		for d := path.Clean(wd); ; d = path.Dir(d) {
			if b, err := p.fs.read(path.Join(d, ".python-version")); err == nil {
				if v := first(b); v != "" {
					return v
				}
			}
			if d == "/" {
				break
			}
		}
	}
	b, _ := p.fs.read(path.Join(root, "version"))
	return first(b)
}

var pyDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python(\d+\.\d+)t?$`) })

// sitePackages lists a prefix's package directories in import order;
// lib64 is read too because it can differ from lib.
func (p *prober) sitePackages(prefix string, system bool) (dirs []string, pyVersion string) {
	var libs []string
	if system {
		libs = append(libs, path.Join(prefix, "local/lib"))
	}
	libs = append(libs, path.Join(prefix, "lib"), path.Join(prefix, "lib64"))
	seen := map[string]bool{}
	addDir := func(d string) {
		r, err := p.fs.resolve(d)
		if err != nil || seen[r] || !p.fs.isDir(r) {
			return
		}
		seen[r] = true
		dirs = append(dirs, d)
	}
	for _, lib := range libs {
		for _, pd := range p.fs.glob(lib, "python3*") {
			m := pyDir().FindStringSubmatch(path.Base(pd))
			if m != nil && pyVersion == "" {
				pyVersion = m[1]
			}
			addDir(path.Join(pd, "site-packages"))
			if system {
				addDir(path.Join(pd, "dist-packages"))
			}
		}
		if system {
			addDir(path.Join(lib, "python3/dist-packages"))
		}
	}
	return dirs, pyVersion
}

func (p *prober) python(c pyCand) (host.Python, bool) {
	py := host.Python{Prefix: c.prefix, Source: c.source}
	isConda := p.fs.isDir(path.Join(c.prefix, "conda-meta"))
	cfg, cfgErr := p.fs.read(path.Join(c.prefix, "pyvenv.cfg"))
	switch {
	case cfgErr == nil:
		py.Kind = host.KindVenv
	case isConda:
		py.Kind = host.KindConda
	case p.opts.Env["HOME"] != "" && c.prefix == path.Join(p.opts.Env["HOME"], ".local"):
		py.Kind = host.KindUser
	case path.Base(path.Dir(c.prefix)) == "versions" && p.fs.isDir(path.Join(path.Dir(path.Dir(c.prefix)), "shims")):
		py.Kind = host.KindPyenv // <root>/versions/3.11.7 beside <root>/shims
	default:
		py.Kind = host.KindSystem
	}
	dirs, dirVersion := p.sitePackages(c.prefix, py.Kind == host.KindSystem)
	if len(dirs) == 0 && !isConda {
		if c.source != "default" {
			p.note("python", "%s (%s) has no site-packages", c.prefix, c.source)
		}
		return py, false
	}
	py.SitePackages = dirs
	py.Version = dirVersion
	if cfgErr == nil {
		if v := pyvenvVersion(cfg); v != "" {
			py.Version = v
		}
	}
	if isConda {
		p.condaMeta(&py)
	}
	reqs := map[string][]string{}
	for _, d := range dirs {
		p.readDists(d, &py, reqs)
	}
	p.frameworks(&py, reqs)
	return py, true
}

var pyvenvKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(version_info|version)\s*=\s*(\d+\.\d+(?:\.\d+)?)`)
})

func pyvenvVersion(cfg []byte) string {
	m := pyvenvKey().FindSubmatch(cfg)
	if m == nil {
		return ""
	}
	return string(m[2])
}

// readDists reads every *.dist-info/METADATA and *.egg-info of one
// site-packages directory; names already seen in an earlier directory
// win, as they would on import.
func (p *prober) readDists(dir string, py *host.Python, reqs map[string][]string) {
	ents, err := p.fs.readDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		var meta string
		switch {
		case strings.HasSuffix(name, ".dist-info"):
			meta = path.Join(dir, name, "METADATA")
		case strings.HasSuffix(name, ".egg-info"):
			meta = path.Join(dir, name)
			if p.fs.isDir(meta) {
				meta = path.Join(meta, "PKG-INFO")
			}
		default:
			continue
		}
		b, err := p.fs.read(meta)
		if err != nil {
			continue
		}
		md := report.ParseMetadata(b)
		if md.Name == "" || md.Version == "" {
			continue
		}
		n := host.NormalizeName(md.Name)
		if _, dup := py.Packages[n]; dup {
			continue
		}
		if py.Packages == nil {
			py.Packages = map[string]string{}
		}
		py.Packages[n] = md.Version
		for _, r := range md.Requires {
			rn := host.NormalizeName(reqName(r))
			if strings.HasPrefix(rn, "nvidia-") || strings.HasPrefix(rn, frameworks.Must(frameworks.JAX).PluginPrefix) || rn == frameworks.JAXLib {
				reqs[n] = append(reqs[n], r)
			}
		}
	}
}

var reqNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`) })

func reqName(r string) string {
	if m := reqNameRe().FindStringSubmatch(r); m != nil {
		return m[1]
	}
	return ""
}

// condaMeta reads <prefix>/conda-meta/*.json: one file per package.
func (p *prober) condaMeta(py *host.Python) {
	for _, f := range p.fs.glob(path.Join(py.Prefix, "conda-meta"), "*.json") {
		b, err := p.fs.read(f)
		if err != nil {
			continue
		}
		var m struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}
		if json.Unmarshal(b, &m) != nil || m.Name == "" {
			continue
		}
		if py.CondaPackages == nil {
			py.CondaPackages = map[string]string{}
		}
		py.CondaPackages[m.Name] = m.Version
		if m.Name == "python" && m.Version != "" {
			py.Version = m.Version
		}
	}
}

var torchHip = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^hip\s*(?::\s*[A-Za-z_.\[\]]+\s*)?=\s*['"](\d+)\.(\d+)`)
})

// frameworks reads the framework build files as text.
func (p *prober) frameworks(py *host.Python, reqs map[string][]string) {
	if _, ok := py.Packages[frameworks.Torch]; ok {
		for _, d := range py.SitePackages {
			b, err := p.fs.read(path.Join(d, frameworks.Must(frameworks.Torch).VersionFile))
			if err != nil {
				continue
			}
			v, cuda, ok := report.ParseTorchVersionPy(b)
			if !ok {
				continue
			}
			t := host.TorchFrom(v, cuda, "version_py")
			if t.Variant == "" && cuda == "" {
				if m := torchHip().FindSubmatch(b); m != nil {
					t.Variant = "rocm" + string(m[1]) + "." + string(m[2])
				} else {
					t.Variant = "cpu"
				}
			}
			py.Torch = t
			break
		}
		if py.Torch == nil {
			py.Torch = host.TorchFrom(py.Packages[frameworks.Torch], "", "metadata")
		}
		py.Torch.Requires = reqs[frameworks.Torch]
	}
	py.DeriveWith("metadata", p.opts.Frameworks)
	if py.TensorFlow != nil {
		py.TensorFlow.Requires = reqs[py.TensorFlow.Package]
		for _, d := range py.SitePackages {
			b, err := p.fs.read(path.Join(d, frameworks.Must(frameworks.TensorFlow).VersionFile))
			if err != nil {
				continue
			}
			if bi, ok := report.ParseTFBuildInfo(b); ok {
				py.TensorFlow.CUDA, py.TensorFlow.CUDNN, py.TensorFlow.IsGPU = bi.CUDA, bi.CUDNN, bi.IsGPU
				py.TensorFlow.Source = "build_info_py"
			}
			break
		}
	}
	if py.JAX != nil {
		var rs []string
		for name := range py.JAX.Plugins {
			rs = append(rs, reqs[name]...)
		}
		rs = append(rs, reqs[frameworks.JAX]...)
		sort.Strings(rs)
		py.JAX.Requires = rs
	}
}
