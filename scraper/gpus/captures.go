package gpus

import (
	"bufio"
	"bytes"
	_ "embed" // the statements capture
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Statements about GPUs the CUDA GPUs page read so far does not list
// (GeForce GTX 1650, Vera Rubin, RTX Spark) or names people use that it
// does not print (Jetson AGX Thor): trimmed, verbatim quotes of published
// documents with the facts read from them (captures/statements.md), read
// in snapshot mode after the curated CSV. A live scrape reads NVIDIA's
// pages alone.
//
//go:embed captures/statements.md
var statements []byte

// StatementsFile is the capture's name, cited in provenance.
const StatementsFile = "captures/statements.md"

// Record tables of the capture.
const (
	TableStatedGPU   = "stated_gpu"
	TableStatedAlias = "stated_alias"
)

var (
	sectionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^##\s+(\S.*)$`) })
	urlRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^https://\S+$`) })
)

// ParseStatements reads the capture: "## <address>" sections holding
// "> quoted" lines, "gpu: name | cc | architecture | segment" and
// "alias: alias -> gpu" lines. A fact whose section quotes nothing that
// states it (the compute capability as 10.7, sm_107, sm107 or SM107; both
// names of an alias, by their distinctive words) is an error: every fact
// must be traceable to its quote.
func ParseStatements(b []byte, file string) ([]scraper.Record, error) {
	var out []scraper.Record
	var where, strength string
	var quotes []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " ")
		ref := fmt.Sprintf("%s:%d", file, n)
		switch {
		case sectionRe().MatchString(line):
			where, strength, quotes = sectionRe().FindStringSubmatch(line)[1], "", nil
		case strings.HasPrefix(line, "strength:"):
			strength = strings.TrimSpace(strings.TrimPrefix(line, "strength:"))
		case strings.HasPrefix(line, ">"):
			quotes = append(quotes, strings.TrimSpace(strings.TrimPrefix(line, ">")))
		case strings.HasPrefix(line, "gpu:"):
			parts := strings.Split(strings.TrimPrefix(line, "gpu:"), "|")
			if len(parts) != 4 {
				return nil, fmt.Errorf("line %d: want gpu: name | cc | architecture | segment", n)
			}
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			if !quoted(quotes, ccForms(parts[1])...) {
				return nil, fmt.Errorf("line %d: no quoted line of %q states compute capability %s", n, where, parts[1])
			}
			key := where + " gpu " + parts[0]
			if where == "" || seen[key] {
				return nil, fmt.Errorf("line %d: a fact outside a section, or repeated", n)
			}
			seen[key] = true
			out = append(out, scraper.Record{Table: TableStatedGPU, Key: key, URL: sectionURL(where), Ref: ref,
				Fields: map[string]string{"gpu_model": parts[0], "compute_capability": parts[1], "architecture": parts[2], "segment": parts[3],
					"evidence": where, "strength": strength, "quote": strings.Join(quotes, " / ")}})
		case strings.HasPrefix(line, "alias:"):
			alias, gpu, ok := strings.Cut(strings.TrimPrefix(line, "alias:"), "->")
			alias, gpu = strings.TrimSpace(alias), strings.TrimSpace(gpu)
			if !ok || alias == "" || gpu == "" {
				return nil, fmt.Errorf("line %d: want alias: alias -> gpu", n)
			}
			if !quoted(quotes, distinct(alias)) || !quoted(quotes, distinct(gpu)) {
				return nil, fmt.Errorf("line %d: no quoted line of %q names %q and %q", n, where, alias, gpu)
			}
			key := where + " alias " + alias
			if where == "" || seen[key] {
				return nil, fmt.Errorf("line %d: a fact outside a section, or repeated", n)
			}
			seen[key] = true
			out = append(out, scraper.Record{Table: TableStatedAlias, Key: key, URL: sectionURL(where), Ref: ref,
				Fields: map[string]string{"alias": alias, "gpu_model": gpu, "evidence": where, "strength": strength}})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s states no GPU", file)
	}
	return out, nil
}

func sectionURL(where string) string {
	if u := strings.Fields(where)[0]; urlRe().MatchString(u) {
		return u
	}
	return ""
}

// ccForms are the ways a text states compute capability cc.
func ccForms(cc string) []string {
	maj, min, _ := strings.Cut(cc, ".")
	return []string{"capability " + cc, "version number:    " + cc, "sm_" + maj + min, "sm" + maj + min, "SM" + maj + min}
}

// distinct is the part of a GPU name a quote must hold: without the
// brand and a parenthesised product code.
func distinct(name string) string {
	base, _, _ := strings.Cut(name, " (")
	for _, p := range prefixes {
		base = strings.TrimPrefix(base, p)
	}
	base = strings.TrimPrefix(base, "Jetson ")
	return strings.TrimSpace(base)
}

func quoted(quotes []string, forms ...string) bool {
	for _, q := range quotes {
		for _, f := range forms {
			if f != "" && strings.Contains(strings.ToLower(q), strings.ToLower(f)) {
				return true
			}
		}
	}
	return false
}

// stated folds the capture's records into the GPUs the tables gave: a
// GPU no table row names is added (its first statement is its
// provenance), each statement is kept as evidence on the GPU, and a
// statement of another compute capability is a conflict. Aliases are
// returned by GPU name for the alias pass.
func stated(f *db.Facts, recs []scraper.Record, byName map[string]bool) map[string][]string {
	idx := map[string]int{}
	for i, g := range f.GPUs {
		idx[strings.ToLower(g.Name)] = i
	}
	for _, r := range recs {
		if r.Table != TableStatedGPU {
			continue
		}
		name, cc := r.Fields["gpu_model"], r.Fields["compute_capability"]
		p := nvsrc.Prov(Name, r)
		i, ok := idx[strings.ToLower(name)]
		switch {
		case !ccRe().MatchString(cc):
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, "gpu "+name, fmt.Sprintf("unreadable compute capability %q", cc), r))
			continue
		case !ok:
			f.GPUs = append(f.GPUs, db.GPU{Name: name, ComputeCapability: cc, Architecture: r.Fields["architecture"], Segment: r.Fields["segment"], Provenance: p})
			idx[strings.ToLower(name)] = len(f.GPUs) - 1
			byName[strings.ToLower(name)] = true
		case f.GPUs[i].ComputeCapability != cc:
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "gpu " + name, Field: "compute_capability", Kept: f.GPUs[i].ComputeCapability,
				KeptSource: Name, Other: cc, OtherSource: Name + " (" + r.Fields["evidence"] + ")", Note: "a statement disagrees with NVIDIA's table"})
		}
		f.Attributes = append(f.Attributes, db.Attribute{Component: "gpu", Version: name, Key: "evidence: " + r.Fields["evidence"],
			Value: "compute capability " + cc + " (" + r.Fields["strength"] + ")", Provenance: p})
	}
	aliases := map[string][]string{}
	for _, r := range recs {
		if r.Table != TableStatedAlias {
			continue
		}
		gpu, alias := r.Fields["gpu_model"], r.Fields["alias"]
		i, ok := idx[strings.ToLower(gpu)]
		if !ok {
			f.Conflicts = append(f.Conflicts, nvsrc.Refused(Name, "gpu "+gpu, "an alias for a GPU no source lists", r))
			continue
		}
		name := f.GPUs[i].Name
		aliases[name] = append(aliases[name], alias)
		f.Attributes = append(f.Attributes, db.Attribute{Component: "gpu", Version: name, Key: "alias: " + alias,
			Value: r.Fields["evidence"] + " (" + r.Fields["strength"] + ")", Provenance: nvsrc.Prov(Name, r)})
	}
	return aliases
}
