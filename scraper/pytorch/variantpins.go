package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
)

// Variant pins: the Requires-Dist pins of a torch wheel that PyPI does not
// serve (a download.pytorch.org build such as 2.7.0+cu128, whose CUDA
// variant differs from the PyPI default's), as published installs of that
// exact local version show them. The lock-file table holds the PyPI
// wheel's pins only; these rows give the other variant's wheel its own.
//
// Two kinds of text are read:
//   - a pip log in which pip lists an installed torch's own requirements
//     ("Requirement already satisfied: <pkg>==<ver> in … (from torch->…)")
//     after naming the installed torch's local version;
//   - a pip freeze of an environment holding exactly one torch local
//     version: its nvidia-* and triton lines (a consistent environment
//     holds the exact versions the wheel pins with ==).
//
// Neither prints an environment marker: the rows take the marker the same
// release's PyPI wheel states on its pins (Normalize), as the pip-log rows
// of the lock-file table do.
//
// Snapshot-only: the texts are captured (captures/CAPTURES.md).
var variantPinDocs = []quotedDoc{
	{doc{page: "https://github.com/zjwan461/jllama-py/blob/a1fa1376889e838c81c47ac35d6989759354e11a/README.md", capture: "pip-freeze@jllama-py-a1fa1376.md"},
		"the pip-freeze of a torch wheel's pins", parseFreezePins},
	// A session transcript in a public repository whose name the code
	// index does not give: cited by the capture (CAPTURES.md).
	{doc{capture: "pip-log@torch-2.7.0-cu128.md"}, "the pip-log of a torch wheel's pins", parsePipLogPins},
	// pip re-run over installed variant wheels (a Colab notebook's output,
	// a terminal session, a notebook's JSON): files the code index stores
	// without naming their repository (ids in CAPTURES.md).
	{doc{capture: "pip-log@torch-2.6.0-cu118.md"}, "the pip-log of a torch wheel's pins", parsePipLogPins},
	{doc{capture: "pip-log@torch-2.7.1-cu118.md"}, "the pip-log of a torch wheel's pins", parsePipLogPins},
	{doc{capture: "pip-log@torch-2.9.0-cu126.md"}, "the pip-log of a torch wheel's pins", parsePipLogPins},
	// A Colab notebook's pip output published as a project page (a
	// Jekyll site): torch 2.11.0+cu128's own pins (cuDNN 9.19.0.56, where
	// RELEASE.md's 2.11 row says 9.17.1.4 for CUDA 12.8).
	{doc{capture: "pip-log@torch-2.11.0-cu128.md"}, "the pip-log of a torch wheel's pins", parsePipLogPins},
}

var (
	reLogTorch = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Requirement already satisfied: torch in \S+ (?:\(from [^)]+\) )?\((\d+\.\d+\.\d+)\+(cu\d+)\)$`)
	})
	reLogPin = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Requirement already satisfied: ([A-Za-z0-9_.-]+)==(\d[\w.]*) in \S+ \(from torch(?:->[^)]+)?\) \((\d[\w.]*)\)$`)
	})
	reFreezeLine  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_.-]+)==(\S+)$`) })
	reFreezeTorch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+\.\d+\.\d+)\+(cu\d+)$`) })
)

// wheelDependency says whether a package is one a CUDA torch wheel pins
// exactly: the nvidia-* CUDA libraries and triton.
func wheelDependency(pkg string) bool {
	pkg = strings.ToLower(pkg)
	return pkg == "triton" || strings.HasPrefix(pkg, "nvidia-")
}

func variantPinRecord(ver, variant, pkg, pinned, kind, ref string, line int) scraper.Record {
	return scraper.Record{Table: "variant_pins", Key: ver + "+" + variant + "/" + pkg,
		Ref: fmt.Sprintf("%s:%d (%s of torch %s+%s)", ref, line, kind, ver, variant),
		Fields: map[string]string{"torch_version": ver, "cuda_variant": variant, "package": pkg,
			"pinned_version": pinned, "evidence_kind": kind}}
}

// parsePipLogPins reads pip's "Requirement already satisfied" lines. The
// torch line names the installed local version; each later line whose
// requirement comes "(from torch…)" with an exact == pin is one of that
// wheel's pins. A pin whose installed version differs from the pinned one
// is refused (the environment was not consistent).
func parsePipLogPins(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	var ver, variant string
	for i, line := range strings.Split(string(src), "\n") {
		line = pipLogLine(line)
		if m := reLogTorch().FindStringSubmatch(line); m != nil {
			if ver != "" && ver+variant != m[1]+m[2] {
				return nil, fmt.Errorf("line %d: a second torch (%s+%s after %s+%s)", i+1, m[1], m[2], ver, variant)
			}
			ver, variant = m[1], m[2]
			continue
		}
		m := reLogPin().FindStringSubmatch(line)
		if m == nil || !wheelDependency(m[1]) {
			continue
		}
		if ver == "" {
			return nil, fmt.Errorf("line %d: a requirement of torch before the installed torch's version", i+1)
		}
		if m[2] != m[3] {
			return nil, fmt.Errorf("line %d: %s pinned %s but %s installed", i+1, m[1], m[2], m[3])
		}
		recs = append(recs, variantPinRecord(ver, variant, m[1], m[2], "pip-log", ref, i+1))
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no exact requirement of an installed torch local version")
	}
	return recs, nil
}

// pipLogLine is the text of one line of pip's output as published: a
// terminal's line, or a notebook (.ipynb) output line kept as a JSON string
// ("Requirement already satisfied: …\n",).
func pipLogLine(line string) string {
	line = strings.TrimSpace(line)
	if s, ok := strings.CutPrefix(line, `"`); ok {
		s = strings.TrimSuffix(strings.TrimSuffix(s, ","), `"`)
		line = strings.TrimSuffix(s, `\n`)
	}
	return line
}

// parseFreezePins reads a pip freeze holding exactly one torch==X+cuNNN:
// its nvidia-* and triton lines are that wheel's pins.
func parseFreezePins(src []byte, ref string) ([]scraper.Record, error) {
	type pin struct {
		pkg, ver string
		line     int
	}
	var pins []pin
	var ver, variant string
	for i, line := range strings.Split(string(src), "\n") {
		m := reFreezeLine().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		switch {
		case strings.EqualFold(m[1], "torch"):
			t := reFreezeTorch().FindStringSubmatch(m[2])
			if t == nil {
				return nil, fmt.Errorf("line %d: torch %s is not a CUDA local version", i+1, m[2])
			}
			if ver != "" {
				return nil, fmt.Errorf("line %d: a second torch line", i+1)
			}
			ver, variant = t[1], t[2]
		case wheelDependency(m[1]):
			pins = append(pins, pin{m[1], m[2], i + 1})
		}
	}
	if ver == "" {
		return nil, fmt.Errorf("no torch==<version>+cu<NNN> line")
	}
	var recs []scraper.Record
	for _, p := range pins {
		recs = append(recs, variantPinRecord(ver, variant, p.pkg, p.ver, "pip-freeze", ref, p.line))
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no nvidia-* or triton line beside torch %s+%s", ver, variant)
	}
	return recs, nil
}

// scrapeVariantPins reads the captured texts (snapshot mode only).
func scrapeVariantPins(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return scrapeQuoted(ctx, in, variantPinDocs)
}
