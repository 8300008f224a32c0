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

// Moi90 reads moi90/pytorch_compute_capabilities: per conda package of
// the pytorch channel, the SASS architectures cuobjdump found. The package
// name carries the build's CUDA and cuDNN. These are conda builds (channel
// "conda"); their lists can differ from the pip wheels of the same release.
type Moi90 struct{}

const moi90Page = "https://github.com/moi90/pytorch_compute_capabilities"

// The 2022 table keeps the pre-1.7.1 rows that the current one dropped;
// pull request #3 adds 2.6.0 and 2.7.0.
var moi90Docs = []doc{
	{live: "https://raw.githubusercontent.com/moi90/pytorch_compute_capabilities/main/table.md",
		page: moi90Page, snap: "raw/moi90_pytorch_compute_capabilities_table.md@cc044513.md"},
	{live: "https://raw.githubusercontent.com/moi90/pytorch_compute_capabilities/2431f175782e769a43ca670788e17ee6c020db54/table.md",
		page: moi90Page, snap: "raw/moi90_pytorch_compute_capabilities_table.md@2431f175.md"},
	{live: "https://raw.githubusercontent.com/moi90/pytorch_compute_capabilities/6bbfa99e99cdc2d4b3bbd0de86dab3748ca489cf/table.md",
		page: moi90Page, snap: "raw/moi90_pytorch_compute_capabilities_table.md@6bbfa99e_pr3.md"},
}

func (Moi90) Name() string { return "pytorch-moi90" }
func (Moi90) URL() string  { return moi90Page }

func (s Moi90) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	var all []scraper.Record
	seen := map[string]bool{}
	for _, d := range moi90Docs {
		b, rd, err := d.read(ctx, in)
		if err != nil {
			return nil, err
		}
		recs, err := parseMoi90(b, rd.ref())
		if err != nil {
			return nil, fmt.Errorf("failed to parse compute capability table %s: %w", rd.ref(), err)
		}
		for _, r := range recs {
			// the tables overlap; the first (newest) statement of a package is kept
			if !seen[r.Key] {
				seen[r.Key] = true
				all = append(all, r)
			}
		}
	}
	return all, nil
}

func parseMoi90(src []byte, ref string) ([]scraper.Record, error) {
	for _, t := range readTables(src) {
		if len(t.Header) < 2 || !strings.EqualFold(t.Header[0], "package") {
			continue
		}
		var recs []scraper.Record
		for _, r := range t.Rows {
			if len(r.Cells) < 2 || r.Cells[0] == "" {
				continue
			}
			recs = append(recs, scraper.Record{Table: "packages", Key: r.Cells[0],
				Ref:    fmt.Sprintf("%s:%d", ref, r.Line),
				Fields: map[string]string{"package": r.Cells[0], "architectures": r.Cells[1], "row": r.Text}})
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("the package table has no rows")
		}
		return recs, nil
	}
	return nil, fmt.Errorf("no table headed 'package' found")
}

var reCondaName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^pytorch-(\d+\.\d+\.\d+)-py(\d+\.\d+)_cuda(\d+\.\d+)(?:\.\d+)?_cudnn(\d+(?:\.\d+)*)_\d+$`)
})

func (s Moi90) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	for _, r := range recs {
		m := reCondaName().FindStringSubmatch(r.Fields["package"])
		if m == nil {
			f.refuse(r, "package name does not follow pytorch-<version>-py<X.Y>_cuda<X.Y>_cudnn<X.Y.Z>_<n>")
			continue
		}
		v, py, cuda, cudnn := m[1], m[2], m[3], m[4]
		arch, err := archList(strings.TrimSuffix(strings.TrimSpace(r.Fields["architectures"]), ","))
		if err != nil {
			f.refuse(r, err.Error())
			continue
		}
		if arch == "" {
			f.refuse(r, "empty architecture list (failed measurement)")
			continue
		}
		if strings.Contains(r.Ref, "_pr3") && cmpDotted(v, "2.6.0") >= 0 {
			// Pull request #3 measured these in pytorch/pytorch Docker
			// images: not packages of the pytorch conda channel, which
			// the install matrix stops listing after 2.5.x. A conda
			// build here would send pins to a channel without them.
			f.refuse(r, "measured in a pytorch/pytorch Docker image (moi90 pull request #3), not a package the pytorch conda channel published (its install matrix lists no conda build after 2.5.x)")
			continue
		}
		p := f.prov(moi90Page, r.Ref)
		variant := variantOfCUDA(cuda)
		k := db.BuildKey{Component: "torch", Version: v, Variant: variant, Platform: "linux", Channel: "conda"}
		b := db.Build{Component: "torch", Version: v, Variant: variant, Platform: "linux", Channel: "conda",
			CUDA: cuda, ArchList: arch, Provenance: p}
		// Python per row widens the build's range rather than conflicting.
		if i, ok := f.builds[k]; ok {
			kept := &f.out.Builds[i]
			if cmpDotted(py, kept.PythonMin) < 0 {
				kept.PythonMin = py
			}
			if cmpDotted(py, kept.PythonMax) > 0 {
				kept.PythonMax = py
			}
		} else {
			b.PythonMin, b.PythonMax = py, py
		}
		f.release("torch", v, p)
		f.build(b)
		f.require(db.Requirement{Build: k, Needs: "cudnn", Spec: cudnn, Kind: db.KindBundled, Provenance: p})
	}
	if len(f.out.Builds) == 0 {
		return nil, fmt.Errorf("no usable package rows among %d records", len(recs))
	}
	return f.result(), nil
}
