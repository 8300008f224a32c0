package verify

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
)

func (v *verifier) python(ctx context.Context, fw *framework) error {
	if fw.build == nil || fw.py == nil || fw.py.Version == "" {
		return nil
	}
	py, err := version.ParseDotted(pyMinor(fw.py))
	if err != nil {
		return v.notJudged(fw, "Python version", fw.py.Version, "whether it runs on that Python")
	}
	rng := query.Range{Min: fw.build.PythonMin, Max: fw.build.PythonMax}
	if rng.Min == "" && rng.Max == "" {
		// Unknown is an answer, the one resolve gives too.
		v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
			Message:  query.PythonRangeUnknownText(fw.label, fw.py.Version, v.inferredPython(ctx, fw, py)),
			Evidence: []string{"python: " + fw.py.Version + " (" + envName(fw.py) + ")"}, Fix: "cudb matrix " + frameworks.Must(fw.name).Matrix, Sources: fw.sources()})
		return nil
	}
	if rng.HasPython(py) {
		return nil
	}
	req := query.ResolveRequest{Requirements: []string{fw.name}, Python: pyMinor(fw.py), Platform: "linux"}
	v.hostConstraints(ctx, &req)
	v.add(findings.Finding{Category: findings.CatPythonUnsupported, Severity: findings.SevError,
		Message:  fmt.Sprintf("%s supports Python %s-%s, but the environment runs Python %s", fw.label, rng.Min, rng.Max, fw.py.Version),
		Evidence: []string{"python: " + fw.py.Version + " (" + envName(fw.py) + ")", fmt.Sprintf("%s: python %s-%s", fw.label, rng.Min, rng.Max)},
		Fix:      v.installFix(ctx, req, fw.name), Sources: fw.sources()})
	return nil
}

func (v *verifier) driver(ctx context.Context, fw *framework) error {
	if fw.cuda == "" {
		return nil
	}
	ev := []string{fmt.Sprintf("%s: built with CUDA %s", fw.label, fw.cuda)}
	var drv string
	if v.f.Driver != nil && v.f.Driver.Version != "" {
		d, err := nvidia.ParseDriver(v.f.Driver.Version)
		if err != nil {
			v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning,
				Message:  fmt.Sprintf("driver version %q is not one cudb can read; the driver check is skipped", v.f.Driver.Version),
				Evidence: []string{"driver: " + v.f.Driver.Version}, Fix: "nvidia-smi --query-gpu=driver_version --format=csv,noheader"})
		} else {
			drv = d
			ev = append(ev, "driver: "+drv+" ("+v.f.Driver.Source+")")
		}
	}
	if drv != "" {
		done, err := v.checkDriver(ctx, fw, drv, ev)
		if err != nil || done {
			return err
		}
	}
	// The driver's own statement (nvidia-smi "CUDA Version") catches
	// what a version lookup cannot: a WSL shim, an unknown branch.
	if dc := v.f.DriverCUDA; dc != nil && dc.Version != "" {
		have, want := version.MajorText(dc.Version), version.MajorText(fw.cuda)
		if a, e1 := strconv.Atoi(have); e1 == nil {
			if b, e2 := strconv.Atoi(want); e2 == nil && a < b {
				fix := v.driverFix(ctx, fw, drv)
				v.add(findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
					Message:  fmt.Sprintf("the driver supports CUDA up to %s, but %s needs CUDA %s", dc.Version, fw.label, fw.cuda),
					Evidence: append(ev, "driver CUDA: "+dc.Version+" ("+dc.Source+")"), Fix: fix, Sources: fw.sources()})
			}
		}
	}
	return nil
}

// driverOS is whose driver floors apply: Windows ones for the Windows
// driver a WSL2 guest sees, else Linux ones.
func (v *verifier) driverOS() string {
	if v.f.Driver != nil && v.f.Driver.WSL {
		return "windows"
	}
	return "linux"
}

// upgradeDriver says where the driver is upgraded.
func (v *verifier) upgradeDriver() string {
	if v.driverOS() == "windows" {
		return "upgrade the driver on the Windows host"
	}
	return "upgrade the driver"
}

// checkDriver applies CheckDriver; done is true when it gave a verdict.
func (v *verifier) checkDriver(ctx context.Context, fw *framework, drv string, ev []string) (bool, error) {
	cuda := fw.cuda
	floor := ""
	if !strings.Contains(cuda, ".") {
		// JAX and ONNX Runtime state a major only: the minor-version
		// compatibility floor is all that can be checked. A major
		// without one (TensorFlow 1.x's "9") is judged over its minors
		// by CheckDriverOS, as resolve does.
		var err error
		if floor, err = nvidia.MinDriver(ctx, v.d, cuda, v.driverOS(), "minor_compat"); err != nil {
			return false, err
		}
	}
	if floor != "" {
		if version.CompareDottedText(drv, floor) < 0 {
			v.add(findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
				Message:  fmt.Sprintf("driver %s is below %s, the minimum for CUDA %s, which %s needs", drv, floor, cuda, fw.label),
				Evidence: ev, Fix: fmt.Sprintf("install an NVIDIA driver >= %s (e.g. sudo apt-get install nvidia-driver-%s)", floor, branchFor(ctx, v, cuda)),
				Sources: v.driverSources(ctx, cuda)})
		}
		return true, nil
	}
	vd, err := nvidia.CheckDriverOS(ctx, v.d, drv, cuda, v.driverOS())
	if err != nil {
		if errs.CodeOf(err) == errs.CodeNotFound || errs.CodeOf(err) == errs.CodeUsage {
			v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevInfo,
				Message:  fmt.Sprintf("no driver floor is known for CUDA %s (%s); the driver check is skipped", cuda, fw.label),
				Evidence: ev, Fix: "cudb matrix cuda"})
			return true, nil
		}
		return false, err
	}
	switch {
	case vd.Unknown != "":
		v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevInfo,
			Message:  fmt.Sprintf("%s (%s); the driver check is skipped", vd.Unknown, fw.label),
			Evidence: ev, Fix: "cudb matrix cuda"})
	case !vd.OK:
		v.add(findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevError,
			Message:  fmt.Sprintf("%s cannot run on this driver: %s", fw.label, vd.Reason),
			Evidence: ev, Fix: v.driverFix(ctx, fw, drv), Sources: append(fw.sources(), v.driverSources(ctx, cuda)...)})
	case vd.Via == "minor_compat":
		v.add(findings.Finding{Category: findings.CatDriverTooOld, Severity: findings.SevInfo,
			Message:  fmt.Sprintf("%s runs via minor-version compatibility on driver %s (below CUDA %s's own floor); features that need a newer driver, such as PTX JIT of newer code, are unavailable", fw.label, drv, vd.CUDA),
			Evidence: ev, Fix: "optional: " + strings.TrimPrefix(vd.Note, "runs via minor-version compatibility; ") + " (" + v.upgradeDriver() + ")",
			Sources: v.driverSources(ctx, vd.CUDA)})
	}
	return true, nil
}

// driverSources cites the floor rows a driver judgement on cuda used.
func (v *verifier) driverSources(ctx context.Context, cuda string) []query.SourceRef {
	return nvidia.FloorSources(ctx, v.d, cuda, v.driverOS())
}

// branchFor names a driver branch that meets CUDA cuda's floor.
func branchFor(ctx context.Context, v *verifier, cuda string) string {
	floor, _ := nvidia.MinDriver(ctx, v.d, version.MajorText(cuda), "linux", "minor_compat")
	if floor == "" {
		return "<branch>"
	}
	return version.MajorText(floor)
}

// driverFix names the driver floor, and a build of the same framework
// that runs on the installed driver.
func (v *verifier) driverFix(ctx context.Context, fw *framework, drv string) string {
	var parts []string
	if fl, err := nvidia.DriverFloors(ctx, v.d, fw.cuda); err == nil {
		toolkit, compat, where := fl.LinuxMin, fl.MinorCompatLinuxMin, ""
		if v.driverOS() == "windows" {
			toolkit, compat, where = fl.WindowsMin, fl.MinorCompatWindowsMin, " on the Windows host (WSL2 uses its driver)"
		}
		floor := toolkit
		if floor == "" {
			floor = compat
		}
		s := fmt.Sprintf("upgrade the NVIDIA driver%s to >= %s (CUDA %s", where, floor, fl.CUDA)
		if compat != "" && compat != floor {
			s += fmt.Sprintf("; >= %s runs it via minor-version compatibility", compat)
		}
		parts = append(parts, s+")")
	}
	if drv != "" && fw.name != frameworks.JAX {
		req := query.ResolveRequest{Requirements: []string{fw.name + "==" + fw.version}, Driver: drv, DriverOS: v.driverOS(), Platform: "linux", Python: pyMinor(fw.py)}
		if cmd := v.resolveCmd(ctx, req); cmd != "" {
			parts = append(parts, "or keep the driver: "+cmd)
		} else {
			req.Requirements = []string{fw.name}
			if cmd := v.resolveCmd(ctx, req); cmd != "" {
				parts = append(parts, "or keep the driver with the newest "+fw.name+" that runs on it: "+cmd)
			}
		}
	}
	return strings.Join(parts, "; ")
}

func (v *verifier) resolveCmd(ctx context.Context, req query.ResolveRequest) string {
	for _, r := range []query.ResolveRequest{req, withoutPython(req)} {
		res, err := query.Resolve(ctx, v.d, r)
		if err == nil && len(res.Stacks) > 0 {
			return res.Stacks[0].Install.Command
		}
	}
	return ""
}
