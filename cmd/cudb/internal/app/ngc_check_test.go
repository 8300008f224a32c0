package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ngcDockerfile is trimmed from a public Dockerfile building on NGC's
// PyTorch 24.10 image (middleyuan/safe-control-gym, benchmark branch).
const ngcDockerfile = "FROM nvcr.io/nvidia/pytorch:24.10-py3\n\nWORKDIR /project\n\nRUN apt-get update && apt-get install -y libgmp-dev libcdd-dev\n"

// cudb check judges an NGC image's driver from its release's facts
// (embedded data): release 24.10 needs R560; NVIDIA's notes let data-center
// GPUs run it on R535 from 535.86 through forward compatibility, which a
// GeForce card does not get.
func TestCheckNGCImageDriver(t *testing.T) {
	dir := t.TempDir()
	df := filepath.Join(dir, "Dockerfile")
	if err := os.WriteFile(df, []byte(ngcDockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	type finding struct{ Category, Severity, Message string }
	judge := func(args ...string) (int, []finding) {
		code, out, stderr := run(t, false, append([]string{"check", df, "--json"}, args...)...)
		var rep struct{ Findings []finding }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, stderr)
		}
		return code, rep.Findings
	}
	code, fs := judge("--driver", "535.183.01", "--gpu", "RTX 3090")
	if code != 3 || len(fs) != 1 || fs[0].Category != "driver_too_old" || fs[0].Severity != "error" ||
		!strings.Contains(fs[0].Message, "needs driver release 560 or later") || !strings.Contains(fs[0].Message, "GeForce card, which gets no CUDA forward compatibility") {
		t.Errorf("RTX 3090: exit %d %+v", code, fs)
	}
	code, fs = judge("--driver", "535.183.01", "--gpu", "A100")
	if code != 0 || len(fs) != 1 || fs[0].Severity != "info" || !strings.Contains(fs[0].Message, "through CUDA forward compatibility (the release notes allow 535.86 or later in R535)") {
		t.Errorf("A100: exit %d %+v", code, fs)
	}
	// No GPU named: a warning, never an error on a driver that runs the
	// image on data-center GPUs.
	if code, fs = judge("--driver", "535.183.01"); code != 0 || len(fs) != 1 || fs[0].Severity != "warning" {
		t.Errorf("no GPU: exit %d %+v", code, fs)
	}
	// Below the oldest branch the notes allow: an error on any GPU.
	if code, fs = judge("--driver", "460.106.00", "--gpu", "A100"); code != 3 || len(fs) != 1 || fs[0].Severity != "error" {
		t.Errorf("R460 on A100: exit %d %+v", code, fs)
	}
	// At the floor: nothing to say; and no "cannot tell" warning remains.
	if code, fs = judge("--driver", "560.35.03", "--gpu", "RTX 3090"); code != 0 || len(fs) != 0 {
		t.Errorf("560.35.03: exit %d %+v", code, fs)
	}
	// Release 25.12's notes state no floor: CUDA 13's minor-version-
	// compatibility floor (580) holds, and a GeForce card below it fails.
	if err := os.WriteFile(df, []byte(strings.Replace(ngcDockerfile, "24.10", "25.12", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, fs = judge("--driver", "535.183.01", "--gpu", "RTX 3090"); code != 3 || len(fs) != 1 || !strings.Contains(fs[0].Message, "needs driver 580 or later (CUDA 13's minor-version-compatibility floor") {
		t.Errorf("25.12 on R535 GeForce: exit %d %+v", code, fs)
	}
	if code, fs = judge("--driver", "535.183.01", "--gpu", "H100"); code != 0 || len(fs) != 1 || fs[0].Severity != "warning" {
		t.Errorf("25.12 on R535 H100: exit %d %+v", code, fs)
	}
	if code, fs = judge("--driver", "580.159.04", "--gpu", "RTX 3090"); code != 0 || len(fs) != 0 {
		t.Errorf("25.12 on 580.159.04: exit %d %+v", code, fs)
	}
	// A release the data does not hold is still "cannot tell".
	if err := os.WriteFile(df, []byte(strings.Replace(ngcDockerfile, "24.10", "23.03", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, fs = judge("--driver", "535.183.01", "--gpu", "RTX 3090"); code != 0 || len(fs) != 1 || fs[0].Category != "unknown_version" {
		t.Errorf("23.03: exit %d %+v", code, fs)
	}
}
