package check

import (
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

// kindOf is a file's kind for rendering: the kind it was read as, else
// a guess from its name.
func (c *checker) kindOf(file string) Kind {
	if k, ok := c.kinds[file]; ok {
		return k
	}
	k, ok := kindByName(file[strings.LastIndexAny(file, `/\`)+1:])
	if !ok {
		return KindDockerfile
	}
	return k
}

// noteKind records the kind file was read as.
func (c *checker) noteKind(file string, k Kind) {
	if k == "" {
		return
	}
	if c.kinds == nil {
		c.kinds = map[string]Kind{}
	}
	c.kinds[file] = k
}

// pkgVersions are the versions of a stack for the names the group's lines
// use, in the lines' order (the framework alone when none is named).
func pkgVersions(g *fwGroup, s *query.Stack) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	names := []string{}
	for _, r := range g.reqs {
		// What the base image ships is not reinstalled by the fix.
		if r.Installer != "image" || len(g.reqs) == 1 {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		names = []string{g.component}
	}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		v := s.Packages[n]
		if v == "" {
			continue
		}
		if pv, err := version.Parse(v); err == nil {
			v = pv.Public()
		}
		out = append(out, [2]string{n, v})
	}
	return out
}

// indexFor is the index a stack's wheels are installed from; "" for
// PyPI's default build.
func indexFor(s *query.Stack) string {
	if s.Default || s.Install.PyPIDefault {
		return ""
	}
	return s.Install.IndexURL
}

// render writes the line that installs stack s in the syntax of the
// file that holds g's main line.
func (c *checker) render(u *Unit, g *fwGroup, s *query.Stack) string {
	return c.renderPkgs(u, g, pkgVersions(g, s), indexFor(s), s)
}

// renderReqs renders pip requirement strings (resolve's suggestions).
func (c *checker) renderReqs(u *Unit, g *fwGroup, reqs []string) string {
	var pv [][2]string
	for _, r := range reqs {
		n, v, _ := strings.Cut(r, "==")
		pv = append(pv, [2]string{n, v})
	}
	return c.renderPkgs(u, g, pv, "", nil)
}

func (c *checker) renderPkgs(u *Unit, g *fwGroup, pv [][2]string, index string, s *query.Stack) string {
	if len(pv) == 0 {
		return ""
	}
	m := g.main
	file := m.File
	if file == "" {
		file = u.File
	}
	extras := ""
	if len(m.Extras) > 0 {
		extras = "[" + strings.Join(m.Extras, ",") + "]"
	}
	var reqs []string
	for _, p := range pv {
		x := ""
		if p[0] == m.Name {
			x = extras
		}
		reqs = append(reqs, p[0]+x+"=="+p[1])
	}
	if g.fromImage && s != nil {
		if img := imageFor(u.Image, g, s); img != "" {
			if c.kindOf(file) == KindCompose {
				return "image: " + img
			}
			return "FROM " + img
		}
	}
	if m.Installer == InstallerConda {
		var cs []string
		for _, p := range pv {
			cs = append(cs, condaName(p[0])+"="+p[1])
		}
		if s != nil && s.CUDA != "" && g.component == frameworks.Torch {
			// conda's pytorch takes its CUDA build from pytorch-cuda.
			cs = append(cs, condaName(g.component)+"-cuda="+minorCUDA(s.CUDA))
		}
		if c.kindOf(file) == KindCondaEnv {
			return "- " + strings.Join(cs, "\n- ")
		}
		return "RUN conda install -y " + strings.Join(cs, " ")
	}
	switch c.kindOf(file) {
	case KindRequirements:
		out := strings.Join(reqs, "\n")
		if index != "" {
			out = "--extra-index-url " + index + "\n" + out
		}
		return out
	case KindPyproject:
		var q []string
		if m.Installer == "poetry" {
			for _, p := range pv {
				if index != "" {
					q = append(q, p[0]+` = { version = "`+p[1]+`", source = "`+indexName(index)+`" }`)
					continue
				}
				q = append(q, p[0]+` = "`+p[1]+`"`)
			}
			if index != "" {
				q = append(q, "[[tool.poetry.source]]", `name = "`+indexName(index)+`"`, `url = "`+index+`"`, `priority = "explicit"`)
			}
			return strings.Join(q, "\n")
		}
		for _, r := range reqs {
			q = append(q, `"`+r+`",`)
		}
		return strings.Join(append(q, pyprojectIndex(m, pv, index)...), "\n")
	case KindUVLock:
		return "uv lock --upgrade-package " + strings.Join(reqs, " --upgrade-package ")
	case KindPoetryLock:
		return "poetry add " + strings.Join(quoteAll(reqs), " ")
	case KindCondaEnv:
		return "- " + strings.Join(reqs, "\n- ")
	}
	cmd := "pip install"
	if m.Installer == InstallerUV {
		cmd = "uv pip install"
	}
	line := "RUN " + cmd + " " + strings.Join(quoteAll(reqs), " ")
	if index != "" {
		line += " --index-url " + index
	}
	return line
}

func minorCUDA(v string) string {
	p := strings.Split(v, ".")
	if len(p) >= 2 {
		return p[0] + "." + p[1]
	}
	return v
}

func quoteAll(reqs []string) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		if strings.ContainsAny(r, "[<>") {
			r = `"` + r + `"`
		}
		out[i] = r
	}
	return out
}

func condaName(n string) string {
	if f, ok := frameworks.Get(n); ok && f.Name == n && f.CondaName != "" {
		return f.CondaName
	}
	return n
}

// imageFor names the framework image tag for stack s (pytorch/pytorch,
// tensorflow/tensorflow), or "" when the tag cannot be written.
func imageFor(im *Image, g *fwGroup, s *query.Stack) string {
	if im == nil {
		return ""
	}
	v := ""
	if pv, err := version.Parse(s.Packages[g.component]); err == nil {
		v = pv.Public()
	}
	switch im.Family {
	case FamilyPyTorch:
		if s.CUDA == "" || s.CUDNN == "" || v == "" {
			return ""
		}
		flav := im.Flavour
		if flav == "" {
			flav = "runtime"
		}
		return "pytorch/pytorch:" + v + "-cuda" + s.CUDA + "-cudnn" + version.MajorText(s.CUDNN) + "-" + flav
	case FamilyTensorFlow:
		if v == "" {
			return ""
		}
		return "tensorflow/tensorflow:" + v + "-gpu"
	}
	return ""
}

// pyprojectIndex are the lines that route a pyproject's fixed pins to
// the index that serves their build, when that is not PyPI's default: the
// version alone would install PyPI's build (or the build of the index the
// file already routes to), which is the one that failed. A package routed
// by a uv source keeps its source and the index's url changes; otherwise
// a uv index and sources are added (pip users pass the url to pip).
func pyprojectIndex(m Requirement, pv [][2]string, index string) []string {
	if index == "" || index == m.IndexURL {
		return nil
	}
	if m.Source != "" {
		return []string{"# and in [[tool.uv.index]] " + strconv.Quote(m.Source) + ": url = " + strconv.Quote(index)}
	}
	name := indexName(index)
	out := []string{"# and install them from " + index + " (pip: pip install --extra-index-url " + index + "; uv: these lines)",
		"[[tool.uv.index]]", "name = " + strconv.Quote(name), "url = " + strconv.Quote(index), "explicit = true",
		"[tool.uv.sources]"}
	for _, p := range pv {
		out = append(out, p[0]+" = { index = "+strconv.Quote(name)+" }")
	}
	return out
}

// indexName names an index after its last path element
// ("https://download.pytorch.org/whl/cu118" -> "pytorch-cu118").
func indexName(url string) string {
	u := strings.TrimRight(url, "/")
	last := u[strings.LastIndexByte(u, '/')+1:]
	if strings.Contains(u, "download.pytorch.org") {
		return "pytorch-" + last
	}
	if last == "" || strings.Contains(last, ".") {
		return "gpu"
	}
	return last
}
