package probe_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/internal/probe"
	"github.com/cudb/cudb/query/querytest"
	"github.com/cudb/cudb/usecase"
)

// fictional is a fifth framework the data knows nothing of: declared only
// here, as one entry of a framework table (pip and conda names, a
// companion, a report key), and handed to the probe, the report parser,
// verify and check through their options. No production code names it.
var fictional = frameworks.Framework{Name: "fictionalnet", Label: "FictionalNet", Matrix: "fictionalnet",
	Packages: []string{"fictionalnet", "fictionalnet-gpu"}, Companions: []string{"fictionalnet-vision"}, Module: "fictionalnet",
	CondaName: "fictionalnet-core", ReportKeys: []string{"FictionalNet version"}, LogMarkers: []string{"fictionalnet/"}}

func withFictional() frameworks.Table {
	return append(slices.Clone(frameworks.All), fictional)
}

// writeDist installs a fake distribution's metadata in site-packages.
func writeDist(t *testing.T, site, name, ver string) {
	t.Helper()
	dir := filepath.Join(site, name+"-"+ver+".dist-info")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + ver + "\nSummary: test fixture\n"
	if err := os.WriteFile(filepath.Join(dir, "METADATA"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFifthFramework pushes a framework that exists only as a table entry
// through probe → report → verify → check → explain: the probe indexes it
// from its package, the report parser from a package list and from its
// report key, verify judges it in the same walk as the others (the data
// holds no release of it: unknown, a warning, never an error), check
// reads a requirement line naming it as a framework, and explain names it
// as the framework of a log line by its log marker.
func TestFifthFramework(t *testing.T) {
	ctx := context.Background()
	table := withFictional()
	root := t.TempDir()
	site := filepath.Join(root, "home", "u", "venv", "lib", "python3.11", "site-packages")
	writeDist(t, site, "fictionalnet_gpu", "1.2.3")
	writeDist(t, site, "fictionalnet_vision", "0.4.0")
	writeDist(t, site, "torch", "2.4.0")

	// probe
	facts, err := probe.Run(ctx, probe.Options{Root: root, Env: map[string]string{"VIRTUAL_ENV": "/home/u/venv"}, Frameworks: table})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts.Pythons) != 1 {
		t.Fatalf("pythons: %+v", facts.Pythons)
	}
	in := facts.Pythons[0].Frameworks[fictional.Name]
	if in == nil || in.Package != "fictionalnet-gpu" || in.Version != "1.2.3" || in.Companions["fictionalnet-vision"] != "0.4.0" {
		t.Fatalf("probe indexed %+v, want fictionalnet-gpu 1.2.3 with fictionalnet-vision 0.4.0", in)
	}
	if facts.Pythons[0].Frameworks[frameworks.Torch] == nil {
		t.Error("torch is not indexed beside the fictional framework")
	}

	// report: the probe's own JSON read back, then a paste of pip freeze
	// and a labelled line.
	js, err := json.Marshal(facts)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := report.ParseWith(js, table)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Pythons[0].Frameworks[fictional.Name]; got == nil || got.Version != "1.2.3" {
		t.Errorf("probe JSON read back indexed %+v", got)
	}
	paste := []byte("numpy==1.26.4\ntorch==2.4.0\nFictionalNet version: 1.2.4\n")
	rep, _, err := report.ParseWith(paste, table)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pythons) == 0 || rep.Pythons[0].Frameworks[fictional.Name] == nil || rep.Pythons[0].Frameworks[fictional.Name].Version != "1.2.4" ||
		rep.Pythons[0].Frameworks[fictional.Name].Source != report.SourceReportKey {
		t.Fatalf("the report key was not read: %+v", rep.Pythons)
	}
	// Without the entry the same paste names no such framework.
	plain, _, err := report.Parse(paste)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Pythons[0].Frameworks[fictional.Name] != nil {
		t.Error("cudb's own table read the fictional framework")
	}

	// verify, through the use case every door calls.
	d := querytest.Embedded(t)
	res, err := usecase.Verify(ctx, d, usecase.VerifyOptions{Host: facts, Reports: []usecase.ReportText{{Name: "paste.txt", Text: paste}}, Frameworks: table})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"1.2.3", "1.2.4"} {
		var found *usecase.Finding
		for _, f := range res.Reports[i].Findings {
			if f.Category == "unknown_version" && strings.Contains(f.Message, fictional.Name+" "+want) {
				found = &f
			}
		}
		if found == nil {
			t.Errorf("report %d: no unknown_version finding for %s %s: %+v", i, fictional.Name, want, res.Reports[i].Findings)
			continue
		}
		if found.Severity != usecase.SevWarning || !strings.Contains(found.Fix, "cudb matrix "+fictional.Matrix) {
			t.Errorf("report %d: %+v, want a warning whose fix names the framework's table", i, *found)
		}
	}

	// check reads a requirement naming it (by a package of its entry) as
	// the framework's line, and says the data does not know it.
	ck, err := usecase.Check(ctx, d, usecase.CheckOptions{Files: []usecase.CheckInput{{Name: "requirements.txt", Data: []byte("fictionalnet-gpu==1.2.3\n")}},
		Target: usecase.CheckTarget{Driver: "550.54.15", From: "flags"}, Frameworks: table})
	if err != nil {
		t.Fatal(err)
	}
	// The line is read as the framework's (its package mapped to the
	// canonical name); the data cannot judge it, which is a warning.
	var named []string
	for _, f := range ck.Findings {
		if f.Line == 1 && strings.Contains(f.Message, fictional.Name+"==1.2.3") {
			named = append(named, f.Severity)
		}
	}
	if len(named) == 0 || slices.Contains(named, usecase.SevError) || ck.Summary.Errors != 0 {
		t.Errorf("check: %+v, want the line read as %s and judged unknown (a warning)", ck.Findings, fictional.Name)
	}
	plainCk, err := usecase.Check(ctx, d, usecase.CheckOptions{Files: []usecase.CheckInput{{Name: "requirements.txt", Data: []byte("fictionalnet-gpu==1.2.3\n")}},
		Target: usecase.CheckTarget{Driver: "550.54.15", From: "flags"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plainCk.Findings {
		if strings.Contains(f.Message, fictional.Name) {
			t.Errorf("cudb's own table read the fictional line as a framework: %+v", f)
		}
	}

	// explain names the framework of an error line from its log marker.
	line := `File "/srv/env/lib/python3.11/site-packages/fictionalnet/ops.py", line 88: RuntimeError: CUDA error: no kernel image is available for execution on the device`
	const lineNamed = "framework: FictionalNet (its log line)"
	x, err := usecase.Explain(ctx, d, usecase.ExplainOptions{Text: line, Frameworks: table})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Findings) == 0 || !slices.Contains(x.Findings[0].Evidence, lineNamed) {
		t.Errorf("explain: %+v, want the line's framework named: %s", x.Findings, lineNamed)
	}
	plainX, err := usecase.Explain(ctx, d, usecase.ExplainOptions{Text: line})
	if err != nil {
		t.Fatal(err)
	}
	if len(plainX.Findings) == 0 || slices.Contains(plainX.Findings[0].Evidence, lineNamed) {
		t.Errorf("explain with cudb's own table: %+v, want the same cause without the fictional framework", plainX.Findings)
	}
}
