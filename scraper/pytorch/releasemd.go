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

// ReleaseMD reads RELEASE.md's "Release Compatibility Matrix": per torch
// minor, the Python range, C++ standard, stable/experimental CUDA with
// cuDNN and stable ROCm. Rows are per minor, so the facts are kept as
// attributes of the minor (component torch, version "2.1"), with the row
// text; the per-patch builds come from the other sources.
type ReleaseMD struct{}

var releaseDoc = doc{
	live: "https://raw.githubusercontent.com/pytorch/pytorch/main/RELEASE.md",
	page: "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
	snap: "raw/pytorch_RELEASE.md@799d09f2.md",
}

func (ReleaseMD) Name() string { return "pytorch-release-md" }
func (ReleaseMD) URL() string  { return releaseDoc.page }

func (s ReleaseMD) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return releaseDoc.scrape(ctx, in, "the release compatibility matrix", parseReleaseMatrix)
}

func parseReleaseMatrix(src []byte, ref string) ([]scraper.Record, error) {
	for _, t := range readTables(src) {
		if len(t.Header) < 2 || !strings.EqualFold(strings.TrimSpace(t.Header[0]), "PyTorch version") {
			continue
		}
		var recs []scraper.Record
		for _, r := range t.Rows {
			fields := map[string]string{"row": r.Text}
			for i, h := range t.Header {
				if i < len(r.Cells) {
					fields[strings.ToLower(strings.TrimSpace(h))] = r.Cells[i]
				}
			}
			key := fields["pytorch version"]
			recs = append(recs, scraper.Record{Table: "compatibility", Key: key,
				Ref: fmt.Sprintf("%s:%d (Release Compatibility Matrix)", ref, r.Line), Fields: fields})
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("the compatibility table has no rows")
		}
		return recs, nil
	}
	return nil, fmt.Errorf("no table headed 'PyTorch version' found")
}

var (
	reCUDACell  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)CUDA\s+(\d+\.\d+)`) })
	reCUDNNCell = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)CUDNN\s+(\d+(?:\.\d+)+)`) })
	rePyMin     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`>=\s*(\d+\.\d+)`) })
	rePyMax     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<=\s*\(?\s*(\d+\.\d+)`) })
)

// cudnnByCUDA reads a cell such as "CUDA 11.8, CUDNN 8.7.0.84" or
// "CUDA 12.6 (CUDNN 9.10.2.21), CUDA 12.8 (CUDNN 9.10.2.21)". A cuDNN
// applies to the CUDA versions before it that have none yet; the cell
// "CUDA 11.8, CUDA 12.4 (CUDNN 9.1.0.70)" is ambiguous upstream and is read
// the same way (both get 9.1.0.70).
func cudnnByCUDA(cell string) map[string]string {
	out := map[string]string{}
	var pending []string
	for _, tok := range regexp.MustCompile(`(?i)CUDA\s+\d+\.\d+|CUDNN\s+\d+(?:\.\d+)+`).FindAllString(cell, -1) {
		if m := reCUDACell().FindStringSubmatch(tok); m != nil && !strings.HasPrefix(strings.ToUpper(tok), "CUDNN") {
			pending = append(pending, m[1])
			continue
		}
		if m := reCUDNNCell().FindStringSubmatch(tok); m != nil {
			for _, c := range pending {
				out[c] = m[1]
			}
			pending = nil
		}
	}
	for _, c := range pending {
		out[c] = ""
	}
	return out
}

func (s ReleaseMD) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	for _, r := range recs {
		minor := strings.TrimSpace(r.Fields["pytorch version"])
		if !reMinor().MatchString(minor) {
			f.refuse(r, "version cell is not a torch minor version")
			continue
		}
		p := f.prov(releaseDoc.page, r.Ref)
		set := func(key, val string) {
			if val = strings.TrimSpace(val); val != "" {
				f.attr(db.Attribute{Component: "torch", Version: minor, Key: key, Value: val, Provenance: p})
			}
		}
		set("release_md_row", r.Fields["row"])
		py := r.Fields["python"]
		if m := rePyMin().FindStringSubmatch(py); m != nil {
			set("python_min", m[1])
		}
		if m := rePyMax().FindStringSubmatch(py); m != nil {
			set("python_max", m[1])
		}
		set("cxx_standard", r.Fields["c++"])
		set("rocm_stable", r.Fields["stable rocm"])
		for col, role := range map[string]string{"stable cuda": "stable", "experimental cuda": "experimental"} {
			for cuda, cudnn := range cudnnByCUDA(r.Fields[col]) {
				v := variantOfCUDA(cuda)
				set("cuda."+v, role)
				set("cudnn."+v, cudnn)
			}
		}
	}
	if len(f.out.Attributes) == 0 {
		return nil, fmt.Errorf("no usable rows among %d records", len(recs))
	}
	return f.result(), nil
}
