package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// TestVisibleDevicesNamedAsCause: the variables that hide every GPU are
// named as the cause of no_gpu_visible, with their value as evidence;
// one that leaves a GPU visible, or a UUID the facts cannot check, names
// nothing.
func TestVisibleDevicesNamedAsCause(t *testing.T) {
	d := querytest.Embedded(t)
	h100 := []host.GPU{{Index: 0, Name: "NVIDIA H100 80GB HBM3", ComputeCapability: "9.0", Source: "proc_gpus"}}
	for _, tc := range []struct {
		name, value string
		gpus        []host.GPU
		want        string // message prefix; "" for none naming a variable
	}{
		{"CUDA_VISIBLE_DEVICES", "", h100, "CUDA_VISIBLE_DEVICES hides every GPU"},
		{"CUDA_VISIBLE_DEVICES", "-1", h100, "CUDA_VISIBLE_DEVICES hides every GPU"},
		{"CUDA_VISIBLE_DEVICES", "1", h100, "CUDA_VISIBLE_DEVICES hides every GPU"},
		{"CUDA_VISIBLE_DEVICES", "0", h100, ""},
		{"CUDA_VISIBLE_DEVICES", "GPU-00000000-0000-0000-0000-000000000000", h100, ""},
		{"NVIDIA_VISIBLE_DEVICES", "void", nil, "NVIDIA_VISIBLE_DEVICES hides every GPU"},
		{"NVIDIA_VISIBLE_DEVICES", "void", h100, ""},
	} {
		f := &host.Snapshot{Origin: host.OriginHost, GPUs: tc.gpus,
			Driver:         &host.Driver{Version: "580.159.04", Source: "sys_module"},
			Kernel:         &host.Kernel{Module: []string{"/sys/module/nvidia"}, DeviceNodes: []string{"/dev/nvidia0"}},
			VisibleDevices: []host.EnvVar{{Name: tc.name, Value: tc.value}},
			Pythons: []host.Python{{Prefix: "/opt/torch/.venv", Kind: "venv", Version: "3.12.3",
				Torch: &host.Torch{Version: "2.11.0+cu130", CUDA: "13.0", Variant: "cu130", Source: "version_py"}}}}
		r, err := Verify(context.Background(), d, f)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, x := range r.Findings {
			if x.Category == findings.CatNoGPUVisible && strings.Contains(x.Message, "_VISIBLE_DEVICES hides every GPU") {
				got = x.Message
				if !strings.Contains(strings.Join(x.Evidence, "\n"), tc.name+"=") || !strings.Contains(x.Fix, tc.name) && !strings.Contains(x.Fix, "--gpus all") {
					t.Errorf("%s=%q: evidence %v fix %q", tc.name, tc.value, x.Evidence, x.Fix)
				}
			}
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s=%q: got %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}
