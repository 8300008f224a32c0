package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

// TestErrorLinesJoinFacts: an error line pasted with a collect_env (both
// real texts: the fixture and pytorch/pytorch#104757's message) becomes
// one cudnn_version_mismatch naming both versions, whose fix is the cuDNN
// wheel this host's torch pins.
func TestErrorLinesJoinFacts(t *testing.T) {
	ce, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "report", "testdata", "collect_env_new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(ce) + "\nRuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 8, 1). PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the bundled cuDNN.\n"
	facts, _, err := report.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Verify(context.Background(), querytest.Embedded(t), facts)
	if err != nil {
		t.Fatal(err)
	}
	var got *findings.Finding
	for i := range r.Findings {
		if r.Findings[i].Category == findings.CatCUDNNMismatch {
			if got != nil {
				t.Fatalf("two cuDNN findings: %+v", r.Findings)
			}
			got = &r.Findings[i]
		}
	}
	if got == nil || got.Severity != findings.SevError || !strings.Contains(got.Message, "8.9.2") || !strings.Contains(got.Message, "8.8.1") {
		t.Fatalf("findings %+v", r.Findings)
	}
	if !strings.Contains(got.Fix, "this host's torch 2.1.0+cu121") || !strings.Contains(got.Fix, "nvidia-cudnn-cu12==8.9.2.26") {
		t.Errorf("fix %q", got.Fix)
	}
	if r.Read.Errors != 1 || r.Read.Explained != 1 {
		t.Errorf("read %+v", r.Read)
	}
}
