package check

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

var (
	driverPkgRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(nvidia-driver-\d+|nvidia-utils-\d+|libnvidia-compute-\d+|nvidia-kernel-\S+|cuda-drivers(-\d+)?|nvidia-dkms-\d+|nvidia-headless-\S+)(?:=.*)?$`)
	})
	toolkitPkgRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^cuda(?:-toolkit|-runtime|-libraries|-compiler|-nvcc)?-(\d+)-(\d+)(?:=.*)?$`)
	})
)

// apt judges system packages a Dockerfile installs: a driver inside an
// image, a CUDA toolkit of another version than the image or the
// framework.
func (c *checker) apt(u *Unit, groups []*fwGroup) {
	for _, p := range u.Apt {
		if driverPkgRe().MatchString(p.Name) {
			c.add(Finding{File: u.File, Line: p.Line, Category: CatDriverInImage, Severity: findings.SevError, Unit: u.Name,
				Message:  fmt.Sprintf("%s installs a driver inside the image: the NVIDIA container toolkit mounts the host's driver libraries, and a second copy that does not match the host's kernel module fails with \"driver/library version mismatch\"", p.Name),
				Evidence: []string{"RUN " + p.Text},
				Fix:      withoutWord("RUN "+p.Text, p.Name)})
			continue
		}
		m := toolkitPkgRe().FindStringSubmatch(p.Name)
		if m == nil {
			continue
		}
		pkgCUDA := m[1] + "." + m[2]
		var against, what string
		if u.Image != nil && u.Image.CUDA != "" && !sameMinor(pkgCUDA, u.Image.CUDA) {
			against, what = u.Image.CUDA, "the image's CUDA "+u.Image.CUDA
		}
		for _, g := range groups {
			if g.stack != nil && g.component == frameworks.Torch && g.stack.CUDA != "" && version.MajorText(g.stack.CUDA) != m[1] {
				against, what = g.stack.CUDA, stackLabel(g.stack)+" (built with CUDA "+g.stack.CUDA+"; torch.utils.cpp_extension refuses another major)"
			}
		}
		if against == "" {
			continue
		}
		p2 := strings.Split(against, ".")
		fixPkg := strings.Replace(p.Name, m[1]+"-"+m[2], p2[0]+"-"+p2[1], 1)
		c.add(Finding{File: u.File, Line: p.Line, Category: findings.CatToolkitMismatch, Severity: findings.SevWarning, Unit: u.Name,
			Message:  fmt.Sprintf("%s installs CUDA %s beside %s: two CUDA versions in one image, and what builds or loads depends on path order", p.Name, pkgCUDA, what),
			Evidence: []string{"RUN " + p.Text},
			Fix:      strings.Replace("RUN "+p.Text, p.Name, fixPkg, 1)})
	}
}

// emptyInstall is an install command left with no package.
var emptyInstall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s*(?:&&|;)\s*)(?:sudo\s+)?(?:apt-get|apt|yum|dnf)\s+install(?:\s+-\S+)*\s*(?:$|(&&|;))`)
})

// withoutWord removes one package word from an instruction, and the
// install command with it when nothing else is left to install.
func withoutWord(line, w string) string {
	fs := strings.Fields(line)
	out := fs[:0]
	for _, f := range fs {
		if f != w {
			out = append(out, f)
		}
	}
	s, run := strings.Join(out, " "), ""
	if rest, ok := strings.CutPrefix(s, "RUN "); ok {
		s, run = rest, "RUN "
	}
	s = emptyInstall().ReplaceAllString(s, " $1")
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "&&"))
	return run + strings.TrimSpace(strings.TrimSuffix(s, "&&"))
}

// gpuAccess judges a compose service's GPU request against what its
// image and frameworks need.
func (c *checker) gpuAccess(u *Unit, groups []*fwGroup) {
	if u.GPU == nil {
		return
	}
	need, why := false, ""
	img := u.Image
	if u.built != nil {
		img = u.built.Image
	}
	if img.HasCUDA() {
		need, why = true, "image "+img.Ref+" carries CUDA"
	}
	for _, g := range groups {
		if g.stack != nil && g.stack.CUDA != "" {
			need, why = true, stackLabel(g.stack)+" is a CUDA build"
		}
	}
	if u.built != nil {
		for _, r := range u.built.Reqs {
			if _, fw := canonical(c.frameworks(), r.Name, r.Installer); fw != "" && c.frameworks().IsMain(r.Name) {
				if !need {
					need, why = true, r.Name+" is installed by the build"
				}
			}
		}
	}
	g := u.GPU
	reserve := "deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}"
	switch {
	case g.How == "" && need:
		c.add(Finding{File: u.File, Line: g.Line, Category: findings.CatNoGPUVisible, Severity: findings.SevError, Unit: u.Name,
			Message: fmt.Sprintf("service %s reserves no GPU, but %s: the container will see no GPU", u.Name, why),
			Fix:     reserve})
	case g.How == "deploy.devices" && g.Driver != "" && g.Driver != "nvidia":
		c.add(Finding{File: u.File, Line: g.Line, Category: findings.CatNoGPUVisible, Severity: findings.SevError, Unit: u.Name,
			Message: fmt.Sprintf("service %s reserves devices of driver %q: CUDA needs driver: nvidia, so the container will see no NVIDIA GPU", u.Name, g.Driver),
			Fix:     "driver: nvidia"})
	case g.How == "deploy.devices" && !contains(g.Capabilities, "gpu"):
		c.add(Finding{File: u.File, Line: g.Line, Category: findings.CatNoGPUVisible, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("service %s reserves devices without capabilities: [gpu]: compose requires the gpu capability to hand a GPU over", u.Name),
			Fix:     "capabilities: [gpu]"})
	case g.How == "runtime":
		c.add(Finding{File: u.File, Line: g.Line, Category: findings.CatNoGPUVisible, Severity: findings.SevInfo, Unit: u.Name,
			Message: "runtime: nvidia works only where the nvidia runtime is registered with the Docker daemon; a device reservation works wherever the NVIDIA container toolkit is installed",
			Fix:     reserve})
	}
}
