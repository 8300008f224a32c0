package pytorch

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// Lockfiles imports what the published PyPI torch wheels declare
// (Requires-Dist pins as recorded in public lock files, compiled
// requirement files, pip logs and quoted metadata) and the torchvision /
// torchaudio releases locked with each torch release. It is the best
// evidence of the released wheel, so it comes first in precedence.
//
// Live, it reads the same facts at their origin, PyPI's JSON API
// (info.requires_dist of each torch release from 1.13 on, see pypi.go),
// into "pins" rows of the lock-file table's shape with evidence_kind
// "pypi-json". The domain_pairs table exists only in snapshots: PyPI
// states torchvision's torch pin per torchvision release, which would cost
// a request per domain release; Normalize needs neither table to exist.
//
// In snapshot mode it also reads the captured printouts of released
// wheels' torch.cuda.get_arch_list() (printed_arch_list rows, see
// archprint.go): the released binary's own arch list; and the captured
// collect_env reports of environments holding a variant wheel (env_pins
// rows, see envprint.go): the installed versions of its pinned libraries.
type Lockfiles struct{}

// Accumulates: PyPI JSON adds the pins each release declares; the lock-file evidence read from snapshots is other rows of the same table, and stays (scraper.Accumulator).
func (Lockfiles) Accumulates() bool { return true }

func (Lockfiles) Name() string { return "pytorch-lockfiles" }
func (Lockfiles) URL() string  { return "https://pypi.org/project/torch/" }

func (s Lockfiles) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Fetcher != nil {
		return scrapePyPI(ctx, in.Fetcher)
	}
	var all []scraper.Record
	for _, t := range []csvTable{
		{"pins", "torch_pins_from_lockfiles.csv", []string{"torch_version", "package", "pinned_version"},
			[]string{"source_repo", "source_path", "source_commit_or_issue"}},
		{"domain_pairs", "torch_domain_pairs_from_lockfiles.csv", []string{"torch_version", "torchvision", "torchaudio"},
			[]string{"source"}},
	} {
		b, _, err := doc{snap: "derived/" + t.file}.read(ctx, in)
		if err != nil {
			return nil, err
		}
		recs, err := readCSV(b, t.table, t.file, t.keyCols, t.ref)
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	printed, err := scrapeArchPrints(ctx, in)
	if err != nil {
		return nil, err
	}
	env, err := scrapeEnvPrints(ctx, in)
	if err != nil {
		return nil, err
	}
	vpins, err := scrapeVariantPins(ctx, in)
	if err != nil {
		return nil, err
	}
	return append(append(append(all, printed...), env...), vpins...), nil
}

// variantPin records one pin of a download.pytorch.org wheel whose CUDA
// variant is not the PyPI default's (variant_pins rows, variantpins.go).
// The build is that variant's Linux wheel; the marker is the one the same
// release's PyPI wheel states on its pins (the same build scripts write
// both). Without that marker the pin is refused: written bare, pip would
// install the nvidia-* wheels on Windows and macOS.
func variantPin(f *facts, r scraper.Record, marker, pypiVariant string, p db.Provenance) {
	v, vr := r.Fields["torch_version"], r.Fields["cuda_variant"]
	switch {
	case !reRelease().MatchString(v):
		f.refuse(r, "torch_version is not a release version")
		return
	case vr == pypiVariant:
		f.refuse(r, "the "+vr+" wheel of "+v+" is PyPI's: its pins come from the lock-file table")
		return
	case marker == "":
		f.refuse(r, "no environment marker stated by torch "+v+"'s PyPI wheel to carry over")
		return
	}
	pkg, ver := r.Fields["package"], r.Fields["pinned_version"]
	if strings.HasPrefix(pkg, "nvidia-cuda-runtime-") && variantOfCUDA(ver) != vr {
		f.refuse(r, "CUDA runtime "+ver+" is not the "+vr+" variant's")
		return
	}
	b := wheelBuild(v, vr, "linux", false, p)
	f.release("torch", v, p)
	f.build(b)
	pinRequirements(f, b.Key(), pkg, "=="+ver, marker, p)
}

// lockMarker keeps a declared PEP 508 marker and drops the compilers'
// placeholders ("(not printed)", "n/a ...").
func lockMarker(m string) string {
	if strings.HasPrefix(m, "(") || strings.HasPrefix(m, "n/a") {
		return ""
	}
	return m
}

func (s Lockfiles) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	// The PyPI wheel's CUDA variant is the one its runtime (or, from 2.11,
	// cuda-toolkit) pin names.
	variant := map[string]string{}
	for _, r := range recs {
		pkg := r.Fields["package"]
		if r.Table == "pins" && (strings.HasPrefix(pkg, "nvidia-cuda-runtime-") || strings.HasPrefix(pkg, "cuda-toolkit")) {
			if v := variantOfCUDA(r.Fields["pinned_version"]); v != "" && variant[r.Fields["torch_version"]] == "" {
				variant[r.Fields["torch_version"]] = v
			}
		}
	}
	// One wheel states one environment marker on all its Linux-only pins
	// (nvidia-*, triton). Evidence that printed no marker for a package
	// (a pip log) takes the one other evidence for the same release
	// printed: writing none would make pip install them on Windows.
	releaseMarker := map[string]string{}
	for _, r := range recs {
		if m := lockMarker(r.Fields["platform_marker"]); r.Table == "pins" && m != "" && releaseMarker[r.Fields["torch_version"]] == "" {
			releaseMarker[r.Fields["torch_version"]] = m
		}
	}
	defaultBuild := func(r scraper.Record) (db.BuildKey, db.Provenance, bool) {
		v := r.Fields["torch_version"]
		p := f.prov(s.URL(), r.Ref)
		if !reRelease().MatchString(v) {
			f.refuse(r, "torch_version is not a release version")
			return db.BuildKey{}, p, false
		}
		vr := variant[v]
		if vr == "" {
			f.refuse(r, "no CUDA runtime or cuda-toolkit pin for "+v+": cannot tell the PyPI wheel's variant")
			return db.BuildKey{}, p, false
		}
		b := wheelBuild(v, vr, "linux", true, p)
		f.release("torch", v, p)
		f.build(b)
		return b.Key(), p, true
	}
	for _, r := range recs {
		switch r.Table {
		case "pins":
			ver := r.Fields["pinned_version"]
			if ver == "" {
				f.refuse(r, "range dependency: the lock records a resolved version, not the specifier")
				continue
			}
			k, p, ok := defaultBuild(r)
			if !ok {
				continue
			}
			marker := lockMarker(r.Fields["platform_marker"])
			if marker == "" {
				marker = releaseMarker[r.Fields["torch_version"]]
			}
			// Evidence quoting a wheel's metadata may elide the extras
			// ("cuda-toolkit[...]"): the pinned version stands, and the
			// extras are the wheel's own to ask for, so the pin is kept
			// on the bare name (a requirement pip and uv can read).
			pkg, _ := strings.CutSuffix(r.Fields["package"], "[...]")
			pinRequirements(f, k, pkg, "=="+ver, marker, p)
		case "domain_pairs":
			v := r.Fields["torch_version"]
			if !reRelease().MatchString(v) {
				f.refuse(r, "torch_version is not a release version")
				continue
			}
			p := f.prov(s.URL(), r.Ref)
			f.release("torch", v, p)
			// A pairing belongs to the torch release: every pip build of it.
			k := releaseKey(v)
			audio := r.Fields["torchaudio"]
			// torchaudio 2.11.0 is the last release; later torch rows show the
			// 2.11.0 installed alongside, which is not a pairing.
			if audio != "" && version.MinorText(audio) != version.MinorText(v) && strings.HasPrefix(v, "2.") {
				f.refuse(r, "torchaudio "+audio+" is installed alongside, not released with, torch "+v)
				f.attr(db.Attribute{Component: "torch", Version: v, Key: "torchaudio_installed_alongside",
					Value: audio + " (no torchaudio release matches this torch; " + audio + " is installed next to it)", Provenance: p})
				audio = ""
			}
			paired(f, k, r.Fields["torchvision"], audio, p)
		case "variant_pins":
			variantPin(f, r, releaseMarker[r.Fields["torch_version"]], variant[r.Fields["torch_version"]], f.prov(cmp.Or(r.URL, s.URL()), r.Ref))
		case "printed_arch_list":
			printedArchList(f, r, f.prov(r.URL, r.Ref))
		case "env_pins":
			envPin(f, r, lockMarker(releaseMarker[r.Fields["torch_version"]]), f.prov(r.URL, r.Ref))
		default:
			f.refuse(r, "unknown table")
		}
	}
	if len(f.out.Builds) == 0 {
		return nil, fmt.Errorf("no usable pins among %d records", len(recs))
	}
	return f.result(), nil
}
