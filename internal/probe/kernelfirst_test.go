package probe

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// countingRunner records the commands the probe asks for and answers
// none of them.
type countingRunner struct {
	mu    sync.Mutex
	names []string
}

func (r *countingRunner) Run(_ context.Context, name string, args ...string) ([]byte, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, name+" "+strings.Join(args, " "))
	return nil, 127, nil
}

func (r *countingRunner) smiCalls() int {
	n := 0
	for _, c := range r.names {
		if strings.HasPrefix(c, "nvidia-smi") {
			n++
		}
	}
	return n
}

// TestKernelFilesBeforeNvidiaSMI: on the real H100 host's kernel files
// (/sys/module/nvidia/version, /proc/driver/nvidia/version and the GPU's
// information file, as captured), the driver, the GPU's name and its bus
// ID come from the files, and nvidia-smi is not run when the GPU table
// knows the name; it still runs for a name it does not know, and always
// without KnownGPU.
func TestKernelFilesBeforeNvidiaSMI(t *testing.T) {
	opts, err := fakeHostOptions(filepath.Join("testdata", "hosts", "h100-hidden-preload"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		known func(string) bool
		smi   bool
	}{
		{"known GPU", func(n string) bool { return n == "NVIDIA H100 80GB HBM3" }, false},
		{"unknown GPU", func(string) bool { return false }, true},
		{"no GPU table", nil, true},
	} {
		r := &countingRunner{}
		o := opts
		o.Runner, o.KnownGPU = r, tc.known
		f, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.smiCalls() > 0; got != tc.smi {
			t.Errorf("%s: nvidia-smi run %v, want %v (%v)", tc.name, got, tc.smi, r.names)
		}
		if f.Driver == nil || f.Driver.Version != "580.159.04" || f.Driver.Source != "sys_module" {
			t.Errorf("%s: driver %+v", tc.name, f.Driver)
		}
		if len(f.GPUs) != 1 || f.GPUs[0].Name != "NVIDIA H100 80GB HBM3" || f.GPUs[0].BusID != "0000:00:06.0" || f.GPUs[0].Source != "proc_gpus" {
			t.Errorf("%s: GPUs %+v", tc.name, f.GPUs)
		}
	}
}
