package check

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
)

// judgeImage checks the base image against the target driver: an
// nvidia/cuda image declares NVIDIA_REQUIRE_CUDA=cuda>=X.Y, and the
// container toolkit refuses to start it on a driver whose CUDA is older.
func (c *checker) judgeImage(ctx context.Context, u *Unit) {
	im := u.Image
	c.judgeNGC(ctx, u) // an NGC release the data holds is known, and its driver judged
	if im.Unknown != "" {
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s: cudb cannot tell %s; checks that need it are skipped", im.Ref, im.Unknown),
			Fix:     pinTagFix(im)})
	}
	req := ""
	line := im.Line
	if im.Family == FamilyCUDA && im.CUDA != "" {
		req = im.CUDA
	}
	if ev, ok := u.Env["NVIDIA_REQUIRE_CUDA"]; ok {
		if m := requireCUDARe().FindStringSubmatch(ev.Value); m != nil {
			req, line = m[1], ev.Line
		}
	}
	if dis, ok := u.Env["NVIDIA_DISABLE_REQUIRE"]; ok && dis.Value != "" && dis.Value != "0" && dis.Value != "false" {
		// The container toolkit skips the requirement; what runs in
		// the image is still judged by its frameworks' CUDA.
		req = ""
	}
	if req != "" && c.opts.Target.Driver != "" {
		c.imageDriver(ctx, u, req, line)
	}
	if ld, ok := u.Env["LD_LIBRARY_PATH"]; ok && im.CUDA != "" {
		for _, dir := range strings.Split(ld.Value, ":") {
			m := cudaDirRe().FindStringSubmatch(dir)
			if m == nil || sameMinor(m[1], im.CUDA) {
				continue
			}
			c.add(Finding{File: u.File, Line: ld.Line, Category: findings.CatMultipleCUDALibs, Severity: findings.SevWarning, Unit: u.Name,
				Message:  fmt.Sprintf("LD_LIBRARY_PATH puts %s (CUDA %s) before the image's CUDA %s: libraries of two CUDA versions load into one process", dir, m[1], im.CUDA),
				Evidence: []string{"LD_LIBRARY_PATH=" + ld.Value, "image: " + im.Ref},
				Fix:      "ENV LD_LIBRARY_PATH=" + strings.Replace(ld.Value, dir, "/usr/local/cuda/lib64", 1)})
		}
	}
}

var (
	requireCUDARe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cuda>=(\d+\.\d+)`) })
	cudaDirRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/usr/local/cuda-(\d+\.\d+)`) })
)

func sameMinor(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	return len(pa) >= 2 && len(pb) >= 2 && pa[0] == pb[0] && pa[1] == pb[1]
}

func pinTagFix(im *Image) string {
	switch im.Family {
	case FamilyTensorFlow:
		return "FROM tensorflow/tensorflow:<version>-gpu (cudb matrix tensorflow lists the versions)"
	case FamilyNGCPyTorch:
		return "cudb check --python <the release's Python> … (the NGC release notes list its torch, CUDA and driver floor)"
	case FamilyNGC:
		if name, release := ngcImage(im); name != "" {
			// The tag names its release; what is missing is the data.
			return "cudb refresh once NVIDIA's " + name + " " + release + " release notes are in the data (they list its CUDA and driver floor)"
		}
	}
	if (im.Family == FamilyNGC || im.Family == FamilyNGCPyTorch) && ngcReleaseRe().MatchString(im.Tag) {
		// A variant of a versioned release (24.10-py3-sdk, -igpu):
		// pinning is not what is missing.
		return "the NGC release notes of " + im.Tag[:5] + " list what this image variant holds; cudb judges the plain YY.MM-py3 images"
	}
	return "pin a versioned tag (FROM " + strings.SplitN(im.Ref, ":", 2)[0] + ":<version>)"
}

func (c *checker) imageDriver(ctx context.Context, u *Unit, cuda string, line int) {
	t := c.opts.Target
	os := "linux"
	if t.DriverOS == "windows" {
		os = "windows"
	}
	mx, err := nvidia.MaxCUDAForDriverOS(ctx, c.d, t.Driver, os)
	if err != nil {
		c.add(Finding{File: u.File, Line: line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("no CUDA version is known for driver %s: whether it starts CUDA %s images is unknown", t.Driver, cuda),
			Fix:     "cudb matrix driver"})
		return
	}
	if version.CompareDottedText(version.MinorText(cuda), mx) <= 0 {
		return
	}
	fix := ""
	if tag := c.cudaTag(ctx, u.Image, mx); tag != "" {
		fix = "FROM nvidia/cuda:" + tag
	}
	if fl, err := nvidia.DriverFloors(ctx, c.d, cuda); err == nil && fl.LinuxMin != "" {
		alt := fmt.Sprintf("or upgrade the driver to >= %s", fl.LinuxMin)
		if fix == "" {
			fix = alt
		} else {
			fix += "\n# " + alt
		}
	}
	c.add(Finding{File: u.File, Line: line, Category: findings.CatDriverTooOld, Severity: findings.SevError, Unit: u.Name,
		Message:  fmt.Sprintf("the image requires cuda>=%s (NVIDIA_REQUIRE_CUDA) and driver %s supports CUDA up to %s: the NVIDIA container toolkit refuses to start it", version.MinorText(cuda), t.Driver, mx),
		Evidence: []string{"image: " + u.Image.Ref, "driver: " + t.Driver + " (" + t.From + ")", "driver's newest CUDA: " + mx},
		Fix:      fix})
}

// cudaTag writes an nvidia/cuda tag of the same flavour and OS for the
// newest toolkit release of CUDA minor mx.
func (c *checker) cudaTag(ctx context.Context, im *Image, mx string) string {
	if im == nil || im.Family != FamilyCUDA || im.Flavour == "" || im.OS == "" {
		return ""
	}
	rows, err := nvidia.MatrixCUDA(ctx, c.d)
	if err != nil {
		return ""
	}
	for _, r := range rows { // newest first
		if version.MinorText(r.CUDA) != mx {
			continue
		}
		v := r.CUDA
		if strings.Count(v, ".") == 1 {
			v += ".0"
		}
		tag := v + "-"
		if im.CUDNN != "" {
			tag += "cudnn" + im.CUDNN + "-"
		}
		return tag + im.Flavour + "-" + im.OS
	}
	return ""
}

// gpuIntended says whether the unit is meant to use a GPU: a CUDA base
// image, a GPU reservation or a target GPU.
func (c *checker) gpuIntended(u *Unit) bool {
	return u.Image.HasCUDA() || u.GPU != nil && u.GPU.How != "" || c.opts.Target.SM != "" || c.opts.Target.GPU != ""
}

// systemLibs checks what a framework loads from the image rather than
// from its own wheels: a CPU-only build where a GPU is meant, and a
// TensorFlow that needs the system's cuDNN on an image that has none.
func (c *checker) systemLibs(ctx context.Context, u *Unit, g *fwGroup) {
	s, m := g.stack, g.main
	if !c.gpuIntended(u) {
		return
	}
	if s.CUDA == "" || s.Variant == "cpu" {
		fix := ""
		if b := c.best(ctx, c.withTarget(query.ResolveRequest{Requirements: []string{m.Name + m.Spec}, Platform: c.platform(), Python: pyMinor(c.python(u))})); b != nil && b.CUDA != "" {
			fix = c.render(u, g, b)
		}
		sev, msg := findings.SevError, fmt.Sprintf("%s is a CPU-only build, but this environment is meant for a GPU (%s): it will never use the GPU", stackLabel(s), gpuReason(c, u))
		if explicitCPU(m) && u.gpuPeer {
			what := m.text()
			if m.Package != "" {
				what = m.Package + m.Spec
			}
			sev, msg = findings.SevInfo, fmt.Sprintf("%s asks for %s, a CPU-only build, beside a framework that uses the GPU: judged as the file's choice", what, stackLabel(s))
		}
		if u.alt {
			// One of several alternatives (a cpu extra beside a CUDA
			// one): the CPU build is a choice the file offers.
			sev, msg = findings.SevInfo, fmt.Sprintf("%s (%s) installs %s, a CPU-only build; the file's other alternatives are judged on their own", m.Scenario, m.text(), stackLabel(s))
		}
		c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatCPUOnlyWheel, Severity: sev, Unit: u.Name,
			Message: msg, Evidence: []string{"index: " + orPyPI(m.IndexURL)}, Fix: fix, Sources: s.Sources})
		g.cpuReported = true
		return
	}
	extra := frameworks.Must(g.component).GPUExtra
	if extra == "" || s.CUDNNKind() != "tested" || slices.Contains(m.Extras, extra) {
		return
	}
	if imageCUDNN(u) != "" || u.Image != nil && u.Image.Family == FamilyTensorFlow && u.Image.Flavour == "gpu" {
		// TensorFlow's GPU images carry the CUDA and cuDNN of their
		// own release.
		return
	}
	fix := ""
	andCUDA := false
	for _, p := range s.Pins {
		if strings.Contains(p, "nvidia-cudnn") && strings.Contains(p, `"`+extra+`"`) {
			andCUDA = true
		}
	}
	if andCUDA {
		g2 := *g
		g2.main.Extras = append(append([]string{}, m.Extras...), extra)
		fix = c.render(u, &g2, s)
	} else if u.Image != nil && u.Image.OS != "" && s.CUDA != "" && s.CUDNN != "" {
		fix = fmt.Sprintf("FROM nvidia/cuda:%s-cudnn%s-runtime-%s", fullCUDA(s.CUDA), version.MajorText(s.CUDNN), u.Image.OS)
	}
	if u.Image == nil {
		// A dependency file names no image: whether the host has CUDA
		// and cuDNN installed system-wide is not said, so this is not
		// judged to fail.
		c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatCUDNNMissing, Severity: findings.SevWarning, Unit: u.Name,
			Message:  fmt.Sprintf("%s loads CUDA %s and cuDNN %s from the system, and nothing in this file installs them: TensorFlow sees no GPU unless the host has them", stackLabel(s), s.CUDA, s.CUDNN),
			Evidence: []string{"requirement: " + m.text()}, Fix: fix, Sources: s.Sources})
		return
	}
	where := u.Image.Ref
	c.add(Finding{File: m.File, Line: m.Line, Category: findings.CatCUDNNMissing, Severity: findings.SevError, Unit: u.Name,
		Message:  fmt.Sprintf("%s loads CUDA %s and cuDNN %s from the system, and %s has no cuDNN: TensorFlow will see no GPU", stackLabel(s), s.CUDA, s.CUDNN, where),
		Evidence: []string{"image: " + where, "requirement: " + m.text()}, Fix: fix, Sources: s.Sources})
}

// explicitCPU reports a line that asks for a CPU build by name: a -cpu
// package (tensorflow-cpu), a cpu extra (jax[cpu]) or a CPU index.
func explicitCPU(r Requirement) bool {
	return strings.HasSuffix(r.Package, "-cpu") || slices.Contains(r.Extras, "cpu") || variantOf(r.IndexURL) == "cpu" || strings.HasSuffix(r.Spec, "+cpu")
}

// gpuPeers marks the unit when one of its frameworks is a CUDA build
// that does not ask for a CPU one.
func gpuPeers(u *Unit, groups []*fwGroup) {
	u.gpuPeer = false
	for _, g := range groups {
		if g.stack != nil && g.stack.CUDA != "" && g.stack.Variant != "cpu" && !explicitCPU(g.main) {
			u.gpuPeer = true
		}
	}
}

func fullCUDA(v string) string {
	if strings.Count(v, ".") == 1 {
		return v + ".0"
	}
	return v
}

func gpuReason(c *checker, u *Unit) string {
	switch {
	case u.Image.HasCUDA():
		return "base image " + u.Image.Ref
	case u.GPU != nil && u.GPU.How != "":
		return "a GPU is reserved"
	}
	if c.opts.Target.SM == "" {
		return "target GPU " + c.opts.Target.GPU
	}
	return "target GPU sm_" + strings.ReplaceAll(c.opts.Target.SM, ".", "")
}

// imageCUDNN is the cuDNN major the image provides (its tag, or an apt
// libcudnn package), "" when none.
func imageCUDNN(u *Unit) string {
	for _, p := range u.Apt {
		if m := cudnnPkgRe().FindStringSubmatch(p.Name); m != nil {
			return m[1]
		}
	}
	if u.Image != nil {
		return u.Image.CUDNN
	}
	return ""
}

var cudnnPkgRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^libcudnn(\d+)(?:-dev)?(?:-cuda-\d+)?(?:=.*)?$`) })

func (c *checker) withTarget(r query.ResolveRequest) query.ResolveRequest {
	t := c.opts.Target
	r.Driver, r.DriverOS, r.SM = t.Driver, t.DriverOS, t.SM
	return r
}

// facts describes the unit as verify sees a host: the target's driver
// and GPU, the image's toolkit and cuDNN, one Python environment with the
// group's build installed.
func (c *checker) facts(u *Unit, g *fwGroup, py string) *host.Snapshot {
	t := c.opts.Target
	f := &host.Snapshot{Origin: host.OriginReportPrefix + "check"}
	if t.Driver != "" {
		f.Driver = &host.Driver{Version: t.Driver, Source: t.From, WSL: t.DriverOS == "windows"}
	}
	if t.SM != "" {
		name := t.GPU
		if name == "" {
			name = "sm_" + strings.ReplaceAll(t.SM, ".", "")
		}
		f.GPUs = []host.GPU{{Name: name, ComputeCapability: t.SM, Source: t.From}}
	}
	if im := u.Image; im != nil && im.Flavour == "devel" && im.CUDA != "" {
		f.Toolkits = []host.Toolkit{{Path: "/usr/local/cuda", Version: im.CUDA, Source: "image " + im.Ref, Nvcc: true, OnPath: true}}
		f.CUDAHome = "/usr/local/cuda"
	}
	if n := imageCUDNN(u); n != "" {
		src := host.CUDNNLdconfig
		if ld, ok := u.Env["LD_LIBRARY_PATH"]; ok && strings.Contains(ld.Value, "/usr/lib/x86_64-linux-gnu") {
			src = host.CUDNNLDLibraryPath
		}
		f.CUDNN = []host.CUDNN{{Path: "/usr/lib/x86_64-linux-gnu/libcudnn.so." + n, Version: n, Major: atoi(n), Source: src}}
	}
	p := host.Python{Kind: host.KindReport, Source: "check", Version: py, Packages: map[string]string{}, NvidiaWheels: map[string]string{}}
	s := g.stack
	for name, v := range s.Packages {
		p.Packages[name] = v
	}
	for _, pin := range s.Pins {
		body, marker, _ := strings.Cut(pin, ";")
		if strings.Contains(marker, "extra") && !extraNamed(marker, g.main.Extras) {
			continue
		}
		n, v, ok := strings.Cut(strings.TrimSpace(body), "==")
		if ok && strings.HasPrefix(n, "nvidia-") {
			p.NvidiaWheels[n], p.Packages[n] = v, v
			if strings.HasPrefix(n, "nvidia-cudnn-") {
				// The wheel's own cuDNN, found through its RPATH
				// before the image's copy.
				f.CUDNN = append(f.CUDNN, host.CUDNN{Path: "site-packages/nvidia/cudnn", Version: v, Major: atoi(version.MajorText(v)), Source: host.CUDNNPip})
			}
		}
	}
	ver := s.Packages[g.component]
	if ver == "" {
		// The package has its own name (tensorflow_gpu 1.x).
		ver = s.Version().String()
	}
	switch g.component {
	case frameworks.Torch:
		if !strings.Contains(ver, "+") && s.Variant != "" && !s.Default {
			ver += "+" + s.Variant
		}
		p.Torch = &host.Torch{Version: ver, CUDA: s.CUDA, Variant: s.Variant, Source: "check"}
	case frameworks.TensorFlow:
		gpu := s.CUDA != ""
		p.TensorFlow = &host.TensorFlow{Version: ver, IsGPU: &gpu, Source: "check"}
	case frameworks.JAX:
		p.JAX = &host.JAX{Version: ver, Jaxlib: s.Packages[frameworks.JAXLib]}
		if pre := frameworks.Must(frameworks.JAX).PluginPrefix; s.CUDA != "" && pre != "" {
			p.JAX.Plugins = map[string]string{pre + version.MajorText(s.CUDA) + "-plugin": ver}
		}
	}
	f.Pythons = []host.Python{p}
	return f
}

// newestFix is the newer of the best stack for the environment's Python
// and the best for any Python: an old Python should not turn a fix into
// a years-old release without saying so.
func (c *checker) newestFix(ctx context.Context, req query.ResolveRequest) *query.Stack {
	a := c.best(ctx, req)
	r2 := req
	r2.Python = ""
	b := c.best(ctx, r2)
	if a == nil || b != nil && b.Version().Compare(a.Version()) > 0 && majorMinorGap(a, b) {
		return b
	}
	return a
}

// majorMinorGap reports whether b is a different major.minor release line
// than a (a patch release is not worth a Python change).
func majorMinorGap(a, b *query.Stack) bool {
	ra, rb := a.Version().Release(), b.Version().Release()
	return len(ra) < 2 || len(rb) < 2 || ra[0] != rb[0] || ra[1] != rb[1]
}

func hasPython(r query.Range, py string) bool {
	v, err := version.ParseDotted(py)
	return err != nil || r.HasPython(v)
}

func atoi(s string) int {
	n, _ := atoiOK(s)
	return n
}

// verifyGroup runs the host judgement (verify's) on the facts the unit implies for one
// framework and points each finding at the framework's line.
func (c *checker) verifyGroup(ctx context.Context, u *Unit, g *fwGroup, py string) error {
	found, err := c.opts.JudgeHost(ctx, c.d, c.facts(u, g, py), c.frameworks())
	if err != nil {
		return err
	}
	for _, f := range found {
		if f.Category == findings.CatCPUOnlyWheel && g.cpuReported || f.Category == findings.CatNoGPUVisible {
			continue
		}
		if g.stack == g.fallback && (f.Category == findings.CatPythonUnsupported || f.Category == findings.CatUnknownVersion) {
			// The group matched no build and said why; the fallback
			// build is judged for the host alone.
			continue
		}
		fix := f.Fix
		switch f.Category {
		case findings.CatDriverTooOld, findings.CatArchUnsupported, findings.CatCPUOnlyWheel, findings.CatPythonUnsupported:
			if f.Severity != findings.SevError {
				break
			}
			req := c.withTarget(query.ResolveRequest{Requirements: []string{g.component}, Platform: c.platform(), Python: pyMinor(py)})
			if g.main.Installer == InstallerConda {
				req.Channel = "conda"
			}
			if b := c.newestFix(ctx, req); b != nil {
				fix = c.render(u, g, b)
				if pyMinor(py) != "" && !hasPython(b.Python, pyMinor(py)) {
					fix = fmt.Sprintf("# needs Python %s-%s (the environment has %s)\n", b.Python.Min, b.Python.Max, py) + fix
				}
			}
		}
		c.add(Finding{File: g.main.File, Line: g.main.Line, Category: f.Category, Severity: f.Severity, Unit: u.Name,
			Message: f.Message, Fix: fix, Evidence: f.Evidence, Sources: f.Sources})
	}
	return nil
}
