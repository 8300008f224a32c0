package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Printed arch lists: Python sessions, quoted in public issue threads,
// that installed a released wheel from download.pytorch.org and printed
// torch.__version__ and torch.cuda.get_arch_list(). The list the released
// binary reports is evidence of the artefact itself (SASS entries as
// sm_XY, PTX as compute_XY), so it is read with the other released-wheel
// evidence (Lockfiles) and outranks build scripts and RELEASE.md; where
// they disagree, db.Merge records the conflict.
//
// Snapshot-only: the transcripts are captured (captures/CAPTURES.md); a
// live refresh does not read issue threads.
var archPrintDocs = []quotedDoc{
	{doc{page: "https://github.com/pytorch/pytorch/issues/182250", capture: "get_arch_list@pytorch-issue-182250.md"},
		"the printed arch lists", parseArchPrints},
	// A table of printouts: the released wheels of 2.10 and 2.7.1 (CUDA
	// 12.6 and 12.8), each installed on Windows and on Linux.
	{doc{page: "https://github.com/nikopueringer/CorridorKey/pull/141", capture: "get_arch_list@CorridorKey-pr-141.md"},
		"the printed arch lists", parseArchListTable},
}

var (
	rePrintedVersion = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^'(\d+\.\d+\.\d+)\+(cu\d+)'$`)
	})
	rePrintedArchs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[\s*'(?:sm|compute)_\d+[a-z]?'(?:\s*,\s*'(?:sm|compute)_\d+[a-z]?')*\s*\]$`)
	})
	rePrintedArch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:sm|compute)_\d+[a-z]?`) })
)

// scrapeArchPrints reads the captured transcripts (snapshot mode only).
func scrapeArchPrints(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return scrapeQuoted(ctx, in, archPrintDocs)
}

// parseArchPrints reads a transcript in which `>>> torch.__version__` is
// answered by a local version ('2.11.0+cu128') and a later
// `>>> torch.cuda.get_arch_list()` by a Python list of architectures. A
// list is only taken for the version printed before it in the same
// session; a session that printed no CUDA local version gives nothing.
func parseArchPrints(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	var version, variant, asked string
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "$ "):
			version, variant, asked = "", "", "" // a new session
		case strings.HasPrefix(line, ">>> "):
			asked = strings.TrimSpace(strings.TrimPrefix(line, ">>> "))
		case asked == "torch.__version__":
			if m := rePrintedVersion().FindStringSubmatch(line); m != nil {
				version, variant = m[1], m[2]
			}
			asked = ""
		case asked == "torch.cuda.get_arch_list()":
			asked = ""
			if version == "" || !rePrintedArchs().MatchString(line) {
				continue
			}
			archs := strings.Join(rePrintedArch().FindAllString(line, -1), " ")
			recs = append(recs, scraper.Record{Table: "printed_arch_list", Key: version + "+" + variant,
				Ref:    fmt.Sprintf("%s:%d (torch.cuda.get_arch_list() of %s+%s)", ref, i+1, version, variant),
				Fields: map[string]string{"torch_version": version, "cuda_variant": variant, "architectures": archs, "row": line}})
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no torch.__version__ followed by torch.cuda.get_arch_list() output")
	}
	return recs, nil
}

var (
	reTableTorch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#+\s*PyTorch\s+(\d+\.\d+(?:\.\d+)?)\s*$`) })
	reTableCUDA  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#+\s*CUDA\s+(\d+\.\d+)\s*$`) })
	reTableOS    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(Linux|Windows):\s*$`) })
)

// parseArchListTable reads printouts laid out as a table: a
// `### PyTorch <version>` heading, a `#### CUDA <x.y>` heading, then
// `Linux:` or `Windows:` followed by the printed Python list. A list is
// taken only under all three; a heading resets what is below it. The
// version is kept as written: one naming a minor only ("2.10") is refused
// by printedArchList, as it does not say which release was installed.
func parseArchListTable(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	var version, variant, plat string
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case reTableTorch().MatchString(line):
			version, variant, plat = reTableTorch().FindStringSubmatch(line)[1], "", ""
		case reTableCUDA().MatchString(line):
			variant, plat = variantOfCUDA(reTableCUDA().FindStringSubmatch(line)[1]), ""
		case reTableOS().MatchString(line):
			plat = strings.ToLower(reTableOS().FindStringSubmatch(line)[1])
		case rePrintedArchs().MatchString(line):
			if version == "" || variant == "" || plat == "" {
				continue
			}
			archs := strings.Join(rePrintedArch().FindAllString(line, -1), " ")
			recs = append(recs, scraper.Record{Table: "printed_arch_list", Key: version + "+" + variant + "|" + plat,
				Ref: fmt.Sprintf("%s:%d (torch.cuda.get_arch_list() of %s+%s on %s)", ref, i+1, version, variant, plat),
				Fields: map[string]string{"torch_version": version, "cuda_variant": variant, "platform": plat,
					"architectures": archs, "row": line}})
			plat = ""
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no list under a PyTorch version, a CUDA version and an OS")
	}
	return recs, nil
}

// printedArchList makes the printed list the arch list of the wheel of
// that release and variant on the row's platform (Linux x86-64 unless the
// row says "windows"). The sessions of the issue thread ran a shell
// ("$ uv run ..."), and their lists hold architectures below 8.0, which
// the Linux aarch64 builds leave out (build_cuda.sh filters them), so they
// are x86-64 wheels; a Linux list without one is refused rather than
// guessed onto either. Windows has only x86-64 wheels.
func printedArchList(f *facts, r scraper.Record, p db.Provenance) {
	v, variant := r.Fields["torch_version"], r.Fields["cuda_variant"]
	plat := "linux"
	if r.Fields["platform"] == "windows" {
		plat = "windows"
	}
	if !reRelease().MatchString(v) {
		f.refuse(r, "the printout names a minor ("+v+"), not the release that was installed")
		return
	}
	arch, err := archList(r.Fields["architectures"])
	if err != nil || arch == "" || cudaOfVariant(variant) == "" {
		f.refuse(r, fmt.Sprintf("unusable printed arch list (%v)", err))
		return
	}
	if plat == "linux" && !hasPreAmpere(arch) {
		f.refuse(r, "the printed list has no architecture below sm_80: cannot tell an x86-64 wheel from an aarch64 one")
		return
	}
	f.release("torch", v, p)
	f.build(db.Build{Component: "torch", Version: v, Variant: variant, Platform: plat,
		CUDA: cudaOfVariant(variant), ArchList: arch, Provenance: p})
}

// hasPreAmpere says whether an arch list holds a SASS entry below sm_80.
func hasPreAmpere(arch string) bool {
	for _, a := range strings.Fields(arch) {
		if n, ok := strings.CutPrefix(a, "sm_"); ok && len(n) == 2 && n < "80" {
			return true
		}
	}
	return false
}
