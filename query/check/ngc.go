package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
)

// NGC framework containers (nvcr.io/nvidia/<image>:YY.MM-py3). The facts
// are the ngc source's: one build per release (version YY.MM) and image
// (variant) of component "ngc" on channel "ngc", with the CUDA, cuDNN and
// NCCL the image carries, the driver floor its release notes state and,
// as attribute "datacenter_drivers@<image>", the data-center driver
// releases the notes allow below that floor.
const (
	ngcComponent  = "ngc"
	ngcChannel    = "ngc"
	ngcDataCenter = "datacenter_drivers@"
)

// FamilyNGC is an NGC framework container other than PyTorch
// (tensorflow, jax, tritonserver).
const FamilyNGC = "ngc"

// ngcImage names the image and release of an NGC framework container
// reference ("pytorch", "24.10"), or "" when im is not one.
func ngcImage(im *Image) (name, release string) {
	if im == nil || (im.Family != FamilyNGCPyTorch && im.Family != FamilyNGC) {
		return "", ""
	}
	m := ngcTagRe().FindStringSubmatch(im.Tag)
	if m == nil {
		return "", ""
	}
	ref := strings.SplitN(strings.ToLower(im.Ref), ":", 2)[0]
	return ref[strings.LastIndexByte(ref, '/')+1:], m[1] + "." + m[2]
}

// judgeNGC reads an NGC image's release facts into the image and judges
// the target driver against the release's floor. It reports whether the
// data holds the release; when it does not, the caller's "cannot tell"
// warning stands.
//
// NVIDIA's notes state one floor ("release 560 or later") and, for data-
// center GPUs only, older branches that run the image through CUDA
// forward compatibility ("535.86 (or later R535)"). So a driver below the
// floor is an error on a GeForce card, fine on a data-center GPU in a
// listed branch, and a warning when the GPU is not known (or is a
// workstation or Jetson part, which the notes do not name).
func (c *checker) judgeNGC(ctx context.Context, u *Unit) bool {
	im := u.Image
	name, release := ngcImage(im)
	if name == "" {
		return false
	}
	b, err := c.ngcBuild(ctx, name, release)
	if err != nil || b == nil {
		return false
	}
	im.Unknown = ""
	if r, ok := b.Req("cuda", db.KindBundled); ok {
		im.CUDA = r.Spec
	}
	if r, ok := b.Req("cudnn", db.KindBundled); ok {
		im.CUDNN = strings.SplitN(r.Spec, ".", 2)[0]
	}
	if im.Python == "" {
		im.Python = b.PythonMin
	}
	t := c.opts.Target
	floor, ok := b.Req("driver", db.KindMinimum)
	if t.Driver == "" {
		return true
	}
	if !ok {
		c.ngcNoFloor(ctx, u, release)
		return true
	}
	need := strings.TrimPrefix(floor.Spec, ">=")
	if version.CompareDottedText(t.Driver, need) >= 0 || driverBranch(t.Driver) >= atoi(need) {
		return true
	}
	what := fmt.Sprintf("%s (NGC release %s, CUDA %s)", im.Ref, release, im.CUDA)
	ev := []string{"image: " + im.Ref, "driver: " + t.Driver + " (" + t.From + ")", "the release's floor: driver release " + need + " or later"}
	src := []query.SourceRef{{Name: floor.Source, URL: floor.URL}}
	dc, dcProv, _ := c.d.Attribute(ctx, ngcComponent, release, ngcDataCenter+name)
	allowed := ngcAllowed(dc, t.Driver)
	if dc != "" {
		ev = append(ev, "data-center drivers the notes allow: "+dc+" (each or later in its branch)")
		src = append(src, query.SourceRef{Name: dcProv.Source, URL: dcProv.URL})
	}
	fix := "upgrade the driver to release " + need + " or later"
	segment, gpu := "", t.GPU
	if t.GPU != "" {
		if g, err := nvidia.LookupGPU(ctx, c.d, t.GPU); err == nil {
			segment, gpu = g.Segment, g.Name
		}
	}
	switch {
	case allowed != "" && segment == "datacenter":
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatDriverTooOld, Severity: findings.SevInfo, Unit: u.Name,
			Message: fmt.Sprintf("%s needs driver release %s or later; driver %s is older but runs it on %s, a data-center GPU, through CUDA forward compatibility (the release notes allow %s or later in R%s)",
				what, need, t.Driver, gpu, allowed, strings.SplitN(allowed, ".", 2)[0]),
			Evidence: ev, Sources: src})
	case allowed != "" && segment == "":
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatDriverTooOld, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s needs driver release %s or later; driver %s runs it only on a data-center GPU, through CUDA forward compatibility (the release notes allow %s or later in R%s); on a GeForce card it does not",
				what, need, t.Driver, allowed, strings.SplitN(allowed, ".", 2)[0]),
			Evidence: ev, Sources: src, Fix: "cudb check … --gpu <the GPU> to judge it, or " + fix})
	case allowed != "" && segment != "geforce":
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatDriverTooOld, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s needs driver release %s or later; driver %s is older, and the release notes allow it (%s or later in R%s) on data-center GPUs only: whether %s (%s) gets forward compatibility is not stated",
				what, need, t.Driver, allowed, strings.SplitN(allowed, ".", 2)[0], gpu, segment),
			Evidence: ev, Sources: src, Fix: fix})
	case segment != "geforce" && (dc == "" || !belowEvery(dc, t.Driver)):
		// A branch the notes do not list, on a GPU that is not GeForce:
		// the notes do not say it fails, so it is not judged.
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatDriverTooOld, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s needs driver release %s or later; driver %s is older and its branch is not one the release notes allow through CUDA forward compatibility (%s): whether it runs is not stated",
				what, need, t.Driver, orNone(dc)),
			Evidence: ev, Sources: src, Fix: fix})
	default:
		why := "; its branch is older than every one the release notes allow through CUDA forward compatibility (" + dc + ")"
		if segment == "geforce" {
			why = fmt.Sprintf("; %s is a GeForce card, which gets no CUDA forward compatibility (the older branches the release notes allow are for data-center GPUs)", gpu)
		}
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatDriverTooOld, Severity: findings.SevError, Unit: u.Name,
			Message:  fmt.Sprintf("%s needs driver release %s or later and driver %s is older%s", what, need, t.Driver, why),
			Evidence: ev, Sources: src, Fix: fix})
	}
	return true
}

// ngcNoFloor judges an image whose release notes state no driver floor:
// newer notes defer to NVIDIA's CUDA compatibility documents, so the
// image's CUDA is held to its major's minor-version-compatibility floor
// (the least any driver needs to run it without the forward-compatibility
// package). Below it, a GeForce card is an error; any other GPU, or an
// unknown one, a warning (forward compatibility is not stated for it).
// At or above it, nothing is said.
func (c *checker) ngcNoFloor(ctx context.Context, u *Unit, release string) {
	im, t := u.Image, c.opts.Target
	fl, err := nvidia.DriverFloors(ctx, c.d, im.CUDA)
	if err != nil || fl.MinorCompatLinuxMin == "" {
		c.add(Finding{File: u.File, Line: im.Line, Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Unit: u.Name,
			Message: fmt.Sprintf("%s: the release notes of NGC release %s state no driver floor and no floor is known for its CUDA %s, so whether driver %s runs it is not judged", im.Ref, release, im.CUDA, t.Driver),
			Fix:     "cudb matrix cuda"})
		return
	}
	need := fl.MinorCompatLinuxMin
	if version.CompareDottedText(t.Driver, need) >= 0 || driverBranch(t.Driver) >= atoi(need) {
		return
	}
	segment, gpu := "", t.GPU
	if t.GPU != "" {
		if g, err := nvidia.LookupGPU(ctx, c.d, t.GPU); err == nil {
			segment, gpu = g.Segment, g.Name
		}
	}
	f := Finding{File: u.File, Line: im.Line, Category: findings.CatDriverTooOld, Severity: findings.SevWarning, Unit: u.Name,
		Message: fmt.Sprintf("%s (NGC release %s, CUDA %s): its release notes state no driver floor; CUDA %s needs driver %s or later by minor-version compatibility, and driver %s is older: it runs only through the forward-compatibility package, which the notes do not state for this release",
			im.Ref, release, im.CUDA, version.MajorText(im.CUDA), need, t.Driver),
		Evidence: []string{"image: " + im.Ref, "driver: " + t.Driver + " (" + t.From + ")"},
		Fix:      "upgrade the driver to " + need + " or later (" + fl.LinuxMin + " for every CUDA " + im.CUDA + " feature)"}
	if segment == "geforce" {
		f.Severity = findings.SevError
		f.Message = fmt.Sprintf("%s (NGC release %s, CUDA %s) needs driver %s or later (CUDA %s's minor-version-compatibility floor; the notes state no other) and driver %s is older; %s is a GeForce card, which gets no CUDA forward compatibility",
			im.Ref, release, im.CUDA, need, version.MajorText(im.CUDA), t.Driver, gpu)
	}
	c.add(f)
}

// ngcBuild is the ngc build of image name at release, or nil.
func (c *checker) ngcBuild(ctx context.Context, name, release string) (*db.BuildRow, error) {
	rows, err := c.d.Builds(ctx, ngcComponent, func(v string) bool { return v == release })
	if err != nil {
		return nil, err
	}
	for _, b := range rows {
		if b.Variant == name && b.Channel == ngcChannel {
			return b, nil
		}
	}
	return nil, nil
}

// ngcAllowed is the data-center release of driver's branch in the notes'
// list ("535.86") when driver is that release or later, else "".
func ngcAllowed(list, driver string) string {
	br := driverBranch(driver)
	for _, rel := range strings.Fields(list) {
		if driverBranch(rel) == br && version.CompareDottedText(driver, rel) >= 0 {
			return rel
		}
	}
	return ""
}

// belowEvery reports whether driver's branch is older than every branch
// of the list.
func belowEvery(list, driver string) bool {
	br := driverBranch(driver)
	for _, rel := range strings.Fields(list) {
		if driverBranch(rel) <= br {
			return false
		}
	}
	return list != ""
}

func orNone(s string) string {
	if s == "" {
		return "none stated"
	}
	return s
}

// driverBranch is a driver version's branch (535 for 535.183.01).
func driverBranch(v string) int { return atoi(strings.SplitN(v, ".", 2)[0]) }
