package query

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
)

func TestFrameworkMatrices(t *testing.T) {
	ctx := context.Background()
	p := db.Provenance{Source: "t"}
	tf := db.Build{Component: "tensorflow", Version: "2.15.0", Variant: "cuda12", Platform: "linux", Package: "tensorflow", CUDA: "12.2", PythonMin: "3.9", PythonMax: "3.11", Provenance: p}
	jx := db.Build{Component: "jax", Version: "0.4.31", Variant: "cuda12", Platform: "linux", CUDA: "12.3", Provenance: p}
	ort := db.Build{Component: "onnxruntime-gpu", Version: "1.16.0", Variant: "cuda11", CUDA: "11.8", Provenance: p}
	f := &db.Facts{
		Builds: []db.Build{tf, jx, ort, {Component: "tensorflow", Version: "2.15.0", Variant: "cpu", Platform: "linux", Provenance: p}},
		Requirements: []db.Requirement{
			{Build: tf.Key(), Needs: "cudnn", Kind: "tested", Spec: "8.9", Provenance: p},
			{Build: tf.Key(), Needs: "cuda", Kind: "tested", Spec: "12.2", Provenance: p},
			{Build: jx.Key(), Needs: "jaxlib", Kind: "paired", Spec: "==0.4.31", Provenance: p},
			{Build: jx.Key(), Needs: "nvidia-cudnn-cu12", Kind: "pin", Spec: ">=9.1,<10.0", Provenance: p},
			{Build: jx.Key(), Needs: "driver", Kind: "minimum", Spec: ">=525.60.13", Provenance: p},
			{Build: ort.Key(), Needs: "cudnn", Kind: "tested", Spec: "8.2.4", Provenance: p},
		},
		Attributes: []db.Attribute{
			{Component: "tensorflow", Version: "2.15.0", Key: "compiler@linux-gpu", Value: "Clang 16.0.0", Provenance: p},
			{Component: "tensorflow", Version: "2.15.0", Key: "build_tools@linux-gpu", Value: "Bazel 6.1.0", Provenance: p},
			{Component: "jax", Version: "0.4.31", Key: "extra@cuda12", Value: "cuda12", Provenance: p},
			{Component: "onnxruntime-gpu", Version: "1.16.0", Key: "notes@cuda11", Value: "n", Provenance: p},
		},
	}
	path := filepath.Join(t.TempDir(), "t.db")
	if err := db.Write(ctx, path, f, []db.SourceInfo{{Name: "t", SHA256: "x"}}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := db.OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tfr, err := TensorFlowMatrix(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []TensorFlowRow{{"2.15.0", "tensorflow", "linux", "3.9", "3.11", "Clang 16.0.0", "Bazel 6.1.0", "12.2", "8.9", "", ""}}; !reflect.DeepEqual(tfr, want) {
		t.Errorf("tensorflow = %+v", tfr)
	}
	jr, err := JAXMatrix(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []JAXRow{{"0.4.31", "==0.4.31", "12.3", ">=9.1,<10.0", "cuda12", "525.60.13", "", ""}}; !reflect.DeepEqual(jr, want) {
		t.Errorf("jax = %+v", jr)
	}
	or, err := ONNXRuntimeMatrix(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []ONNXRuntimeRow{{"1.16.0", "", "11.8", "8.2.4", "n", "", ""}}; !reflect.DeepEqual(or, want) {
		t.Errorf("onnxruntime = %+v", or)
	}
	if _, err := ONNXRuntimeMatrix(ctx, d); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "e.db")
	if err := db.Write(ctx, empty, &db.Facts{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	e, _ := db.OpenFile(ctx, empty)
	defer e.Close()
	if _, err := JAXMatrix(ctx, e); errs.CodeOf(err) != errs.CodeNotFound {
		t.Errorf("empty database: %v, want not_found", err)
	}
}
