package check

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/verify"
)

// fwGroup is one framework family a unit installs, with the lines that
// name it.
type fwGroup struct {
	component string
	reqs      []Requirement // the framework first, then companions
	main      Requirement   // the line findings point at
	fromImage bool
	stack     *query.Stack
	// cpuReported: check already said the build is CPU-only.
	cpuReported bool
}

// judgeUnit merges what a unit refers to, then judges it.
func (c *checker) judgeUnit(u *Unit, k Kind) (UnitSummary, error) {
	for _, n := range u.Notes {
		c.add(Finding{File: u.File, Line: n.Line, Category: CatNotJudged, Severity: verify.SevInfo, Message: n.Message, Unit: u.Name})
	}
	if u.Build != nil {
		if err := c.followBuild(u); err != nil {
			return UnitSummary{}, err
		}
	}
	c.followIncludes(u)
	sum := UnitSummary{Name: u.Name, Judged: []string{}}
	if u.Image != nil {
		sum.Image = u.Image.Ref
		c.judgeImage(u)
	}
	py := c.python(u)
	sum.Python = py
	groups := c.groups(u)
	for _, g := range groups {
		if err := c.resolveGroup(u, g, py); err != nil {
			return sum, err
		}
		if g.stack != nil {
			sum.Judged = append(sum.Judged, stackLabel(g.stack))
		}
	}
	if err := c.together(u, groups, py); err != nil {
		return sum, err
	}
	for _, g := range groups {
		if g.stack == nil {
			continue
		}
		c.pins(u, g)
		c.systemLibs(u, g)
		if err := c.verifyGroup(u, g, py); err != nil {
			return sum, err
		}
	}
	c.apt(u, groups)
	c.gpuAccess(u, groups)
	return sum, nil
}

var aptPythonRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python(3\.\d+)$`) })

// python is the interpreter the unit's packages are installed for: the
// target's, the file's own, a python3.X the image installs (deadsnakes),
// else the base image's.
func (c *checker) python(u *Unit) string {
	apt := ""
	for _, p := range u.Apt {
		if m := aptPythonRe().FindStringSubmatch(strings.SplitN(p.Name, "=", 2)[0]); m != nil {
			apt = m[1]
		}
	}
	switch {
	case c.opts.Target.Python != "":
		return c.opts.Target.Python
	case u.Python != "":
		return u.Python
	case apt != "":
		return apt
	case u.Image != nil:
		return u.Image.Python
	}
	return ""
}

func (c *checker) followBuild(u *Unit) error {
	df := u.Build.Dockerfile
	if df == "" {
		df = "Dockerfile"
	}
	p := joinPath(u.Build.Context, df)
	if d, ok := c.followed[p]; ok {
		u.Image, u.Reqs, u.built = nil, nil, d
		return nil
	}
	p, b, err := c.read(u.File, p)
	if err != nil {
		c.add(Finding{File: u.File, Line: u.Build.Line, Category: CatNotJudged, Severity: verify.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("service %s builds from %s, which cannot be read (%v): its image is unknown", u.Name, p, err),
			Fix:     "cudb check " + p})
		return nil
	}
	d, err := ParseDockerfile(p, string(b), c.opts.BuildArgs)
	if err != nil {
		return errs.Usage("%v", err).WithHint("cudb check %s", p)
	}
	// The Dockerfile is judged as its own unit (its findings point at its
	// lines); the service keeps what decides its GPU needs.
	c.followed[joinPath(u.Build.Context, df)] = d
	s, err := c.judgeUnit(d, KindDockerfile)
	if err != nil {
		return err
	}
	c.extra = append(c.extra, FileSummary{File: p, Kind: KindDockerfile, Units: []UnitSummary{s}})
	u.Image = nil
	u.Reqs = nil
	u.built = d
	return nil
}

func joinPath(dir, name string) string {
	if dir == "" || dir == "." || strings.HasPrefix(name, "/") {
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// followIncludes merges -r/-c files and COPY'd dependency files read by
// a pip install into the unit.
func (c *checker) followIncludes(u *Unit) {
	seen := map[string]bool{}
	synced := syncedFiles(u)
	for i := 0; i < len(u.Includes) && i < 32; i++ {
		in := u.Includes[i]
		if in.Installer == "copy" && !synced[in.Path] || seen[in.Path] {
			continue
		}
		seen[in.Path] = true
		p, b, err := c.read(u.File, in.Path)
		if err != nil {
			c.add(Finding{File: u.File, Line: in.Line, Category: CatNotJudged, Severity: verify.SevInfo, Unit: u.Name,
				Message: fmt.Sprintf("%s is installed here but cannot be read (%v): check it separately", in.Path, err),
				Fix:     "cudb check " + p})
			continue
		}
		k, err := Detect(p, b)
		if err != nil {
			k = KindRequirements
		}
		units, err := Parse(p, k, string(b), c.opts.BuildArgs)
		if err != nil || len(units) != 1 {
			c.add(Finding{File: u.File, Line: in.Line, Category: CatNotJudged, Severity: verify.SevWarning, Unit: u.Name,
				Message: fmt.Sprintf("%s is installed here but cannot be read as a %s file (%v)", in.Path, k, err),
				Fix:     "cudb check " + p})
			continue
		}
		for _, r := range units[0].Reqs {
			r.File = p
			if r.IndexURL == "" {
				r.IndexURL = in.IndexURL
			}
			r.Constraint = r.Constraint || in.Constraint
			u.Reqs = append(u.Reqs, r)
		}
		for _, x := range units[0].Includes {
			x.Path = joinPath(dirOf(in.Path), x.Path)
			u.Includes = append(u.Includes, x)
		}
	}
}

// syncedFiles are the COPY'd files a poetry install or uv sync reads:
// the tool's lock when one was copied, else pyproject.toml.
func syncedFiles(u *Unit) map[string]bool {
	out := map[string]bool{}
	for _, s := range u.Syncs {
		lock := s.Tool + ".lock"
		var pyproject string
		hasLock := false
		for _, in := range u.Includes {
			if in.Installer != "copy" {
				continue
			}
			switch base := in.Path[strings.LastIndexByte(in.Path, '/')+1:]; base {
			case lock:
				out[in.Path], hasLock = true, true
			case "pyproject.toml":
				pyproject = in.Path
			}
		}
		if !hasLock && pyproject != "" {
			out[pyproject] = true
		}
	}
	return out
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// groups collects the unit's frameworks: what pip/uv/conda/locks install,
// constraints folded in, and the framework the base image ships unless
// the files install that framework again.
func (c *checker) groups(u *Unit) []*fwGroup {
	var out []*fwGroup
	by := map[string]*fwGroup{}
	var cons []Requirement
	for _, r := range u.Reqs {
		if r.Constraint {
			cons = append(cons, r)
			continue
		}
		name, fw := canonical(r.Name, r.Installer)
		if fw == "" {
			continue
		}
		g := by[fw]
		if g == nil {
			g = &fwGroup{component: fw}
			by[fw] = g
			out = append(out, g)
		}
		if name != r.Name {
			r.Package = r.Name
		}
		r.Name = name
		g.reqs = append(g.reqs, r)
		if name == fw || g.main.Name == "" {
			g.main = r
		}
	}
	for _, r := range cons {
		name, fw := canonical(r.Name, r.Installer)
		if g := by[fw]; fw != "" && g != nil && r.Spec != "" {
			for i := range g.reqs {
				if g.reqs[i].Name == name {
					g.reqs[i].Spec = joinSpecs(g.reqs[i].Spec, r.Spec)
					if g.main.Line == g.reqs[i].Line && g.main.Name == name {
						g.main = g.reqs[i]
					}
				}
			}
		}
	}
	if im := u.Image; im != nil && im.Framework != "" && !names(by[im.Framework], im.Framework) && im.FrameworkVersion != "" {
		r := Requirement{Name: im.Framework, Spec: "==" + im.FrameworkVersion, Line: im.Line, File: u.File, Installer: "image"}
		if im.Family == FamilyPyTorch && im.CUDA != "" {
			r.IndexURL = "https://download.pytorch.org/whl/" + cuVariant(im.CUDA)
		}
		if im.Family == FamilyTensorFlow && im.Flavour == "gpu" {
			if x := frameworks.Must(frameworks.TensorFlow).GPUExtra; x != "" {
				r.Extras = []string{x}
			}
		}
		if g := by[im.Framework]; g != nil {
			// The files install companions only (pip install
			// torchvision==…): they must agree with the image's torch.
			g.reqs = append([]Requirement{r}, g.reqs...)
			g.main = r
		} else {
			g := &fwGroup{component: im.Framework, reqs: []Requirement{r}, main: r, fromImage: true}
			out = append([]*fwGroup{g}, out...)
		}
	}
	// Findings point at the file that names the requirement.
	for _, g := range out {
		for i := range g.reqs {
			if g.reqs[i].File == "" {
				g.reqs[i].File = u.File
			}
		}
		if g.main.File == "" {
			g.main.File = u.File
		}
	}
	return out
}

// canonical maps a package name a file installs to the component resolve
// knows and its framework (torchvision → torchvision, torch). Another
// package of the same release line (tensorflow-gpu 2.x) is judged as the
// framework's build of that version, which is what it installs; conda's
// package names (pytorch) count for conda lines only. Names that are
// only aliases in resolve (onnxruntime, the CPU package) are not
// frameworks here: installing them installs no CUDA build.
func canonical(pkg, installer string) (name, fw string) {
	for _, f := range frameworks.All {
		switch {
		case pkg == f.Name || slices.Contains(f.Packages, pkg):
			return f.Name, f.Name
		case slices.Contains(f.Companions, pkg):
			return pkg, f.Name
		case installer == InstallerConda && f.CondaName != "" && pkg == f.CondaName:
			return f.Name, f.Name
		}
	}
	return "", ""
}

// names reports whether the group installs the framework itself.
func names(g *fwGroup, framework string) bool {
	if g == nil {
		return false
	}
	for _, r := range g.reqs {
		if r.Name == framework {
			return true
		}
	}
	return false
}

func joinSpecs(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// cuVariant turns "12.1" into "cu121".
func cuVariant(cuda string) string {
	p := strings.Split(cuda, ".")
	if len(p) < 2 {
		return ""
	}
	return "cu" + p[0] + p[1]
}

var variantRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/whl/(?:nightly/)?(cu\d+|cpu|rocm[\d.]+|xpu)(?:/torch_stable\.html)?/?$`)
})

// variantOf reads a wheel variant from an index URL
// (download.pytorch.org/whl/cu121 → cu121).
func variantOf(index string) string {
	if m := variantRe().FindStringSubmatch(strings.TrimSpace(index)); m != nil {
		return m[1]
	}
	return ""
}

func stackLabel(s *query.Stack) string {
	var parts []string
	for _, k := range sortedKeys(s.Packages) {
		parts = append(parts, k+"=="+s.Packages[k])
	}
	return strings.Join(parts, " ")
}

func (r Requirement) text() string {
	s := r.Name
	if len(r.Extras) > 0 {
		s += "[" + strings.Join(r.Extras, ",") + "]"
	}
	return s + r.Spec
}

// hasLocal reports whether a requirement pins a local label (+cu121).
func hasLocal(spec string) bool { return strings.Contains(spec, "+") }

func pyMinor(py string) string {
	p := strings.Split(py, ".")
	if len(p) < 2 {
		return ""
	}
	return p[0] + "." + p[1]
}
