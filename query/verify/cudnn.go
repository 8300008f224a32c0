package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// cudnnLib reports whether a copy is a loadable library (not a header).
func cudnnLib(c host.CUDNN) bool { return c.Source != host.CUDNNHeader }

// loadedCUDNN is the copy a framework in py meets first: LD_LIBRARY_PATH
// directories, then (for wheels that pin cuDNN) its own pip copy, then
// the loader cache and anything else.
func (v *verifier) loadedCUDNN(py *host.Python, usesPip bool) (first *host.CUDNN, pip *host.CUDNN) {
	var ld, other *host.CUDNN
	for i := range v.f.CUDNN {
		c := &v.f.CUDNN[i]
		if !cudnnLib(*c) {
			continue
		}
		switch {
		case c.Source == host.CUDNNLDPreload:
			// mapped before anything else: the copy every process uses
			return c, v.pipCopy(py)
		case c.Source == host.CUDNNLDLibraryPath && ld == nil:
			ld = c
		case c.Source == host.CUDNNPip && pip == nil && (py == nil || c.Env == "" || c.Env == py.Prefix):
			pip = c
		case other == nil && c.Source != host.CUDNNPip && c.Source != host.CUDNNLDLibraryPath:
			other = c
		}
	}
	switch {
	case ld != nil:
		return ld, pip
	case usesPip && pip != nil:
		return pip, pip
	case other != nil:
		return other, pip
	}
	return pip, pip
}

// pipCopy is the pip cuDNN copy of py's environment, or nil.
func (v *verifier) pipCopy(py *host.Python) *host.CUDNN {
	for i := range v.f.CUDNN {
		c := &v.f.CUDNN[i]
		if c.Source == host.CUDNNPip && (py == nil || c.Env == "" || c.Env == py.Prefix) {
			return c
		}
	}
	return nil
}

// shadows reports whether a copy is loaded ahead of a framework's own
// (LD_PRELOAD, LD_LIBRARY_PATH).
func shadows(c *host.CUDNN) bool {
	return c.Source == host.CUDNNLDLibraryPath || c.Source == host.CUDNNLDPreload
}

func (v *verifier) cudnn(ctx context.Context, fw *framework) error {
	if fw.build == nil || fw.cuda == "" {
		return nil
	}
	r, ok := fw.build.Req("cudnn", db.KindPin, db.KindBundled, db.KindTested)
	if !ok {
		return nil
	}
	_, pinned := fw.build.Req("cudnn", db.KindPin)
	if r.Kind == db.KindTested && fw.py != nil {
		// A framework that takes cuDNN from the environment's wheels when
		// they are there (tensorflow[and-cuda], a JAX CUDA plugin with
		// its with-cuda extra: its library's RPATH names
		// site-packages/nvidia/cudnn/lib) loads that copy before the
		// loader cache's.
		if _, ok := fw.py.NvidiaWheels[cudnnWheel(fw.cuda)]; ok {
			pinned = true
		}
	}
	rt := fw.torchRuntime()
	if rt != nil && rt.CUDNN == "" {
		rt = nil
	}
	if !pinned && r.Kind == db.KindBundled && rt == nil {
		// The wheel carries its own copy next to the library.
		return nil
	}
	want, err := version.ParseDotted(strings.TrimLeft(r.Spec, "=>~ "))
	if err != nil {
		return v.notJudged(fw, "cuDNN requirement", r.Spec, "whether the cuDNN it loads fits")
	}
	first, pip := v.loadedCUDNN(fw.py, pinned)
	if rt != nil {
		return v.cudnnRuntime(ctx, fw, r, pinned, want, rt, first)
	}
	if first == nil {
		// Only a probe can say a copy is absent: a report that lists no
		// cuDNN simply did not mention it.
		if !pinned && fw.name == frameworks.TensorFlow && v.f.Origin == host.OriginHost {
			v.cudnnMissing(ctx, fw, want)
		}
		return nil
	}
	if pr, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok && first != nil && pip != nil && first == pip {
		// The wheel's own specifier is the judge of the copy pip put
		// there (jax: nvidia-cudnn-cu12>=9.0,<10.0).
		if spec, err := version.ParseSpecifiers(pr.Spec); err == nil {
			if have, err := version.Parse(pip.Version); err == nil && spec.Check(have, true) {
				return nil
			}
		}
	}
	if pinned && pip == nil && v.f.Origin == host.OriginHost && r.Kind == db.KindPin && (!shadows(first) || first.Major != want.Major()) {
		// The probe looked in the environment and found no copy of the
		// wheel the framework pins: what it loads is missing, and a
		// system copy of another soname does not stand in for it.
		v.add(findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
			Message: fmt.Sprintf("%s pins cuDNN %s (libcudnn.so.%d from the %s wheel), and that wheel is not installed in %s; the cuDNN %s at %s is another library",
				fw.label, r.Spec, want.Major(), cudnnWheel(fw.cuda), envName(fw.py), first.Version, first.Path),
			Evidence: []string{fmt.Sprintf("%s: pins cuDNN %s", fw.label, r.Spec), fmt.Sprintf("cuDNN found: %s %s (%s)", first.Version, first.Path, first.Source)},
			Fix:      v.cudnnFix(ctx, fw, r, pinned), Sources: []query.SourceRef{{Name: r.Source, URL: r.URL}}})
		return nil
	}
	if (pinned || r.Kind == db.KindBundled) && first != pip && (!shadows(first) || first.Major != want.Major()) {
		// A wheel that brings its own cuDNN loads that copy. Another file
		// is evidence that a cuDNN is present, not of what the framework
		// loads (collect_env's "Probably one of the following" is a list
		// of candidates, not a load order), and a soname is a library's
		// identity: libcudnn.so.8 is not libcudnn.so.9. Only a copy of
		// the same soname ahead on LD_LIBRARY_PATH can shadow it, which
		// shadowing reports.
		return nil
	}
	have, err := version.ParseDotted(first.Version)
	if err != nil {
		return v.notJudged(fw, "version of the cuDNN at "+first.Path, first.Version, "whether it fits")
	}
	ev := []string{fmt.Sprintf("%s: needs cuDNN %s (%s)", fw.label, r.Spec, r.Kind), fmt.Sprintf("cuDNN loaded first: %s %s (%s)", first.Version, first.Path, first.Source)}
	fix := v.cudnnFix(ctx, fw, r, pinned)
	sources := []query.SourceRef{{Name: r.Source, URL: r.URL}}
	wf, hf := want.Fields(), have.Fields()
	switch {
	case have.Major() != want.Major():
		if !pinned && fw.name == frameworks.TensorFlow && v.f.Origin == host.OriginHost && !v.hasCUDNNMajor(want.Major()) {
			v.cudnnMissing(ctx, fw, want)
			return nil
		}
		v.add(findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %d, but the first copy it meets is cuDNN %s (%s)", fw.label, want.Major(), first.Version, first.Path),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && cmpPrefix(hf, wf) < 0:
		v.add(findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %s, but the first copy it meets is the older %s (%s)", fw.label, r.Spec, first.Version, first.Path),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && hf[1] != wf[1]:
		v.add(findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
			Message:  fmt.Sprintf("%s was built for cuDNN %s and meets cuDNN %s first (same major, newer minor: usually fine)", fw.label, r.Spec, first.Version),
			Evidence: ev, Fix: fix, Sources: sources})
	}
	_ = pip
	return nil
}

// cudnnRuntime judges the cuDNN torch really loaded; the copy the files
// predicted becomes evidence of the same finding, never a second one.
func (v *verifier) cudnnRuntime(ctx context.Context, fw *framework, r db.Requirement, pinned bool, want version.Dotted, rt *host.TorchRuntime, first *host.CUDNN) error {
	have, err := version.ParseDotted(rt.CUDNN)
	if err != nil {
		return v.notJudged(fw, "cuDNN version torch reported at run time", rt.CUDNN, "whether it fits")
	}
	how := "torch.backends.cudnn.version()"
	if rt.CUDNNRaw != "" {
		how += " = " + rt.CUDNNRaw
	}
	ev := []string{fmt.Sprintf("%s: needs cuDNN %s (%s)", fw.label, r.Spec, r.Kind),
		fmt.Sprintf("cuDNN loaded at runtime: %s (%s, %s)", rt.CUDNN, how, fw.py.Runtime.Interpreter)}
	if first != nil {
		ev = append(ev, fmt.Sprintf("cuDNN loaded first: %s %s (%s)", first.Version, first.Path, first.Source))
	}
	if rt.CUDNNError != "" {
		ev = append(ev, "torch: "+rt.CUDNNError)
	}
	fix := v.cudnnFix(ctx, fw, r, pinned)
	sources := []query.SourceRef{{Name: r.Source, URL: r.URL}}
	wf, hf := want.Fields(), have.Fields()
	switch {
	case have.Major() != want.Major():
		v.add(findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %d, but cuDNN %s is loaded at runtime", fw.label, want.Major(), rt.CUDNN),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && cmpPrefix(hf, wf) < 0:
		v.add(findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevError,
			Message:  fmt.Sprintf("%s needs cuDNN %s, but the older cuDNN %s is loaded at runtime", fw.label, r.Spec, rt.CUDNN),
			Evidence: ev, Fix: fix, Sources: sources})
	case len(hf) >= 2 && len(wf) >= 2 && hf[1] != wf[1]:
		v.add(findings.Finding{Category: findings.CatCUDNNMismatch, Severity: findings.SevWarning,
			Message:  fmt.Sprintf("%s was built for cuDNN %s and cuDNN %s is loaded at runtime (same major, newer minor: usually fine)", fw.label, r.Spec, rt.CUDNN),
			Evidence: ev, Fix: fix, Sources: sources})
	}
	return nil
}

// cmpPrefix compares a and b over the fields both have (8.9 vs 8.9.2.26
// is equal; 8.2.4 vs 8.9.2.26 is older).
func cmpPrefix(a, b []int) int {
	for i := 0; i < len(a) && i < len(b) && i < 3; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func cudnnWheel(cuda string) string { return "nvidia-cudnn-cu" + version.MajorText(cuda) }

func (v *verifier) hasCUDNNMajor(major int) bool {
	for _, c := range v.f.CUDNN {
		if cudnnLib(c) && c.Major == major {
			return true
		}
	}
	return false
}

func (v *verifier) cudnnFix(ctx context.Context, fw *framework, r db.Requirement, pinned bool) string {
	if pinned {
		if pr, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok {
			pin := cudnnWheel(fw.cuda) + pr.Spec
			if first, _ := v.loadedCUDNN(fw.py, true); first != nil && first.Source == host.CUDNNLDPreload {
				return fmt.Sprintf("unset LD_PRELOAD (it loads %s ahead of the wheel), and keep %q installed", first.Path, pin)
			}
			return fmt.Sprintf("pip install %q, and keep other cuDNN copies off LD_LIBRARY_PATH (unset LD_LIBRARY_PATH)", pin)
		}
	}
	if pr, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok && v.pipCUDNN() {
		// the environment's cuDNN is a pip wheel: the fix is a pip line,
		// not a system package
		return fmt.Sprintf("pip install %q (the cuDNN wheel %s requires; this environment's cuDNN comes from pip)", cudnnWheel(fw.cuda)+pr.Spec, fw.label)
	}
	return v.aptFix(ctx, fw)
}

// pipCUDNN reports whether the facts' cuDNN copies include a pip wheel.
func (v *verifier) pipCUDNN() bool {
	for _, c := range v.f.CUDNN {
		if c.Source == host.CUDNNPip {
			return true
		}
	}
	return false
}

// aptFix names the system cuDNN package to install, as the pin plan's
// apt file writes it (Options.SystemCUDNN, which the use cases supply so
// verify never imports pin), else the command that lists it.
func (v *verifier) aptFix(ctx context.Context, fw *framework) string {
	more := "cudb pin " + fw.name + "==" + fw.version + " --format apt"
	if v.opts.SystemCUDNN != nil {
		if l := v.opts.SystemCUDNN(ctx, v.d, fw.name, fw.version); l != "" {
			return fmt.Sprintf("sudo apt-get install -y '%s' (from NVIDIA's CUDA apt repository; %s lists every system package)", l, more)
		}
	}
	return more
}

func (v *verifier) cudnnMissing(ctx context.Context, fw *framework, want version.Dotted) {
	fix := v.aptFix(ctx, fw)
	if _, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); ok {
		fix = fmt.Sprintf("pip install \"%s[%s]==%s\"", frameworks.TensorFlow, frameworks.Must(frameworks.TensorFlow).GPUExtra, fw.version)
	}
	v.add(findings.Finding{Category: findings.CatCUDNNMissing, Severity: findings.SevError,
		Message: fmt.Sprintf("%s loads cuDNN %d from the system (libcudnn.so.%d), and no cuDNN %d copy was found: it will run on the CPU only",
			fw.label, want.Major(), want.Major(), want.Major()),
		Evidence: []string{fmt.Sprintf("%s: tested with cuDNN %s", fw.label, want), fmt.Sprintf("cuDNN copies found: %d", len(v.f.CUDNN))},
		Fix:      fix, Sources: fw.sources()})
}

// shadowing reports cuDNN copies on LD_LIBRARY_PATH that hide the pip
// copy a framework pins.
func (v *verifier) shadowing(fws []*framework) {
	for _, fw := range fws {
		if fw.build == nil {
			continue
		}
		if _, ok := fw.build.Req(cudnnWheel(fw.cuda), db.KindPin); !ok {
			continue
		}
		first, pip := v.loadedCUDNN(fw.py, true)
		if first == nil || pip == nil || first == pip || !shadows(first) || first.Version == pip.Version {
			continue
		}
		var rtEv []string
		if rt := fw.torchRuntime(); rt != nil && rt.CUDNN != "" {
			if version.CompareDottedText(rt.CUDNN, pip.Version) == 0 {
				// The process loaded the wheel's copy after all.
				continue
			}
			rtEv = []string{"cuDNN loaded at runtime: " + rt.CUDNN}
		}
		// A newer copy of the same major usually works; an older one or
		// another major does not.
		sev := findings.SevError
		if first.Major == pip.Major && version.CompareDottedText(first.Version, pip.Version) > 0 {
			sev = findings.SevWarning
		}
		if first.Source == host.CUDNNLDPreload {
			v.add(findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: sev,
				Message: fmt.Sprintf("LD_PRELOAD loads cuDNN %s (%s) into every process, ahead of the cuDNN %s wheel %s expects (%s)",
					first.Version, first.Path, pip.Version, fw.label, where(pip)),
				Evidence: append([]string{"LD_PRELOAD: " + strings.Join(v.f.LDPreload, ":"), "cuDNN " + first.Version + ": " + first.Path, "cuDNN " + pip.Version + ": " + where(pip)}, rtEv...),
				Fix:      fmt.Sprintf("unset LD_PRELOAD (or remove %s from it) so %s loads its own cuDNN", first.Path, fw.name)})
			continue
		}
		v.add(findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: sev,
			Message: fmt.Sprintf("LD_LIBRARY_PATH puts cuDNN %s (%s) ahead of the cuDNN %s wheel %s expects (%s)",
				first.Version, first.Path, pip.Version, fw.label, where(pip)),
			Evidence: append([]string{"LD_LIBRARY_PATH: " + strings.Join(v.f.LDLibraryPath, ":"), "cuDNN " + first.Version + ": " + first.Path, "cuDNN " + pip.Version + ": " + where(pip)}, rtEv...),
			Fix:      fmt.Sprintf("unset LD_LIBRARY_PATH (or remove %s from it) so %s loads its own cuDNN", dirOf(first.Path), fw.name)})
	}
}

// where names a cuDNN copy for a message: its path, or for a report that
// names a pip wheel without its files, the wheel.
func where(c *host.CUDNN) string {
	if c.Path != "" {
		return c.Path
	}
	if c.Source == host.CUDNNPip {
		return "its pip wheel"
	}
	return c.Source
}

func dirOf(p string) string {
	if i := strings.LastIndex(p, "/"); i > 0 && strings.Contains(p[i:], ".so") {
		return p[:i]
	}
	return p
}
