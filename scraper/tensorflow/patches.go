package tensorflow

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// TensorFlow's tested-build tables have one row per minor (tensorflow-2.12.0):
// patch releases (2.12.1) have none. Which patch releases were published is
// said by documents built on them: TF Serving's release notes ("This release
// is based on TF version 2.12.1"), NVIDIA's TensorFlow 1.15 releases. The
// captures below are trimmed, verbatim copies (captures/CAPTURES.md).
//
//go:embed captures/*.md
var captures embed.FS

const (
	tablePatch = "patch_release" // a published patch release another release is based on

	liveServing = "https://raw.githubusercontent.com/tensorflow/serving/master/RELEASE.md"
)

// patchDocs are the captured documents, with the address each is cited by.
var patchDocs = []struct{ file, url string }{
	{"serving-RELEASE.md@9d981c5c.md", "https://github.com/tensorflow/serving/blob/9d981c5c2708d23c5407c7c1e30309e6f9798874/RELEASE.md"},
	{"nvidia-tensorflow-v1.15.5+nv22.11.md", "https://github.com/NVIDIA/tensorflow/releases/tag/v1.15.5%2Bnv22.11"},
}

// releaseDocs are captured documents that name releases outright (a
// release page, a release-automation PR, a dependabot bump), parsed by
// ReleaseStatements.
var releaseDocs = []struct{ file string }{{"tensorflow-releases.md"}}

var (
	relFactRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^release:\s*([0-9]+\.[0-9]+\.[0-9]+)$`) })
)

// ReleaseStatements reads "## <address>" sections of quoted lines and
// "release: X.Y.Z" facts; a release no quoted line of its section names
// ("TensorFlow X.Y.Z", "Release X.Y.Z", "… to X.Y.Z") is an error.
func ReleaseStatements(b []byte, file string) ([]scraper.Record, error) {
	var out []scraper.Record
	var where string
	var quotes []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			where, quotes = strings.TrimSpace(line[3:]), nil
		case strings.HasPrefix(line, ">"):
			quotes = append(quotes, strings.TrimSpace(line[1:]))
		case strings.HasPrefix(line, "release:"):
			m := relFactRE().FindStringSubmatch(line)
			if m == nil || where == "" {
				return nil, fmt.Errorf("%s line %d: want release: X.Y.Z inside a section", file, n)
			}
			v, named := m[1], ""
			for _, q := range quotes {
				for _, form := range []string{"TensorFlow " + v, "Release " + v, " to " + v} {
					if namesExactly(q, form) && named == "" {
						named = q
					}
				}
			}
			if named == "" {
				return nil, fmt.Errorf("%s line %d: no quoted line of %s names %s", file, n, where, v)
			}
			out = append(out, scraper.Record{Table: tablePatch, Key: v, URL: strings.Fields(where)[0],
				Ref:    fmt.Sprintf("captures/%s line %d (%q)", strings.TrimSuffix(file, ".md"), n, named),
				Fields: map[string]string{"version": v, "text": named}})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s names no release", file)
	}
	return out, nil
}

// namesExactly reports whether q holds form not followed by another digit
// or dot ("TensorFlow 2.6.5" is not named by "TensorFlow 2.6.50").
func namesExactly(q, form string) bool {
	for i := strings.Index(q, form); i >= 0; {
		end := i + len(form)
		if end == len(q) || !strings.ContainsRune("0123456789.", rune(q[end])) || (q[end] == '.' && (end+1 == len(q) || q[end+1] < '0' || q[end+1] > '9')) {
			return true
		}
		next := strings.Index(q[end:], form)
		if next < 0 {
			return false
		}
		i = end + next
	}
	return false
}

var basedOnRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bbased on (?:TF version|TensorFlow version|TensorFlow) ([0-9]+\.[0-9]+\.[0-9]+)(-?rc[0-9]+)?\b`)
})

// PatchMention is a line naming a TensorFlow release a document is based on.
type PatchMention struct {
	Version string
	Line    int
	Text    string
}

// BasedOn reads the lines of a document that name the TensorFlow release
// it is based on; release candidates are skipped (not releases).
func BasedOn(b []byte) ([]PatchMention, error) {
	var out []PatchMention
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		m := basedOnRE().FindStringSubmatch(sc.Text())
		if m == nil || m[2] != "" {
			continue
		}
		out = append(out, PatchMention{Version: m[1], Line: n, Text: strings.TrimSpace(sc.Text())})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no line names the TensorFlow release it is based on")
	}
	return out, nil
}

// scrapePatches reads, live, TF Serving's release notes; from snapshots,
// the captures.
func scrapePatches(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	type src struct {
		b        []byte
		ref, url string
	}
	var docs []src
	if in.Snapshots == "" {
		if in.Fetcher == nil {
			return nil, fmt.Errorf("no fetcher and no snapshot directory given")
		}
		b, err := in.Fetcher.Get(ctx, liveServing)
		if err != nil {
			return nil, fmt.Errorf("failed to fetch %s: %w", liveServing, err)
		}
		docs = append(docs, src{b: b, ref: "serving RELEASE.md", url: liveServing})
	} else {
		for _, d := range patchDocs {
			b, err := captures.ReadFile("captures/" + d.file)
			if err != nil {
				return nil, fmt.Errorf("failed to read capture %s: %w", d.file, err)
			}
			docs = append(docs, src{b: b, ref: "captures/" + strings.TrimSuffix(d.file, ".md"), url: d.url})
		}
	}
	var recs []scraper.Record
	seen := map[string]bool{}
	if in.Snapshots != "" {
		for _, d := range releaseDocs {
			b, err := captures.ReadFile("captures/" + d.file)
			if err != nil {
				return nil, fmt.Errorf("failed to read capture %s: %w", d.file, err)
			}
			rs, err := ReleaseStatements(b, d.file)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				if !seen[r.Key] {
					seen[r.Key] = true
					recs = append(recs, r)
				}
			}
		}
	}
	for _, d := range docs {
		ms, err := BasedOn(d.b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.ref, err)
		}
		for _, m := range ms {
			if seen[m.Version] {
				continue
			}
			seen[m.Version] = true
			recs = append(recs, scraper.Record{Table: tablePatch, Key: m.Version, URL: d.url,
				Ref:    fmt.Sprintf("%s line %d (%q)", d.ref, m.Line, m.Text),
				Fields: map[string]string{"version": m.Version, "text": m.Text}})
		}
	}
	return recs, nil
}

// patches gives every named release that no table describes the builds of
// its minor's tested row: TensorFlow publishes one tested configuration
// per minor, and a patch release (security and bug fixes) is built the same
// way. The inherited builds cite the statement that the release exists and
// name the row they inherit from; a release whose minor has no tested row
// is refused.
func (n *normalizer) patches(recs []scraper.Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		return version.SortKey(recs[i].Fields["version"]) < version.SortKey(recs[j].Fields["version"])
	})
	for _, r := range recs {
		v := r.Fields["version"]
		pv, err := version.Parse(v)
		rel := pv.Release()
		if err != nil || len(rel) < 3 {
			n.refuse(r, "tensorflow "+v, "not a release version")
			continue
		}
		if rel[2] == 0 {
			continue // a minor's first release has its own tested row
		}
		base := n.baseRelease(rel[0], rel[1], pv)
		if base == "" {
			n.refuse(r, "tensorflow "+v, fmt.Sprintf("no tested row of TensorFlow %d.%d to take its builds from", rel[0], rel[1]))
			continue
		}
		p := n.prov(r)
		added := false
		for _, b := range append([]db.Build(nil), n.f.Builds...) {
			if b.Version != base {
				continue
			}
			nb := b
			nb.Version, nb.PipVersion, nb.IsDefault = v, "", b.IsDefault
			if _, dup := n.builds[nb.Key()]; dup {
				continue
			}
			nb.Provenance = db.Provenance{Source: n.src, URL: p.URL,
				Ref: p.Ref + "; the build of the tested row of " + base + " (" + b.Ref + "): TensorFlow lists one tested configuration per minor"}
			n.builds[nb.Key()] = len(n.f.Builds)
			n.f.Builds = append(n.f.Builds, nb)
			for _, q := range n.f.Requirements {
				if q.Build == b.Key() && q.Kind != db.KindPin {
					q.Build = nb.Key()
					n.f.Requirements = append(n.f.Requirements, q)
				}
			}
			added = true
		}
		if added {
			n.release(v, p)
			n.attr(db.Attribute{Component: component, Version: v, Key: "tested_row", Value: base, Provenance: p})
		}
	}
}

// baseRelease is the newest release of major.minor below v that has a
// tested row (a build from the tables, not inherited).
func (n *normalizer) baseRelease(major, minor int, v version.Version) string {
	best := ""
	for _, b := range n.f.Builds {
		bv, err := version.Parse(b.Version)
		if err != nil {
			continue
		}
		r := bv.Release()
		if len(r) < 2 || r[0] != major || r[1] != minor || bv.Compare(v) >= 0 || !n.tested[b.Version] {
			continue
		}
		if best == "" || bv.Compare(version.MustParse(best)) > 0 {
			best = b.Version
		}
	}
	return best
}
