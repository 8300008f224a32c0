package gpus

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/scraper"
)

// The stated GPUs join the table's: GTX 1650 (the CUDA runtime's own
// deviceQuery report), Vera Rubin 10.7 and RTX Spark 12.1 (maintainers'
// statements), and the names Jetson AGX Thor / NVIDIA Thor for the Jetson
// T5000 row the table already has.
func TestStatementsJoinTheTable(t *testing.T) {
	st, err := ParseStatements(statements, StatementsFile)
	if err != nil {
		t.Fatal(err)
	}
	table := []scraper.Record{
		{Table: TableGPU, Key: "Jetson T5000", URL: PageURL, Fields: map[string]string{"gpu_model": "Jetson T5000", "compute_capability": "11.0", "segment": "jetson"}},
		{Table: TableGPU, Key: "GeForce GTX 1650 Ti", URL: PageURL, Fields: map[string]string{"gpu_model": "GeForce GTX 1650 Ti", "compute_capability": "7.5"}},
	}
	f, err := New().Normalize(append(table, st...))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	aliases := map[string]string{}
	for _, g := range f.GPUs {
		got[g.Name] = g.ComputeCapability + " " + g.Architecture
		aliases[g.Name] = strings.Join(g.Aliases, ", ")
	}
	for name, want := range map[string]string{
		"GeForce GTX 1650": "7.5 Turing", "NVIDIA Vera Rubin (VR200)": "10.7 Rubin", "NVIDIA RTX Spark": "12.1 Blackwell", "Jetson T5000": "11.0 Blackwell",
	} {
		if got[name] != want {
			t.Errorf("%s = %q, want %q", name, got[name], want)
		}
	}
	for name, want := range map[string]string{"Jetson T5000": "Jetson AGX Thor", "NVIDIA Vera Rubin (VR200)": "VR200", "GeForce GTX 1650": "GTX 1650"} {
		if !strings.Contains(aliases[name], want) {
			t.Errorf("%s aliases %q lack %q", name, aliases[name], want)
		}
	}
	if strings.Contains(aliases["GeForce GTX 1650 Ti"], "GTX 1650,") || strings.HasSuffix(aliases["GeForce GTX 1650 Ti"], "GTX 1650") {
		t.Errorf("the 1650 Ti took the 1650's name: %q", aliases["GeForce GTX 1650 Ti"])
	}
	if len(f.Conflicts) != 0 {
		t.Errorf("conflicts: %+v", f.Conflicts)
	}
	// A statement of another compute capability for a listed GPU is a
	// conflict; the table's value is kept.
	table = append(table, scraper.Record{Table: TableGPU, Key: "GeForce GTX 1650", URL: PageURL, Fields: map[string]string{"gpu_model": "GeForce GTX 1650", "compute_capability": "7.0"}})
	f, _ = New().Normalize(append(table, st...))
	n := 0
	for _, c := range f.Conflicts {
		if c.Subject == "gpu GeForce GTX 1650" && c.Field == "compute_capability" && c.Kept == "7.0" && c.Other == "7.5" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("want a conflict per statement of another compute capability (2), got %+v", f.Conflicts)
	}
}

func TestStatementsRefuseUnquotedFacts(t *testing.T) {
	for _, c := range []struct{ name, text, why string }{
		{"capability not quoted", "## https://example.org/a\n> Rubin is coming\ngpu: NVIDIA Vera Rubin | 10.7 | Rubin | datacenter\n", "states compute capability 10.7"},
		{"alias not quoted", "## https://example.org/a\n> Jetson T5000 module\nalias: Jetson AGX Thor -> Jetson T5000\n", "names"},
		{"short gpu line", "## https://example.org/a\n> capability 7.5\ngpu: GTX 1650 | 7.5\n", "want gpu:"},
		{"nothing", "# empty\n", "states no GPU"},
	} {
		if _, err := ParseStatements([]byte(c.text), "x.md"); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.why)
		}
	}
}

func FuzzParseStatements(f *testing.F) {
	f.Add(statements)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		if recs, err := ParseStatements(b, "f.md"); err == nil {
			New().Normalize(recs)
		}
	})
}
