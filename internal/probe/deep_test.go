package probe

import (
	"context"
	"strings"
	"testing"
)

// TestDeepOff: without Deep the interpreter is never asked, even with a
// recording for it.
func TestDeepOff(t *testing.T) {
	opts := loadHost(t, "testdata/hosts/deep-healthy")
	opts.Deep = false
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Pythons[0].Runtime != nil {
		t.Fatalf("runtime facts without Deep: %+v", f.Pythons[0].Runtime)
	}
}

// TestDeepNoRunner: --root without --replay runs nothing, deep or not,
// and says so.
func TestDeepNoRunner(t *testing.T) {
	opts := loadHost(t, "testdata/hosts/deep-healthy")
	opts.Runner = nil
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Pythons[0].Runtime != nil {
		t.Fatal("runtime facts without a runner")
	}
	for _, n := range f.Notes {
		if n.Probe == probeInterpreter && strings.Contains(n.Message, "/home/u/venv/bin/python not run: commands are disabled") {
			return
		}
	}
	t.Fatalf("no interpreter note in %+v", f.Notes)
}

// TestReplayFullPath: a recording naming the full path wins over one
// naming the base name, and <deep-script> stands for DeepScript.
func TestReplayFullPath(t *testing.T) {
	r := &ReplayRunner{cmds: map[string]recorded{}}
	for _, s := range []string{"$ python3 -c <deep-script>\n# exit 0\nbase\n", "$ /a/bin/python3 -c <deep-script>\n# exit 0\nfull\n"} {
		k, rec, err := parseRecording(s)
		if err != nil {
			t.Fatal(err)
		}
		r.cmds[k] = rec
	}
	for name, want := range map[string]string{"/a/bin/python3": "full", "/b/bin/python3": "base"} {
		out, _, err := r.Run(context.Background(), name, "-c", DeepScript)
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s: got %q, %v; want %s", name, out, err, want)
		}
	}
	if _, _, err := r.Run(context.Background(), "/a/bin/python3", "-c", "print(1)"); err == nil {
		t.Error("another script matched the DeepScript recording")
	}
}

func TestParseRuntime(t *testing.T) {
	out := "Warning: something printed first\n\n" +
		`{"python": "3.10.4", "torch": {"version": "1.12.1+cu113", "cuda": "11.3", "cudnn": 8302, "available": true, "device_count": 2, "nccl": 21003,` +
		` "devices": [{"name": "Tesla V100", "cc": [7, 0]}, {"name": "Tesla V100", "cc": [7, 0]}]},` +
		` "tensorflow": {"version": "2.15.0", "cuda": "12.2", "cudnn": "8", "is_cuda_build": true, "gpus": 0},` +
		` "jax": {"error": "ModuleNotFoundError: No module named 'jaxlib'"}}` + "\n"
	rt, err := parseRuntime([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	tr := rt.Torch
	if tr.CUDNN != "8.3.2" || tr.CUDNNRaw != "8302" || tr.NCCL != "2.10.3" || len(tr.Devices) != 2 || tr.Devices[1].Index != 1 || tr.Devices[1].ComputeCapability != "7.0" || *tr.DeviceCount != 2 {
		t.Errorf("torch = %+v", tr)
	}
	if tf := rt.TensorFlow; tf.CUDNN != "8" || tf.CUDA != "12.2" || *tf.GPUs != 0 || !*tf.IsCUDABuild {
		t.Errorf("tensorflow = %+v", tf)
	}
	if rt.JAX.Error == "" || rt.Python != "3.10.4" || rt.Source != "interpreter" {
		t.Errorf("runtime = %+v", rt)
	}
	if v := ncclVersion([]byte("2708")); v != "2.7.8" {
		t.Errorf("nccl 2708 = %s", v)
	}
	if v := ncclVersion([]byte("[2, 20, 5]")); v != "2.20.5" {
		t.Errorf("nccl tuple = %s", v)
	}
	if _, err := parseRuntime([]byte("Segmentation fault\n")); err == nil {
		t.Error("want an error without a JSON line")
	}
}
