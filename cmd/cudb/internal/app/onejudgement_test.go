package app

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEveryTorchStackResolveAndPinAgree walks every torch stack the
// matrix lists and asks resolve and pin about it: one judgement means
// resolve's ok is pin's exit 0, and resolve's unknown is pin's refusal
// (exit 4) without --allow-unknown and a file (exit 0) with it. The same
// missing fact (a wheel's nvidia-* pins) must give the same verdict on
// every stack.
func TestEveryTorchStackResolveAndPinAgree(t *testing.T) {
	code, out, stderr := run(t, false, "matrix", "torch", "--json", "-q")
	if code != 0 {
		t.Fatalf("matrix: exit %d: %s", code, stderr)
	}
	var rows []struct {
		Torch   string `json:"torch"`
		Variant string `json:"variant"`
		Channel string `json:"channel"`
		Status  string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	counts := map[string]int{}
	for _, r := range rows {
		if r.Status != "" || r.Variant == "" || seen[r.Torch+r.Variant+r.Channel] {
			continue // facts pending: not a stack
		}
		seen[r.Torch+r.Variant+r.Channel] = true
		args := []string{"torch==" + r.Torch, "--variant", r.Variant, "-q"}
		pinArgs := append([]string{"pin"}, args...)
		if r.Channel == "conda" {
			args = append(args, "--channel", "conda")
			pinArgs = append(pinArgs, "--format", "conda")
		}
		name := r.Torch + " " + r.Variant + " " + r.Channel
		code, out, stderr := run(t, false, append([]string{"resolve", "--json"}, args...)...)
		if code != 0 {
			t.Errorf("%s: resolve exit %d: %s", name, code, stderr)
			continue
		}
		var res struct {
			Status  string   `json:"status"`
			Unknown []string `json:"unknown"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		counts[res.Status]++
		pinCode, _, pinErr := run(t, false, pinArgs...)
		switch res.Status {
		case "ok":
			if pinCode != 0 {
				t.Errorf("%s: resolve says ok, pin exits %d: %s", name, pinCode, pinErr)
			}
		case "unknown":
			if pinCode != 4 || !strings.Contains(pinErr, "--allow-unknown") {
				t.Errorf("%s: resolve says unknown %v, pin exits %d: %s", name, res.Unknown, pinCode, pinErr)
			}
			if c, _, e := run(t, false, append(pinArgs, "--allow-unknown")...); c != 0 {
				t.Errorf("%s: pin --allow-unknown exits %d: %s", name, c, e)
			}
		default:
			t.Errorf("%s: resolve status %q", name, res.Status)
		}
	}
	t.Logf("walked %v", counts)
	if counts["ok"] < 100 || counts["unknown"] == 0 {
		t.Errorf("walked %v stacks: the matrix lost its torch stacks?", counts)
	}
}

// TestMissingPinsOneRule: a Linux CUDA wheel that takes its CUDA
// libraries from nvidia-* wheels but whose pins are not in the data is
// unknown whatever its release or CUDA (2.10.0 cu126 and cu130, 2.11.0
// cu126, 2.14.1 cu126 alike), and pin refuses it; a wheel that bundles
// its libraries (2.0.1 cu118, 1.13.1 cu116) needs no pins and is ok.
func TestMissingPinsOneRule(t *testing.T) {
	for _, tc := range []struct {
		req, cuda string
		unknown   bool
	}{
		{"torch==2.10.0", "12.6", true},
		{"torch==2.10.0", "13.0", true},
		{"torch==2.11.0", "12.6", true},
		{"torch==2.14.1", "12.6", true},
		{"torch==2.3.0", "11.8", true},
		{"torch==2.0.1", "11.8", false},
		{"torch==1.13.1", "11.6", false},
		{"torch==2.10.0", "12.8", false}, // its pins are in the data
	} {
		code, out, stderr := run(t, false, "resolve", tc.req, "--cuda", tc.cuda, "--json", "-q")
		if code != 0 {
			t.Fatalf("%s cu%s: exit %d: %s", tc.req, tc.cuda, code, stderr)
		}
		var res struct {
			Status  string   `json:"status"`
			Unknown []string `json:"unknown"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		gap := strings.Contains(strings.Join(res.Unknown, "\n"), "nvidia-* requirements (Requires-Dist pins) are not in the data")
		pinCode, _, pinErr := run(t, false, "pin", tc.req, "--cuda", tc.cuda, "-q")
		if tc.unknown {
			if res.Status != "unknown" || !gap || pinCode != 4 || !strings.Contains(pinErr, "nvidia-* requirements") {
				t.Errorf("%s --cuda %s: status %s %v, pin exit %d %s; want unknown naming the missing pins, pin refusing", tc.req, tc.cuda, res.Status, res.Unknown, pinCode, pinErr)
			}
		} else if res.Status != "ok" || gap || pinCode != 0 {
			t.Errorf("%s --cuda %s: status %s %v, pin exit %d %s; want ok", tc.req, tc.cuda, res.Status, res.Unknown, pinCode, pinErr)
		}
	}
}

// TestMissingNCCLNamedNotJudged: a wheel whose NCCL the data lacks (torch
// 2.7.0 cu118, while 2.7.0's other builds have theirs) names the gap in
// a note; the NCCL never makes a stack unknown, as no command writes or
// checks an NCCL pin of its own. (That stack is unknown for its missing
// nvidia-* pins, which the unknown list names alone.)
func TestMissingNCCLNamedNotJudged(t *testing.T) {
	code, out, stderr := run(t, false, "resolve", "torch==2.7.0", "--cuda", "11.8", "--json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Unknown []string `json:"unknown"`
		Stacks  []struct {
			NCCL  string   `json:"nccl"`
			Notes []string `json:"notes"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks) == 0 || res.Stacks[0].NCCL != "" {
		t.Fatalf("want torch 2.7.0 cu118 without an NCCL: %s", out)
	}
	if !slices.Contains(res.Stacks[0].Notes, "NCCL: the version this build ships or pins is not in the data") {
		t.Errorf("notes %q do not name the missing NCCL", res.Stacks[0].Notes)
	}
	for _, u := range res.Unknown {
		if strings.Contains(u, "NCCL") {
			t.Errorf("a missing NCCL decided the status: %q", u)
		}
	}
	// 2.10.0 cu128 has its NCCL: no note.
	_, out, _ = run(t, false, "resolve", "torch==2.10.0", "--cuda", "12.8", "--json", "-q")
	if strings.Contains(out, "NCCL: the version") {
		t.Errorf("2.10.0 cu128 names a missing NCCL")
	}
}

// TestMissingPinsByPlatform: the Windows wheel carries its libraries, so
// --platform windows needs no pins and pins the stack; the Linux aarch64
// wheels pin nvidia-* wheels as x86-64's do, so the gap stands there.
func TestMissingPinsByPlatform(t *testing.T) {
	for _, tc := range []struct {
		platform string
		want     int
	}{{"windows", 0}, {"linux-aarch64", 4}, {"linux", 4}} {
		code, _, stderr := run(t, false, "pin", "torch==2.10.0", "--cuda", "12.6", "--platform", tc.platform, "-q")
		if code != tc.want {
			t.Errorf("--platform %s: pin exit %d, want %d: %s", tc.platform, code, tc.want, stderr)
		}
	}
}
