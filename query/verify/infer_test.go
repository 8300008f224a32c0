package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// TestInferredFromNearestRelease: a torch release the data does not hold
// (2.14.9) is judged by the facts of the nearest earlier release of its
// minor line (2.14.1), on the real H100 host's driver and GPU with the
// pip cuDNN 9.19 it carries: the unknown says which release stood in,
// and what that release's facts give (torch 2.14.1+cu130 pins cuDNN
// 9.24, newer than 9.19) is a warning of status unknown whose fix is the
// data, never an error and never a downgrade.
func TestInferredFromNearestRelease(t *testing.T) {
	d := querytest.Embedded(t)
	from := query.InferredFrom(context.Background(), d, "torch", "2.14.9")
	if from == "" || !strings.HasPrefix(from, "2.14.") {
		t.Fatalf("InferredFrom(torch 2.14.9) = %q, want a 2.14 release", from)
	}
	if got := query.InferredFrom(context.Background(), d, "torch", "2.99.1"); got != "" {
		t.Errorf("InferredFrom(torch 2.99.1) = %q: no 2.99 release has facts", got)
	}
	f := &host.Snapshot{Origin: host.OriginReportPrefix + "pip_freeze+nvidia_smi",
		Driver: &host.Driver{Version: "580.159.04", Source: "nvidia_smi"},
		GPUs:   []host.GPU{{Name: "NVIDIA H100 80GB HBM3", ComputeCapability: "9.0", Source: "nvidia_smi"}},
		CUDNN:  []host.CUDNN{{Version: "9.19.0", Major: 9, Raw: "9.19.0.56", Source: host.CUDNNPip}},
		Pythons: []host.Python{{Kind: "report", Version: "3.12.3",
			Packages:     map[string]string{"torch": "2.14.9+cu130", "nvidia-cudnn-cu13": "9.19.0.56"},
			NvidiaWheels: map[string]string{"nvidia-cudnn-cu13": "9.19.0.56"},
			Torch:        host.TorchFrom("2.14.9+cu130", "", "pip_freeze")}}}
	r, err := Verify(context.Background(), d, f)
	if err != nil {
		t.Fatal(err)
	}
	var unknown, inferred bool
	for _, x := range r.Findings {
		if x.Severity == findings.SevError {
			t.Errorf("an error from a release without facts: %+v", x)
		}
		if x.Category == findings.CatUnknownVersion && strings.Contains(x.Message, "torch 2.14.9+cu130 is not in the database: its checks are inferred from torch "+from) {
			unknown = true
		}
		if strings.HasPrefix(x.Message, "inferred from torch "+from) {
			inferred = true
			if x.Status != query.StatusUnknown || x.Severity != findings.SevWarning || strings.Contains(x.Fix, "pip install") || len(x.Unknown) == 0 {
				t.Errorf("an inferred finding must be an unknown warning whose fix is the data: %+v", x)
			}
		}
	}
	if !unknown || !inferred {
		t.Errorf("unknown %v, inferred %v:\n%+v", unknown, inferred, r.Findings)
	}
}
