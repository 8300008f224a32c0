package ngc

import (
	"fmt"
	"sort"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// Component is the fact component of NGC images: a build per release
// (version YY.MM) and image (variant), on channel "ngc".
const Component = "ngc"

// Channel is the build channel of NGC images.
const Channel = "ngc"

// Attribute keys, per image ("<key>@<image>").
const (
	// AttrDataCenter lists the data-center drivers the release's notes
	// allow below the floor ("470.57 525.85 535.86 545.23": each that
	// release or later in its branch), through CUDA forward compatibility.
	AttrDataCenter = "datacenter_drivers"
	// AttrCCMin is the lowest compute capability the release supports.
	AttrCCMin = "cc_min"
)

type image struct {
	release, name string
	f             map[string]string
	prov          db.Provenance
	// trainProv cites the data-center branches when another image's notes
	// of the same release stated them.
	trainProv db.Provenance
}

// Normalize implements scraper.Source. Each image release becomes a build
// with its bundled CUDA, cuDNN and NCCL, its Python and its driver floor.
// An image known only from quoted statements takes the data-center driver
// branches of the release notes of another image of the same release
// when both name the same CUDA: NVIDIA states one driver requirement per
// release (the Frameworks Support Matrix has one driver row per release
// for every framework container). Where the notes and a statement give
// one image two values, the notes are kept and the statement's value is
// a conflict.
func (s Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	by := map[string]*image{}
	var order []string
	for _, r := range recs {
		if r.Table != tableNotes && r.Table != tableStatement {
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	// Notes first, then statements, whatever order the records come in.
	for _, pass := range []string{tableNotes, tableStatement} {
		for _, r := range recs {
			if r.Table != pass {
				continue
			}
			k := r.Fields["image"] + "/" + r.Fields["release"]
			p := db.Provenance{Source: Name, URL: r.URL, Ref: r.Ref}
			im, ok := by[k]
			if !ok {
				im = &image{release: r.Fields["release"], name: r.Fields["image"], f: map[string]string{}, prov: p}
				by[k] = im
				order = append(order, k)
			}
			for _, key := range []string{"cuda", "cudnn", "nccl", "python", "driver", "driver_release", "datacenter_drivers", "cc_min", "torch"} {
				v := r.Fields[key]
				if key == "driver" {
					key, v = "driver_release", r.Fields["driver"]
				}
				if v == "" {
					continue
				}
				if old := im.f[key]; old != "" && old != v {
					f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "ngc " + k, Field: key, Kept: old, KeptSource: Name + " (" + im.prov.Ref + ")",
						Other: v, OtherSource: Name + " (" + r.Ref + ")", Note: "a quoted statement differs from the release notes; the notes are kept"})
					continue
				}
				im.f[key] = v
			}
		}
	}
	sort.Strings(order)
	for _, k := range order {
		im := by[k]
		if im.f["datacenter_drivers"] != "" {
			continue
		}
		for _, k2 := range order {
			o := by[k2]
			if o != im && o.release == im.release && o.f["datacenter_drivers"] != "" && o.f["cuda"] != "" && o.f["cuda"] == im.f["cuda"] &&
				o.f["driver_release"] == im.f["driver_release"] {
				im.f["datacenter_drivers"] = o.f["datacenter_drivers"]
				im.trainProv = o.prov
				im.trainProv.Ref += fmt.Sprintf(" (release %s's driver requirements: the %s image, same CUDA %s and floor R%s)", o.release, o.name, o.f["cuda"], o.f["driver_release"])
				break
			}
		}
	}
	releases := map[string]bool{}
	for _, k := range order {
		im := by[k]
		cuda := im.f["cuda"]
		if cuda == "" {
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "ngc " + k, Field: "refused", OtherSource: Name + " (" + im.prov.Ref + ")",
				Note: "no CUDA version is stated for this image release"})
			continue
		}
		d, err := version.ParseDotted(cuda)
		if err != nil || len(d.Fields()) < 2 {
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "ngc " + k, Field: "refused", Other: cuda, OtherSource: Name + " (" + im.prov.Ref + ")",
				Note: "the CUDA version does not parse"})
			continue
		}
		fs := d.Fields()
		b := db.Build{Component: Component, Version: im.release, Variant: im.name, Platform: "linux", Channel: Channel,
			CUDA: fmt.Sprintf("%d.%d", fs[0], fs[1]), PythonMin: im.f["python"], PythonMax: im.f["python"], Provenance: im.prov}
		f.Builds = append(f.Builds, b)
		if !releases[im.release] {
			releases[im.release] = true
			f.Releases = append(f.Releases, db.Release{Component: Component, Version: im.release, Provenance: im.prov})
		}
		key := b.Key()
		for _, lib := range []string{"cuda", "cudnn", "nccl", "torch"} {
			if v := im.f[lib]; v != "" {
				f.Requirements = append(f.Requirements, db.Requirement{Build: key, Needs: lib, Kind: db.KindBundled, Spec: v, Provenance: im.prov})
			}
		}
		if v := im.f["driver_release"]; v != "" {
			f.Requirements = append(f.Requirements, db.Requirement{Build: key, Needs: "driver", Kind: db.KindMinimum, Spec: ">=" + v, Provenance: im.prov})
		}
		if v := im.f["datacenter_drivers"]; v != "" {
			p := im.prov
			if im.trainProv.Source != "" {
				p = im.trainProv
			}
			f.Attributes = append(f.Attributes, db.Attribute{Component: Component, Version: im.release, Key: AttrDataCenter + "@" + im.name, Value: v, Provenance: p})
		}
		if v := im.f["cc_min"]; v != "" {
			f.Attributes = append(f.Attributes, db.Attribute{Component: Component, Version: im.release, Key: AttrCCMin + "@" + im.name, Value: v, Provenance: im.prov})
		}
	}
	if len(f.Builds) == 0 {
		return nil, fmt.Errorf("no usable image release")
	}
	return f, nil
}

// Fields implements scraper.Fielded.
func (Source) Fields() map[string]map[string]scraper.Grammar {
	rel := scraper.Pattern("an NGC release (YY.MM)", `\d{2}\.\d{2}`)
	drivers := scraper.Pattern("data-center driver releases", `\d{3}\.\d+(?:\.\d+)?(?: \d{3}\.\d+(?:\.\d+)?)*`)
	return map[string]map[string]scraper.Grammar{
		tableNotes: {"release": rel, "cuda": scraper.Dotted, "cudnn": scraper.Dotted, "nccl": scraper.Dotted, "python": scraper.Python,
			"based_on_cuda": scraper.Dotted, "driver_release": scraper.Driver, "datacenter_drivers": drivers, "cc_min": scraper.Capability},
		tableStatement: {"release": rel, "cuda": scraper.Dotted, "python": scraper.Python, "driver": scraper.Driver, "datacenter_drivers": drivers, "torch": scraper.PEP440},
	}
}

// Canaries implements scraper.Canaried: release 24.10's Triton image and
// its CUDA 12.6.2.
func (Source) Canaries() []scraper.Canary {
	k := db.BuildKey{Component: Component, Version: "24.10", Variant: "tritonserver", Platform: "linux", Channel: Channel}
	return []scraper.Canary{
		scraper.ReleaseCanary(Component, "24.10"),
		scraper.RequirementCanary(k, "cuda", db.KindBundled, "12.6.2"),
	}
}
