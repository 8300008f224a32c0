package main

import (
	"encoding/json"
	"os/exec"
	"testing"
)

// GPU names through the real binary on the embedded database: the GTX
// 1650 is its own GPU (not the 1650 Ti), Jetson AGX Thor and NVIDIA Thor
// name the Jetson T5000, and the newer parts (Vera Rubin, RTX Spark) have
// their compute capabilities.
func TestBinaryGPUNames(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "resolve", "torch", "--gpu", "GTX 1650", "--json").Output()
	if err != nil {
		t.Fatalf("resolve torch --gpu \"GTX 1650\": %v\n%s", err, out)
	}
	var res struct {
		Stacks []struct {
			GPU struct {
				Name, ComputeCapability, Support string
			} `json:"gpu"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) == 0 || res.Stacks[0].GPU.Name != "GeForce GTX 1650" || res.Stacks[0].GPU.Support != "sass" {
		t.Errorf("resolve torch --gpu \"GTX 1650\" = %s", out)
	}
	for name, want := range map[string][2]string{
		"GTX 1650":        {"GeForce GTX 1650", "7.5"},
		"Jetson AGX Thor": {"Jetson T5000", "11.0"},
		"NVIDIA Thor":     {"Jetson T5000", "11.0"},
		"Vera Rubin":      {"NVIDIA Vera Rubin (VR200)", "10.7"},
		"RTX Spark":       {"NVIDIA RTX Spark", "12.1"},
	} {
		out, err := exec.Command(bin, "matrix", "gpu", "--name", name, "--json").Output()
		if err != nil {
			t.Errorf("matrix gpu --name %q: %v", name, err)
			continue
		}
		var rows []struct {
			Name              string `json:"name"`
			ComputeCapability string `json:"compute_capability"`
		}
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 || rows[0].Name != want[0] || rows[0].ComputeCapability != want[1] {
			t.Errorf("matrix gpu --name %q = %s, want %s %s first", name, out, want[0], want[1])
		}
	}
}
