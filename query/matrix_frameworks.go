package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

// TensorFlowRow is one row of `cudb matrix tensorflow`: a GPU build.
type TensorFlowRow struct {
	TensorFlow string `json:"tensorflow"`
	Package    string `json:"package"`
	Platform   string `json:"platform"`
	PythonMin  string `json:"python_min"`
	PythonMax  string `json:"python_max"`
	Compiler   string `json:"compiler"`
	BuildTools string `json:"build_tools"`
	CUDA       string `json:"cuda"`
	CUDNN      string `json:"cudnn"`
	// Status is "facts pending" for a known release no source describes
	// yet (a lead); ReportedBy then says where it was seen, and every
	// other field is empty.
	Status     string `json:"status,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

// JAXRow is one row of `cudb matrix jax`: one CUDA variant of a release.
type JAXRow struct {
	JAX       string `json:"jax"`
	JAXLib    string `json:"jaxlib"`
	CUDA      string `json:"cuda"`
	CUDNN     string `json:"cudnn"`
	Extra     string `json:"extra"`
	DriverMin string `json:"driver_min"`
	// Status is "facts pending" for a known release no source describes
	// yet (a lead); ReportedBy then says where it was seen, and every
	// other field is empty.
	Status     string `json:"status,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

// ONNXRuntimeRow is one row of `cudb matrix onnxruntime`.
type ONNXRuntimeRow struct {
	ONNXRuntime string `json:"onnxruntime"`
	// Platform is "" when the build is the same everywhere, else the
	// platform whose build the row describes (Windows has its own cuDNN).
	Platform string `json:"platform"`
	CUDA     string `json:"cuda"`
	CUDNN    string `json:"cudnn"`
	Notes    string `json:"notes"`
	// Status is "facts pending" for a known release no source describes
	// yet (a lead); ReportedBy then says where it was seen, and every
	// other field is empty.
	Status     string `json:"status,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

// spec is the first spec on needs among kinds (in order), "" when none.
func spec(b *db.BuildRow, needs string, kinds ...string) string {
	r, _ := b.Req(needs, kinds...)
	return r.Spec
}

type attrIndex map[string]string // version + "\x00" + key -> value

func loadAttrs(ctx context.Context, d *db.DB, component string) (attrIndex, error) {
	rows, err := d.Attributes(ctx, component)
	if err != nil {
		return nil, fmt.Errorf("failed to read attributes of %s: %w", component, err)
	}
	idx := attrIndex{}
	for _, a := range rows {
		idx[a.Version+"\x00"+a.Key] = a.Value
	}
	return idx, nil
}

func (a attrIndex) get(version string, keys ...string) string {
	for _, k := range keys {
		if v, ok := a[version+"\x00"+k]; ok {
			return v
		}
	}
	return ""
}

// gpuBuilds reads the non-CPU builds of component with its attributes,
// newest version first, then by platform, newest CUDA and variant.
func gpuBuilds(ctx context.Context, d *db.DB, component string) ([]*db.BuildRow, attrIndex, error) {
	all, err := d.Builds(ctx, component, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read builds of %s: %w", component, err)
	}
	versions, err := d.Versions(ctx, component)
	if err != nil {
		return nil, nil, err
	}
	rank := make(map[string]int, len(versions))
	for i, v := range versions {
		rank[v] = i
	}
	var out []*db.BuildRow
	for _, b := range all {
		if b.Variant != "cpu" {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, nil, errs.Errorf(errs.CodeNotFound, "the database has no %s builds", component).WithHint("cudb db info")
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank[a.Version] != rank[b.Version] {
			return rank[a.Version] < rank[b.Version]
		}
		if a.Platform != b.Platform {
			return a.Platform < b.Platform
		}
		if c := version.CompareDottedText(a.CUDA, b.CUDA); c != 0 {
			return c > 0
		}
		return a.Variant < b.Variant
	})
	attrs, err := loadAttrs(ctx, d, component)
	return out, attrs, err
}

// TensorFlowMatrix lists TensorFlow's GPU builds, newest first: the tested
// configuration of each (Linux and native Windows; macOS for 1.0/1.1),
// with the cuDNN the and-cuda pins install where the release has them.
func TensorFlowMatrix(ctx context.Context, d *db.DB) ([]TensorFlowRow, error) {
	builds, attrs, err := gpuBuilds(ctx, d, frameworks.TensorFlow)
	if err != nil {
		return nil, err
	}
	out := make([]TensorFlowRow, 0, len(builds))
	for _, b := range builds {
		q := "@" + b.Platform + "-gpu"
		cudnn := spec(b, "cudnn", "tested")
		if cudnn == "" {
			cudnn = strings.TrimLeft(spec(b, "nvidia-cudnn-"+strings.Replace(b.Variant, "cuda", "cu", 1), "pin"), "=")
		}
		out = append(out, TensorFlowRow{TensorFlow: b.Version, Package: b.Package, Platform: b.Platform,
			PythonMin: b.PythonMin, PythonMax: b.PythonMax,
			Compiler: attrs.get(b.Version, "compiler"+q), BuildTools: attrs.get(b.Version, "build_tools"+q),
			CUDA: firstNonEmpty(spec(b, "cuda", "tested"), b.CUDA), CUDNN: cudnn})
	}
	return withPending(ctx, d, frameworks.TensorFlow, out, func(r TensorFlowRow) string { return r.TensorFlow }, func(p PendingRelease) TensorFlowRow {
		return TensorFlowRow{TensorFlow: p.Version, Status: pendingStatus, ReportedBy: p.ReportedBy}
	}), nil
}

// JAXMatrix lists JAX's CUDA variants per release, newest first.
func JAXMatrix(ctx context.Context, d *db.DB) ([]JAXRow, error) {
	builds, attrs, err := gpuBuilds(ctx, d, frameworks.JAX)
	if err != nil {
		return nil, err
	}
	out := make([]JAXRow, 0, len(builds))
	for _, b := range builds {
		cu := strings.Replace(b.Variant, "cuda", "cu", 1)
		cudnn := firstNonEmpty(spec(b, "nvidia-cudnn-"+cu, "pin"), spec(b, "cudnn", "minimum", "tested"))
		out = append(out, JAXRow{JAX: b.Version, JAXLib: spec(b, frameworks.JAXLib, "paired"),
			CUDA:  firstNonEmpty(b.CUDA, spec(b, "cuda", "tested", "minimum"), strings.TrimPrefix(b.Variant, "cuda")),
			CUDNN: cudnn, Extra: attrs.get(b.Version, "extra@"+b.Variant, "extra_local@"+b.Variant),
			DriverMin: strings.TrimPrefix(spec(b, "driver", "minimum"), ">=")})
	}
	return withPending(ctx, d, frameworks.JAX, out, func(r JAXRow) string { return r.JAX }, func(p PendingRelease) JAXRow {
		return JAXRow{JAX: p.Version, Status: pendingStatus, ReportedBy: p.ReportedBy}
	}), nil
}

// ONNXRuntimeMatrix lists onnxruntime-gpu's CUDA builds, newest first.
func ONNXRuntimeMatrix(ctx context.Context, d *db.DB) ([]ONNXRuntimeRow, error) {
	builds, attrs, err := gpuBuilds(ctx, d, frameworks.ONNXRuntime)
	if err != nil {
		return nil, err
	}
	out := make([]ONNXRuntimeRow, 0, len(builds))
	for _, b := range builds {
		cuda := firstNonEmpty(spec(b, "cuda", "tested"), b.CUDA)
		out = append(out, ONNXRuntimeRow{ONNXRuntime: b.Version, Platform: b.Platform, CUDA: cuda,
			CUDNN: firstNonEmpty(spec(b, "cudnn", "tested"), spec(b, "nvidia-cudnn-cu12", "pin")),
			Notes: attrs.get(b.Version, "notes@"+b.Variant)})
	}
	return withPending(ctx, d, frameworks.ONNXRuntime, out, func(r ONNXRuntimeRow) string { return r.ONNXRuntime }, func(p PendingRelease) ONNXRuntimeRow {
		return ONNXRuntimeRow{ONNXRuntime: p.Version, Status: pendingStatus, ReportedBy: p.ReportedBy}
	}), nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
