package app

import (
	"encoding/json"
	"strings"
	"testing"
)

// `--platform windows` never borrows the Linux arch list (embedded data):
// torch 2.8.0+cu128's Linux wheels carry no Pascal kernels, and no Windows
// list of 2.8 is known, so Windows answers unknown (exit 0, the gap named)
// where Linux answers "no kernels" (exit 4); pin refuses to vouch for the
// unknown build unless told to.
func TestArchPlatformThroughCLI(t *testing.T) {
	code, _, stderr := run(t, false, "resolve", "torch==2.8.0", "--cuda", "12.8", "--gpu", "GTX 1080", "--platform", "linux")
	if code != ExitNoMatch || !strings.Contains(stderr, "not among the kernels") {
		t.Fatalf("linux: exit %d, want %d with no kernels: %s", code, ExitNoMatch, stderr)
	}
	code, out, stderr := run(t, false, "resolve", "torch==2.8.0", "--cuda", "12.8", "--gpu", "GTX 1080", "--platform", "windows", "--json")
	if code != ExitOK {
		t.Fatalf("windows: exit %d: %s", code, stderr)
	}
	var res struct {
		Stacks []struct {
			Variant string   `json:"variant"`
			Status  string   `json:"status"`
			Unknown []string `json:"unknown"`
			GPU     struct {
				Support string `json:"support"`
				Detail  string `json:"detail"`
			} `json:"gpu"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) != 1 || res.Stacks[0].Status != "unknown" || res.Stacks[0].GPU.Support != "unknown" ||
		res.Stacks[0].GPU.Detail != "no Windows arch list is known for torch 2.8.0+cu128" ||
		!strings.Contains(strings.Join(res.Stacks[0].Unknown, "\n"), "no Windows arch list is known for torch 2.8.0+cu128") {
		t.Errorf("windows: want one unknown stack naming the missing Windows list, got %s", out)
	}
	code, _, stderr = run(t, false, "pin", "torch==2.8.0", "--cuda", "12.8", "--gpu", "GTX 1080", "--platform", "windows")
	if code != ExitNoMatch || !strings.Contains(stderr, "no Windows arch list is known") {
		t.Errorf("pin on windows: exit %d, want %d naming the missing list: %s", code, ExitNoMatch, stderr)
	}
}
