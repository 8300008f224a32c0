package query

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/errs"
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
}

// JAXRow is one row of `cudb matrix jax`: one CUDA variant of a release.
type JAXRow struct {
	JAX       string `json:"jax"`
	JAXLib    string `json:"jaxlib"`
	CUDA      string `json:"cuda"`
	CUDNN     string `json:"cudnn"`
	Extra     string `json:"extra"`
	DriverMin string `json:"driver_min"`
}

// ONNXRuntimeRow is one row of `cudb matrix onnxruntime`.
type ONNXRuntimeRow struct {
	ONNXRuntime string `json:"onnxruntime"`
	CUDA        string `json:"cuda"`
	CUDNN       string `json:"cudnn"`
	Notes       string `json:"notes"`
}

// reqSpec returns the first spec among kinds (in order) for needs on a
// build, from a map filled by loadReqs.
type reqIndex map[int64]map[string]string // build id -> "needs|kind" -> spec

func loadReqs(ctx context.Context, conn *sql.DB, component string) (reqIndex, error) {
	rows, err := conn.QueryContext(ctx, `SELECT r.build_id, r.needs, r.kind, r.spec FROM requirement r JOIN build b ON b.id = r.build_id WHERE b.component = ?`, component)
	if err != nil {
		return nil, fmt.Errorf("failed to read requirements of %s: %w", component, err)
	}
	defer rows.Close()
	idx := reqIndex{}
	for rows.Next() {
		var id int64
		var needs, kind, spec string
		if err := rows.Scan(&id, &needs, &kind, &spec); err != nil {
			return nil, err
		}
		if idx[id] == nil {
			idx[id] = map[string]string{}
		}
		idx[id][needs+"|"+kind] = spec
	}
	return idx, rows.Err()
}

func (x reqIndex) get(id int64, needs string, kinds ...string) string {
	for _, k := range kinds {
		if s, ok := x[id][needs+"|"+k]; ok {
			return s
		}
	}
	return ""
}

type attrIndex map[string]string // version + "\x00" + key -> value

func loadAttrs(ctx context.Context, conn *sql.DB, component string) (attrIndex, error) {
	rows, err := conn.QueryContext(ctx, `SELECT version, key, value FROM attribute WHERE component = ?`, component)
	if err != nil {
		return nil, fmt.Errorf("failed to read attributes of %s: %w", component, err)
	}
	defer rows.Close()
	idx := attrIndex{}
	for rows.Next() {
		var v, k, val string
		if err := rows.Scan(&v, &k, &val); err != nil {
			return nil, err
		}
		idx[v+"\x00"+k] = val
	}
	return idx, rows.Err()
}

func (a attrIndex) get(version string, keys ...string) string {
	for _, k := range keys {
		if v, ok := a[version+"\x00"+k]; ok {
			return v
		}
	}
	return ""
}

type buildRow struct {
	id                                                  int64
	version, variant, platform, pkg, cuda, pymin, pymax string
}

func loadBuilds(ctx context.Context, conn *sql.DB, component string) ([]buildRow, error) {
	rows, err := conn.QueryContext(ctx, `SELECT id, version, variant, platform, package, cuda, python_min, python_max FROM build
		WHERE component = ? AND variant <> 'cpu' ORDER BY version_key DESC, platform, cuda_key DESC, variant`, component)
	if err != nil {
		return nil, fmt.Errorf("failed to read builds of %s: %w", component, err)
	}
	defer rows.Close()
	var out []buildRow
	for rows.Next() {
		var b buildRow
		if err := rows.Scan(&b.id, &b.version, &b.variant, &b.platform, &b.pkg, &b.cuda, &b.pymin, &b.pymax); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errs.Errorf(errs.CodeNotFound, "the database has no %s builds", component).WithHint("cudb db info")
	}
	return out, nil
}

// TensorFlowMatrix lists TensorFlow's GPU builds, newest first: the tested
// configuration of each (Linux and native Windows; macOS for 1.0/1.1),
// with the cuDNN the and-cuda pins install where the release has them.
func TensorFlowMatrix(ctx context.Context, conn *sql.DB) ([]TensorFlowRow, error) {
	builds, err := loadBuilds(ctx, conn, "tensorflow")
	if err != nil {
		return nil, err
	}
	reqs, err := loadReqs(ctx, conn, "tensorflow")
	if err != nil {
		return nil, err
	}
	attrs, err := loadAttrs(ctx, conn, "tensorflow")
	if err != nil {
		return nil, err
	}
	out := make([]TensorFlowRow, 0, len(builds))
	for _, b := range builds {
		q := "@" + b.platform + "-gpu"
		cudnn := reqs.get(b.id, "cudnn", "tested")
		if cudnn == "" {
			cudnn = strings.TrimLeft(reqs.get(b.id, "nvidia-cudnn-"+strings.Replace(b.variant, "cuda", "cu", 1), "pin"), "=")
		}
		out = append(out, TensorFlowRow{TensorFlow: b.version, Package: b.pkg, Platform: b.platform,
			PythonMin: b.pymin, PythonMax: b.pymax,
			Compiler: attrs.get(b.version, "compiler"+q), BuildTools: attrs.get(b.version, "build_tools"+q),
			CUDA: firstNonEmpty(reqs.get(b.id, "cuda", "tested"), b.cuda), CUDNN: cudnn})
	}
	return out, nil
}

// JAXMatrix lists JAX's CUDA variants per release, newest first.
func JAXMatrix(ctx context.Context, conn *sql.DB) ([]JAXRow, error) {
	builds, err := loadBuilds(ctx, conn, "jax")
	if err != nil {
		return nil, err
	}
	reqs, err := loadReqs(ctx, conn, "jax")
	if err != nil {
		return nil, err
	}
	attrs, err := loadAttrs(ctx, conn, "jax")
	if err != nil {
		return nil, err
	}
	out := make([]JAXRow, 0, len(builds))
	for _, b := range builds {
		cu := strings.Replace(b.variant, "cuda", "cu", 1)
		cudnn := firstNonEmpty(reqs.get(b.id, "nvidia-cudnn-"+cu, "pin"), reqs.get(b.id, "cudnn", "minimum", "tested"))
		out = append(out, JAXRow{JAX: b.version, JAXLib: reqs.get(b.id, "jaxlib", "paired"),
			CUDA:  firstNonEmpty(b.cuda, reqs.get(b.id, "cuda", "tested", "minimum"), strings.TrimPrefix(b.variant, "cuda")),
			CUDNN: cudnn, Extra: attrs.get(b.version, "extra@"+b.variant, "extra_local@"+b.variant),
			DriverMin: strings.TrimPrefix(reqs.get(b.id, "driver", "minimum"), ">=")})
	}
	return out, nil
}

// ONNXRuntimeMatrix lists onnxruntime-gpu's CUDA builds, newest first.
func ONNXRuntimeMatrix(ctx context.Context, conn *sql.DB) ([]ONNXRuntimeRow, error) {
	builds, err := loadBuilds(ctx, conn, "onnxruntime-gpu")
	if err != nil {
		return nil, err
	}
	reqs, err := loadReqs(ctx, conn, "onnxruntime-gpu")
	if err != nil {
		return nil, err
	}
	attrs, err := loadAttrs(ctx, conn, "onnxruntime-gpu")
	if err != nil {
		return nil, err
	}
	out := make([]ONNXRuntimeRow, 0, len(builds))
	for _, b := range builds {
		cuda := firstNonEmpty(reqs.get(b.id, "cuda", "tested"), b.cuda)
		if b.platform != "" {
			cuda += " (" + b.platform + ")"
		}
		out = append(out, ONNXRuntimeRow{ONNXRuntime: b.version, CUDA: cuda,
			CUDNN: firstNonEmpty(reqs.get(b.id, "cudnn", "tested"), reqs.get(b.id, "nvidia-cudnn-cu12", "pin")),
			Notes: attrs.get(b.version, "notes@"+b.variant)})
	}
	return out, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
