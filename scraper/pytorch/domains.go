package pytorch

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// Domains reads the compatibility tables of the domain libraries:
// torchvision's README (torch minor → torchvision, Python range) and
// torchaudio's installation page (torch patch → torchaudio, Python range).
// They rank below the install commands and lock files, which name the
// exact release pairs; these tables are summaries written by hand.
type Domains struct{}

var (
	visionDoc = doc{
		live: "https://raw.githubusercontent.com/pytorch/vision/main/README.md",
		page: "https://github.com/pytorch/vision#installation",
		snap: "raw/vision_README.md@0a12c070.md",
	}
	audioDoc = doc{
		live: "https://raw.githubusercontent.com/pytorch/audio/main/docs/source/installation.rst",
		page: "https://pytorch.org/audio/stable/installation.html",
		snap: "raw/audio_docs_source_installation.rst@3e7e696c.rst",
	}
)

func (Domains) Name() string { return "pytorch-domains" }
func (Domains) URL() string  { return visionDoc.page }

func (s Domains) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	recs, err := visionDoc.scrape(ctx, in, "the torchvision compatibility table", parseVisionTable)
	if err != nil {
		return nil, err
	}
	arecs, err := audioDoc.scrape(ctx, in, "the torchaudio compatibility matrix", parseAudioTable)
	if err != nil {
		return nil, err
	}
	return append(recs, arecs...), nil
}

// parseVisionTable reads every table headed torch | torchvision | Python
// (the README splits it in two, current and older releases).
func parseVisionTable(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	for _, t := range readTables(src) {
		if len(t.Header) < 3 || !strings.EqualFold(t.Header[0], "torch") || !strings.EqualFold(t.Header[1], "torchvision") {
			continue
		}
		for _, r := range t.Rows {
			if len(r.Cells) < 3 {
				continue
			}
			recs = append(recs, scraper.Record{Table: "torchvision", Key: r.Cells[0],
				Ref:    fmt.Sprintf("%s:%d", ref, r.Line),
				Fields: map[string]string{"torch": r.Cells[0], "torchvision": r.Cells[1], "python": r.Cells[2], "row": r.Text}})
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no table headed 'torch | torchvision | Python' found")
	}
	return recs, nil
}

func parseAudioTable(src []byte, ref string) ([]scraper.Record, error) {
	tables, err := readListTables(src)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if len(t.Header) < 3 || !strings.EqualFold(t.Header[0], "PyTorch") || !strings.EqualFold(t.Header[1], "TorchAudio") {
			continue
		}
		var recs []scraper.Record
		for _, r := range t.Rows {
			if len(r.Cells) < 3 {
				continue
			}
			recs = append(recs, scraper.Record{Table: "torchaudio", Key: r.Cells[0],
				Ref:    fmt.Sprintf("%s:%d", ref, r.Line),
				Fields: map[string]string{"torch": r.Cells[0], "torchaudio": r.Cells[1], "python": r.Cells[2], "row": r.Text}})
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("the compatibility list-table has no rows")
		}
		return recs, nil
	}
	return nil, fmt.Errorf("no list-table headed 'PyTorch | TorchAudio | Python' found")
}

var (
	rePyBound = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(==|>=|<=)\s*(\d+(?:\.\d+)+)`) })
	reFull    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+$`) })
)

// pyBounds reads "`>=3.8`, `<=3.12`" or "==2.7, >=3.5, <=3.8": the floor
// is the lowest version named (2.7 there), the ceiling the <= bound.
func pyBounds(cell string) (lo, hi string) {
	for _, m := range rePyBound().FindAllStringSubmatch(cell, -1) {
		switch m[1] {
		case "==", ">=":
			if lo == "" || cmpDotted(m[2], lo) < 0 {
				lo = m[2]
			}
		case "<=":
			hi = m[2]
		}
	}
	return lo, hi
}

func (s Domains) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	type bounds struct {
		lo, hi string
		p      db.Provenance
	}
	visionPy := map[string]bounds{}
	for _, r := range recs {
		if r.Table != "torchvision" {
			continue
		}
		minor := r.Fields["torch"]
		if strings.HasPrefix(minor, "<=") {
			minor = strings.TrimSpace(strings.TrimPrefix(minor, "<=")) // "<=1.0": stated for 1.0
		}
		if !reMinor().MatchString(minor) {
			f.refuse(r, "torch cell is not a released minor version")
			continue
		}
		p := f.prov(visionDoc.page, r.Ref)
		vision := strings.TrimSpace(r.Fields["torchvision"])
		f.attr(db.Attribute{Component: "torch", Version: minor, Key: "torchvision", Value: vision, Provenance: p})
		lo, hi := pyBounds(r.Fields["python"])
		if lo != "" {
			f.attr(db.Attribute{Component: "torch", Version: minor, Key: "python_min", Value: lo, Provenance: p})
		}
		if hi != "" {
			f.attr(db.Attribute{Component: "torch", Version: minor, Key: "python_max", Value: hi, Provenance: p})
		}
		visionPy[minor] = bounds{lo, hi, p}
		// A full three-part version names one torchvision release for the
		// minor's first release (1.2 → 0.4.1); "0.18" or "0.4.2 / 0.4.3"
		// do not say which patch pairs with which, so they stay attributes.
		if reFull().MatchString(vision) {
			v := minor + ".0"
			f.release("torch", v, p)
			f.release("torchvision", vision, p)
			f.require(db.Requirement{Build: releaseKey(v), Needs: "torchvision", Spec: vision, Kind: db.KindPaired, Provenance: p})
		}
	}
	for _, r := range recs {
		switch r.Table {
		case "torchvision":
			continue
		case "torchaudio":
		default:
			f.refuse(r, "unknown table")
			continue
		}
		v, audio := r.Fields["torch"], r.Fields["torchaudio"]
		if !reRelease().MatchString(v) || !reDotted().MatchString(audio) {
			f.refuse(r, "torch or torchaudio cell is not a release version")
			continue
		}
		p := f.prov(audioDoc.page, r.Ref)
		f.release("torch", v, p)
		f.release("torchaudio", audio, p)
		f.require(db.Requirement{Build: releaseKey(v), Needs: "torchaudio", Spec: audio, Kind: db.KindPaired, Provenance: p})
		lo, hi := pyBounds(r.Fields["python"])
		// The two tables give Python per minor (vision) and per patch
		// (audio); they are different fact identities, so a disagreement
		// is recorded here rather than by db.Merge.
		if vb, ok := visionPy[version.MinorText(v)]; ok {
			if lo != "" && vb.lo != "" && lo != vb.lo {
				f.conflict("attribute torch "+version.MinorText(v)+" python_min", "value", vb.lo, vb.p, lo+" (torch "+v+")", p,
					"torchvision's table gives the minor's range, torchaudio's the patch's")
			}
			if hi != "" && vb.hi != "" && hi != vb.hi {
				f.conflict("attribute torch "+version.MinorText(v)+" python_max", "value", vb.hi, vb.p, hi+" (torch "+v+")", p,
					"torchvision's table gives the minor's range, torchaudio's the patch's")
			}
		}
	}
	if len(f.out.Attributes) == 0 && len(f.out.Requirements) == 0 {
		return nil, fmt.Errorf("no usable rows among %d records", len(recs))
	}
	return f.result(), nil
}
