package pytorch

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// WheelIndex reads download.pytorch.org's index of torch wheels: which
// builds exist, per variant (the directory: cpu, cu113, rocm4.2 …),
// Python tag and platform tag. It is the truth about which builds exist
// and which Pythons they were built for (torch 1.7.0 has no cp39 wheels;
// 3.9 came with 1.7.1), so it ranks first in the PyTorch family.
//
// Live it reads the PEP 503 page https://download.pytorch.org/whl/torch/
// (anchors "/whl/cu113/torch-1.10.0%2Bcu113-cp39-cp39-linux_x86_64.whl
// #sha256=…"); the older find-links page torch_stable.html has the same
// anchors without the /whl/ prefix, and the snapshot is a trimmed copy of
// it (captures/CAPTURES.md).
type WheelIndex struct{}

var wheelDoc = doc{
	live:    "https://download.pytorch.org/whl/torch/",
	page:    "https://download.pytorch.org/whl/torch/",
	capture: "torch_stable.html@226d096.html",
}

func (WheelIndex) Name() string { return "pytorch-wheel-index" }
func (WheelIndex) URL() string  { return wheelDoc.page }

// Accumulates: the live index lists every release, but a snapshot is a
// trimmed copy; the rows of either stay until the index drops them.
func (WheelIndex) Accumulates() bool { return true }

func (s WheelIndex) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	return wheelDoc.scrape(ctx, in, "the wheel index", ParseWheelIndex)
}

var (
	reAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<a\s+[^>]*href="([^"]+)"`) })
	// torch-1.7.0%2Bcu110-cp38-cp38-linux_x86_64.whl (PEP 427 file name).
	reWheel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^torch-(\d+\.\d+\.\d+(?:\.post\d+)?)(?:\+([a-z0-9.]+))?-(cp\d+|py\d+)-([a-z0-9_]+)-([a-z0-9_.]+)\.whl$`)
	})
	reVariantDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(cpu|cu\d+|rocm\d+(?:\.\d+)*|xpu)$`) })
)

// ParseWheelIndex returns one record per torch wheel whose directory names
// its variant. Other anchors (other projects, nightlies, files outside a
// variant directory) are not wheels of a release variant and are skipped.
func ParseWheelIndex(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	seen := map[string]bool{}
	for _, m := range reAnchor().FindAllSubmatch(src, -1) {
		href := string(m[1])
		if i := strings.IndexAny(href, "#?"); i >= 0 {
			href = href[:i]
		}
		href = strings.TrimPrefix(strings.TrimPrefix(href, "https://download.pytorch.org"), "/")
		href = strings.TrimPrefix(href, "whl/")
		dir, file, ok := strings.Cut(href, "/")
		if !ok || strings.Contains(file, "/") || !reVariantDir().MatchString(dir) {
			continue
		}
		name, err := url.PathUnescape(file)
		if err != nil {
			continue
		}
		w := reWheel().FindStringSubmatch(name)
		if w == nil || (w[2] != "" && w[2] != dir) {
			continue
		}
		key := dir + "/" + name
		if seen[key] {
			continue
		}
		seen[key] = true
		recs = append(recs, scraper.Record{Table: "wheel", Key: key, Ref: ref, Fields: map[string]string{
			"version": w[1], "variant": dir, "python_tag": w[3], "abi_tag": w[4], "platform_tag": w[5], "file": name}})
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no torch wheel in a variant directory found")
	}
	return recs, nil
}

// osOf maps a wheel's platform tag to cudb's platform.
func osOf(tag string) string {
	switch {
	case strings.HasPrefix(tag, "win_amd64"):
		return "windows"
	case strings.HasPrefix(tag, "macosx"):
		return "macos"
	case strings.Contains(tag, "aarch64"):
		return "linux-aarch64"
	case strings.Contains(tag, "linux_x86_64") || strings.HasPrefix(tag, "manylinux"):
		return "linux"
	}
	return ""
}

// Normalize groups the wheels by release, variant and platform into
// builds whose Python range is the lowest and highest cpXY tag published.
func (s WheelIndex) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := newFacts(s.Name())
	type key struct{ v, variant, os string }
	pys := map[key][]string{}
	refs := map[key]string{}
	for _, r := range recs {
		os := osOf(r.Fields["platform_tag"])
		tag := r.Fields["python_tag"]
		if os == "" || !strings.HasPrefix(tag, "cp") || len(tag) < 4 {
			f.refuse(r, "not a CPython wheel for a known platform")
			continue
		}
		k := key{r.Fields["version"], r.Fields["variant"], os}
		pys[k] = append(pys[k], tag[2:3]+"."+tag[3:])
		refs[k] = r.Ref
	}
	keys := make([]key, 0, len(pys))
	for k := range pys {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].v+keys[i].variant+keys[i].os < keys[j].v+keys[j].variant+keys[j].os
	})
	for _, k := range keys {
		ps := pys[k]
		sort.Slice(ps, func(i, j int) bool { return cmpDotted(ps[i], ps[j]) < 0 })
		p := f.prov(wheelDoc.page, refs[k])
		f.release("torch", k.v, p)
		f.build(db.Build{Component: "torch", Version: k.v, Variant: k.variant, Platform: k.os, CUDA: cudaOfVariant(k.variant),
			PythonMin: ps[0], PythonMax: ps[len(ps)-1], Provenance: p})
	}
	if len(f.out.Builds) == 0 {
		return nil, fmt.Errorf("no builds among %d wheels", len(recs))
	}
	return f.result(), nil
}
