package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/querytest"
)

// The installed CUDA release's own floor is the minimum (CUDA 11.0.2:
// 450.51.05, 11.0.3: 450.51.06); the minor-version floor (450.80.02) is
// no hard minimum for it.
func TestDriverFloorOfTheRelease(t *testing.T) {
	d := querytest.Embedded(t)
	ctx := context.Background()
	for _, tc := range []struct {
		driver, cuda string
		ok           bool
	}{
		{"450.51.06", "11.0.2", true}, {"450.51.05", "11.0.2", true}, {"450.51.04", "11.0.2", false},
		{"450.51.06", "11.0.3", true}, {"450.51.05", "11.0.3", false},
		{"530.30.02", "12.1", true}, {"525.60.13", "12.1", true}, {"520.61.05", "12.1", false},
	} {
		v, err := nvidia.CheckDriver(ctx, d, tc.driver, tc.cuda)
		if err != nil {
			t.Fatal(err)
		}
		if v.OK != tc.ok {
			t.Errorf("driver %s, CUDA %s: ok %v (%s), want %v", tc.driver, tc.cuda, v.OK, v.Reason, tc.ok)
		}
	}
	f := torchHost("1.7.1+cu110", "11.0", "cu110", "3.8")
	f.Driver.Version = "450.51.06"
	f.GPUs[0].Name, f.GPUs[0].ComputeCapability = "Tesla T4", "7.5"
	r, err := Verify(ctx, d, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range r.Findings {
		if fd.Category == findings.CatDriverTooOld {
			t.Errorf("driver 450.51.06 with torch 1.7.1+cu110: %s | %s", fd.Message, fd.Fix)
		}
	}
	f.Driver.Version = "450.36.06"
	r, err = Verify(ctx, d, f)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, fd := range r.Findings {
		if fd.Category == findings.CatDriverTooOld && strings.Contains(fd.Message, "450.51.05") {
			found = true
		}
	}
	if !found {
		t.Errorf("driver 450.36.06 with torch 1.7.1+cu110: %+v", r.Findings)
	}
}

// collect_env's "Probably one of the following" lists candidates: a
// system libcudnn.so.8 is no mismatch for a pip torch that loads its
// own cuDNN 9 (libcudnn.so.8 is not libcudnn.so.9).
func TestCandidateCUDNNIsNoLoadOrder(t *testing.T) {
	d := querytest.Embedded(t)
	f := torchHost("2.6.0+cu124", "12.4", "cu124", "3.11.9")
	f.Origin = "report:collect_env"
	f.CUDNN = []host.CUDNN{
		{Path: "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2", Version: "8.9.2", Major: 8, Source: host.CUDNNLib},
		{Path: "/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8.9.2", Version: "8.9.2", Major: 8, Source: host.CUDNNLib},
	}
	r, err := Verify(context.Background(), d, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range r.Findings {
		if fd.Category == findings.CatCUDNNMismatch || fd.Severity == findings.SevError {
			t.Errorf("%s/%s: %s", fd.Category, fd.Severity, fd.Message)
		}
	}
}
