package query

import (
	"context"
	"testing"
)

func TestKernelSupport(t *testing.T) {
	caps := []string{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0", "9.0+PTX"}
	for _, tc := range []struct {
		cc   string
		caps []string
		want string
	}{
		{"7.5", caps, SupportSASS},
		{"8.9", caps, SupportSASSCompatible}, // sm_86 runs on 8.9
		{"6.1", caps, SupportSASSCompatible},
		{"10.0", caps, SupportPTXJIT}, // compute_90 JIT-compiles forward
		{"3.7", caps, SupportNone},
		{"8.0", []string{"8.6"}, SupportNone}, // a later minor's cubin does not run back
		{"9.0", []string{"8.0+PTX"}, SupportPTXJIT},
		{"8.0", []string{"9.0+PTX"}, SupportNone},
		{"bogus", caps, SupportNone},
		{"7.5", nil, SupportNone},
	} {
		if got := KernelSupport(tc.cc, tc.caps); got != tc.want {
			t.Errorf("KernelSupport(%q, %v) = %s, want %s", tc.cc, tc.caps, got, tc.want)
		}
	}
}

func TestTorchGPUGridWithoutGPUFacts(t *testing.T) {
	g, err := TorchGPUGrid(context.Background(), fixtureDB(t))
	if err != nil {
		t.Fatal(err)
	}
	// Seven CUDA stacks in the fixture; the CPU build has no kernels.
	if len(g.Columns) != 7 {
		t.Fatalf("columns = %d, want 7", len(g.Columns))
	}
	if len(g.Rows) != 7 || g.Rows[0].ComputeCapability != "9.0" || g.Rows[6].ComputeCapability != "5.0" {
		t.Fatalf("rows = %+v", g.Rows)
	}
	for _, r := range g.Rows {
		for _, s := range r.Support {
			if s != SupportSASS {
				t.Errorf("cc %s: %s, want sass (the rows come from the arch lists)", r.ComputeCapability, s)
			}
		}
	}
}

func TestMatricesRegistry(t *testing.T) {
	d := fixtureDB(t)
	for _, name := range MatrixNames() {
		v, err := Matrices[name](context.Background(), d)
		if err != nil || v == nil {
			t.Errorf("%s: %v, %v", name, v, err)
		}
	}
	rows, _ := MatrixTorch(context.Background(), d, "")
	if len(rows) == 0 || len(rows[0].Sources) == 0 || rows[0].Sources[0].URL == "" {
		t.Fatalf("torch rows carry no sources: %+v", rows)
	}
}
