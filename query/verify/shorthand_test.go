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

// TestMinorOnlyVersionIsJudged: "tf 2.16" in an issue template names no
// patch; it is judged as the newest 2.16 release the data holds (there is
// no 2.16.0), said in an info, and the native-Windows judgement follows
// (tensorflow/tensorflow#64536, in the corpus).
func TestMinorOnlyVersionIsJudged(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", "tf_native_windows_216.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, text, _ := strings.Cut(string(b), "\n---\n")
	facts, _, err := report.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Verify(context.Background(), querytest.Embedded(t), facts)
	if err != nil {
		t.Fatal(err)
	}
	var info, cpu bool
	for _, f := range r.Findings {
		info = info || (f.Category == findings.CatUnknownVersion && f.Severity == findings.SevInfo && strings.Contains(f.Message, "tensorflow 2.16 names no patch release: judged as 2.16."))
		cpu = cpu || (f.Category == findings.CatCPUOnlyWheel && f.Severity == findings.SevError && strings.Contains(f.Message, "native Windows"))
	}
	if !info || !cpu {
		t.Errorf("findings %+v", r.Findings)
	}
}
