package check

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
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
	// fallback is the build the framework's own line names when the
	// group as a whole matched none (a companion or the Python did not
	// fit): the checks that need only the framework's build still run
	// on it.
	fallback *query.Stack
}

// judgeUnit merges what a unit refers to, then judges it: once, or once
// per scenario (an extra, a dependency group, a shell branch, a lock's
// index) when the unit offers alternatives.
func (c *checker) judgeUnit(ctx context.Context, u *Unit, k Kind) ([]UnitSummary, error) {
	for _, n := range u.Notes {
		c.notFollowed(u, n.Line, n.Message)
	}
	if u.Build != nil {
		if err := c.followBuild(ctx, u); err != nil {
			return nil, err
		}
	}
	c.followIncludes(u)
	var image string
	if u.Image != nil {
		image = u.Image.Ref
		c.judgeImage(ctx, u)
	}
	scen := scenarios(u, c.frameworks())
	if len(scen) == 0 {
		s, err := c.judgeFrameworks(ctx, u)
		s.Image = image
		return []UnitSummary{s}, err
	}
	var out []UnitSummary
	for _, sc := range scen {
		s, err := c.judgeFrameworks(ctx, u.only(sc, len(scen) > 1, c.frameworks()))
		if err != nil {
			return out, err
		}
		s.Image, s.Scenario = image, sc
		out = append(out, s)
	}
	return out, nil
}

// judgeFrameworks judges what one scenario of a unit installs.
func (c *checker) judgeFrameworks(ctx context.Context, u *Unit) (UnitSummary, error) {
	sum := UnitSummary{Name: u.Name, Judged: []string{}}
	py := c.python(u)
	sum.Python = py
	groups := c.groups(u)
	// jax[cpu] is judged while the groups resolve: the frameworks that
	// use the GPU are known from a first pass.
	for _, g := range groups {
		if !slices.Contains(g.main.Extras, "cpu") {
			if err := c.resolveGroup(ctx, u, g, py); err != nil {
				return sum, err
			}
		}
	}
	gpuPeers(u, groups)
	for _, g := range groups {
		if slices.Contains(g.main.Extras, "cpu") {
			if err := c.resolveGroup(ctx, u, g, py); err != nil {
				return sum, err
			}
		}
		if g.stack != nil {
			sum.Judged = append(sum.Judged, stackLabel(g.stack))
			c.judged(u, g)
		}
	}
	if err := c.together(ctx, u, groups, py); err != nil {
		return sum, err
	}
	for _, g := range groups {
		if g.stack == nil && g.fallback != nil {
			g.stack = g.fallback
			c.judgedFallback(u, g)
		}
		if g.stack == nil {
			continue
		}
		c.pins(u, g)
		c.systemLibs(ctx, u, g)
		c.extensions(ctx, u, g)
		if err := c.verifyGroup(ctx, u, g, py); err != nil {
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

func (c *checker) followBuild(ctx context.Context, u *Unit) error {
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
		c.add(Finding{File: u.File, Line: u.Build.Line, Category: CatNotJudged, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("service %s builds from %s, which cannot be read (%v): its image is unknown", u.Name, p, err),
			Fix:     "cudb check " + p})
		return nil
	}
	d, err := ParseDockerfile(p, string(b), c.opts.BuildArgs)
	if errs.CodeOf(err) == errs.CodeLimit {
		return err
	}
	if err != nil {
		return errs.Usage("%v", err).WithHint("cudb check %s", p)
	}
	// The Dockerfile is judged as its own unit (its findings point at its
	// lines); the service keeps what decides its GPU needs.
	c.followed[joinPath(u.Build.Context, df)] = d
	// COPY sources are relative to the service's build context.
	d.context = path.Join(path.Dir(strings.ReplaceAll(u.File, "\\", "/")), u.Build.Context)
	s, err := c.judgeUnit(ctx, d, KindDockerfile)
	if err != nil {
		return err
	}
	c.extra = append(c.extra, FileSummary{File: p, Kind: KindDockerfile, Units: s})
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

// followIncludes merges -r/-c files, COPY'd dependency files read by a
// pip install or a sync, and local projects (pip install .) into the
// unit.
func (c *checker) followIncludes(u *Unit) {
	seen := map[string]bool{}
	synced := syncedFiles(u)
	c.followSyncDirs(u, synced)
	for i := 0; i < len(u.Includes) && c.limitErr == nil; i++ {
		in := u.Includes[i]
		sync, isSynced := synced[in.Path]
		if in.Installer == "copy" && !isSynced || seen[in.Installer+"\x00"+in.Path+"\x00"+in.Scenario] {
			continue
		}
		seen[in.Installer+"\x00"+in.Path+"\x00"+in.Scenario] = true
		if in.Installer == "local" {
			c.followLocal(u, in)
			continue
		}
		name := in.Path
		if u.Image != nil && in.Installer != "copy" {
			// A path inside the image: read it from the build context
			// the COPY that put it there names.
			if cp, ok := contextPath(u, in.Path, in.Workdir); ok {
				name = cp
			} else if strings.HasPrefix(in.Path, "/") {
				c.notFollowed(u, in.Line, fmt.Sprintf("%s is installed here, and no COPY from the build context puts it there: it is not judged", in.Path))
				continue
			}
		}
		p, b, err := c.readFrom(u, name)
		if err != nil {
			c.notFollowedAt(u, u.File, in.Line, fmt.Sprintf("%s is installed here but cannot be read (%v): check it separately", in.Path, err), "cudb check "+p)
			continue
		}
		k, err := Detect(p, b)
		if err != nil {
			k = KindRequirements
		}
		c.noteKind(p, k)
		units, err := c.parse(p, k, string(b))
		if c.limited(err) {
			return
		}
		if err != nil || len(units) != 1 {
			c.notFollowedAt(u, u.File, in.Line, fmt.Sprintf("%s is installed here but cannot be read as a %s file (%v)", in.Path, k, err), "cudb check "+p)
			continue
		}
		reqs := units[0].Reqs
		if isSynced {
			reqs = keepScenarios(reqs, sync.Extras, sync.Tool == "uv")
		}
		c.merge(u, in, p, reqs)
		for _, x := range units[0].Includes {
			x.Path = joinPath(dirOf(name), x.Path)
			if x.Installer == "local" && u.Image != nil {
				x.Workdir = ""
			}
			u.Includes = append(u.Includes, x)
		}
	}
}

// merge adds what an included file installs, with the sources and the
// branch of the install that read it.
func (c *checker) merge(u *Unit, in Include, file string, reqs []Requirement) {
	for _, r := range reqs {
		r.File = file
		if r.IndexURL == "" {
			r.IndexURL = in.IndexURL
		}
		r.ExtraIndexURLs = append(append([]string{}, r.ExtraIndexURLs...), in.ExtraIndexURLs...)
		r.FindLinks = append(append([]string{}, r.FindLinks...), in.FindLinks...)
		if in.Scenario != "" {
			r.Scenario = joinScenario(in.Scenario, r.Scenario)
		}
		r.Constraint = r.Constraint || in.Constraint
		u.Reqs = append(u.Reqs, r)
	}
}

func joinScenario(a, b string) string {
	if b == "" {
		return a
	}
	return a + ", " + b
}

// syncedFiles are the COPY'd files a poetry install or uv sync reads,
// with the sync that reads each: the tool's lock when one was copied,
// else pyproject.toml.
func syncedFiles(u *Unit) map[string]Sync {
	out := map[string]Sync{}
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
				out[in.Path], hasLock = s, true
			case "pyproject.toml":
				pyproject = in.Path
			}
		}
		if !hasLock && pyproject != "" {
			out[pyproject] = s
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
		name, fw := canonical(c.frameworks(), r.Name, r.Installer)
		if fw == "" || r.Marker != "" && c.platform() == "linux" && !markerAdmitsLinux(r.Marker) {
			// A line whose marker rules Linux out is not installed.
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
		r.IndexURL, r.Unseen = servingIndex(fw, r)
		g.reqs = append(g.reqs, r)
		if name == fw || g.main.Name == "" {
			g.main = r
		}
	}
	for _, r := range cons {
		name, fw := canonical(c.frameworks(), r.Name, r.Installer)
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
func canonical(table frameworks.Table, pkg, installer string) (name, fw string) {
	for _, f := range table {
		switch {
		case pkg == f.Name || slices.Contains(f.Packages, pkg):
			return f.Name, f.Name
		case slices.Contains(f.Companions, pkg):
			return pkg, f.Name
		case installer == InstallerConda && f.CondaName != "" && (pkg == f.CondaName || slices.Contains(f.CondaAliases, pkg)):
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
