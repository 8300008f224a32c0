package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/input"
	"github.com/cudb/cudb/internal/version"
)

// lineOf is the 1-based line of the first line at or after from that
// contains every needle; from when none does.
func lineOf(text string, from int, needles ...string) int {
	lines := strings.Split(text, "\n")
	for i := max(from-1, 0); i < len(lines); i++ {
		ok := true
		for _, n := range needles {
			if !strings.Contains(lines[i], n) {
				ok = false
				break
			}
		}
		if ok {
			return i + 1
		}
	}
	return from
}

type pyproject struct {
	Project struct {
		RequiresPython       string              `toml:"requires-python"`
		Dependencies         []string            `toml:"dependencies"`
		OptionalDependencies map[string][]string `toml:"optional-dependencies"`
	} `toml:"project"`
	DependencyGroups map[string][]any `toml:"dependency-groups"`
	Tool             struct {
		Poetry poetryTool `toml:"poetry"`
		UV     struct {
			Sources map[string]any `toml:"sources"`
			Index   []struct {
				Name     string `toml:"name"`
				URL      string `toml:"url"`
				Explicit bool   `toml:"explicit"`
				Default  bool   `toml:"default"`
			} `toml:"index"`
		} `toml:"uv"`
	} `toml:"tool"`
}

// ParsePyproject reads [project].dependencies (and optional dependencies
// and dependency groups), with uv's [tool.uv.sources] and [[tool.uv.index]]
// deciding the index each package comes from.
func ParsePyproject(file, text string) (*Unit, error) {
	if err := checkBounds(file, KindPyproject, text); err != nil {
		return nil, err
	}
	var p pyproject
	if _, err := toml.Decode(text, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	u := &Unit{File: file}
	if p.Project.RequiresPython != "" {
		u.PythonLine = lineOf(text, 1, "requires-python")
		u.Python = exactPython(p.Project.RequiresPython)
	}
	indexURL := map[string]string{}
	var defaultIndex string
	var implicit []string
	for _, ix := range p.Tool.UV.Index {
		indexURL[ix.Name] = ix.URL
		switch {
		case ix.Default:
			defaultIndex = ix.URL
		case !ix.Explicit:
			// uv reads every non-explicit index, in order, before PyPI.
			implicit = append(implicit, ix.URL)
		}
	}
	sources := uvSources(p.Tool.UV.Sources)
	add := func(list []string, from int, scenario string) {
		for _, s := range list {
			r, ok := parseReqText(s)
			if !ok {
				if dir, _, local := localPath(s); !local || dir != "." {
					u.Notes = append(u.Notes, Note{Line: lineOf(text, from, strings.SplitN(strings.TrimSpace(s), " ", 2)[0]), Message: s + " is not a requirement cudb follows: what it installs is not judged"})
				}
				continue
			}
			r.Line = lineOf(text, from, `"`+strings.SplitN(strings.TrimSpace(s), " ", 2)[0])
			if r.Line == from {
				r.Line = lineOf(text, from, r.Name)
			}
			r.Installer = InstallerUV
			r.Scenario = scenario
			if src, ok := sources.pick(r.Name, scenario); ok && indexURL[src] != "" {
				r.IndexURL, r.Source = indexURL[src], src
			} else if r.IndexURL == "" {
				r.IndexURL = defaultIndex
				if len(implicit) > 0 {
					r.IndexURL, r.ExtraIndexURLs = implicit[0], append(implicit[1:], defaultIndex)
				}
			}
			u.Reqs = append(u.Reqs, r)
		}
	}
	add(p.Project.Dependencies, lineOf(text, 1, "dependencies"), "")
	for _, g := range sortedKeys(p.Project.OptionalDependencies) {
		add(p.Project.OptionalDependencies[g], lineOf(text, lineOf(text, 1, "optional-dependencies"), g), "extra "+g)
	}
	for _, g := range sortedKeys(p.DependencyGroups) {
		var ss []string
		for _, e := range p.DependencyGroups[g] {
			if s, ok := e.(string); ok {
				ss = append(ss, s)
			}
		}
		add(ss, lineOf(text, lineOf(text, 1, "dependency-groups"), g), "group "+g)
	}
	preqs, _ := poetryReqs(p.Tool.Poetry, text)
	u.Reqs = append(u.Reqs, preqs...)
	if len(u.Reqs) == 0 && len(p.Project.Dependencies) == 0 && p.Tool.UV.Index == nil {
		u.Notes = append(u.Notes, Note{Line: 1, Message: "no [project].dependencies: nothing to judge"})
	}
	return u, nil
}

// uvSource is one entry of [tool.uv.sources]: the index a package comes
// from, for an extra, a group or under a marker.
type uvSource struct{ index, extra, group, marker string }

type uvSourceMap map[string][]uvSource

func uvSources(raw map[string]any) uvSourceMap {
	out := uvSourceMap{}
	for name, s := range raw {
		var cands []map[string]any
		switch v := s.(type) {
		case map[string]any:
			cands = append(cands, v)
		case []map[string]any:
			cands = v
		case []any:
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					cands = append(cands, m)
				}
			}
		}
		for _, c := range cands {
			var src uvSource
			src.index, _ = c["index"].(string)
			src.extra, _ = c["extra"].(string)
			src.group, _ = c["group"].(string)
			src.marker, _ = c["marker"].(string)
			out[version.NormalizeName(name)] = append(out[version.NormalizeName(name)], src)
		}
	}
	return out
}

// pick is the source uv applies to package name in a scenario ("extra
// cu128", "group gpu", "" for the base dependencies): one conditioned on
// that extra or group, else an unconditioned one; among several, one
// whose marker admits Linux.
func (m uvSourceMap) pick(name, scenario string) (string, bool) {
	var best *uvSource
	for i := range m[name] {
		s := &m[name][i]
		if s.index == "" {
			continue
		}
		switch {
		case s.extra != "" && "extra "+s.extra != scenario, s.group != "" && "group "+s.group != scenario:
			continue
		case s.marker != "" && !markerAdmitsLinux(s.marker):
			continue
		}
		if best == nil || best.extra == "" && best.group == "" && (s.extra != "" || s.group != "") {
			best = s
		}
	}
	if best == nil {
		return "", false
	}
	return best.index, true
}

// anyAdmitsLinux reports whether a lock entry is locked for a Linux
// x86-64 host: it has no markers, or one of them admits it.
func anyAdmitsLinux(markers []string) bool {
	for _, m := range markers {
		if markerAdmitsLinux(m) {
			return true
		}
	}
	return len(markers) == 0
}

// exactPython reads a requires-python that names one minor ("==3.12.*",
// "==3.10", "~=3.11.0"); a range says nothing about which Python runs.
func exactPython(spec string) string {
	s := strings.TrimSpace(spec)
	for _, p := range []string{"==", "~="} {
		if strings.HasPrefix(s, p) && !strings.Contains(s, ",") {
			v := strings.TrimSuffix(strings.TrimSpace(s[2:]), ".*")
			if f := strings.Split(v, "."); len(f) >= 2 && (p == "==" || len(f) == 3) {
				return f[0] + "." + f[1]
			}
		}
	}
	return ""
}

type lockFile struct {
	RequiresPython string `toml:"requires-python"`
	Package        []struct {
		Name    string         `toml:"name"`
		Version string         `toml:"version"`
		Source  map[string]any `toml:"source"`
		// ResolutionMarkers are the environments a uv.lock entry is
		// locked for (one entry per platform when they differ).
		ResolutionMarkers []string `toml:"resolution-markers"`
	} `toml:"package"`
}

// ParseLock reads uv.lock or poetry.lock: every locked package with its
// exact version and the registry it is locked from.
func ParseLock(file, text string, kind Kind) (*Unit, error) {
	if err := checkBounds(file, kind, text); err != nil {
		return nil, err
	}
	var l lockFile
	if _, err := toml.Decode(text, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	u := &Unit{File: file, Python: exactPython(l.RequiresPython)}
	if len(l.Package) > input.MaxItems {
		return nil, input.Limit(file, "the number of locked packages", len(l.Package), input.MaxItems)
	}
	names := indexNames(text)
	last := map[string]int{}
	for _, p := range l.Package {
		if p.Name == "" {
			continue
		}
		// Several versions of one package may be locked (per marker):
		// each block is found after the previous one, a block locked for
		// another platform included.
		line := names.after(p.Name, last[p.Name])
		last[p.Name] = line
		if p.Version == "" || !anyAdmitsLinux(p.ResolutionMarkers) {
			continue
		}
		r := Requirement{Name: version.NormalizeName(p.Name), Spec: "==" + p.Version, Installer: InstallerLock, Line: line}
		if kind == KindUVLock {
			if reg, ok := p.Source["registry"].(string); ok && !strings.Contains(reg, "pypi.org") {
				r.IndexURL = reg
			}
		} else if url, ok := p.Source["url"].(string); ok {
			r.IndexURL = url
		}
		u.Reqs = append(u.Reqs, r)
	}
	return u, nil
}

// lockScenarios splits a lock that holds a framework of table more than
// once (one build per uv extra or per marker, from different indexes):
// each index's builds are one scenario, judged apart.
func lockScenarios(u *Unit, table frameworks.Table) {
	count := map[string]int{}
	for _, r := range u.Reqs {
		if n, fw := canonical(table, r.Name, r.Installer); fw != "" && n == fw {
			count[fw]++
		}
	}
	split := false
	for _, n := range count {
		split = split || n > 1
	}
	if !split {
		return
	}
	for i := range u.Reqs {
		r := &u.Reqs[i]
		if _, fw := canonical(table, r.Name, r.Installer); fw == "" {
			continue
		}
		switch v := variantOf(r.IndexURL); {
		case v != "":
			r.Scenario = "index " + v
		case r.IndexURL != "":
			r.Scenario = "index " + r.IndexURL
		default:
			r.Scenario = "index PyPI"
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// nameLines index a lock's `name = "X"` lines in one pass instead of
// one pass per package: block holds the lines that are exactly that (a
// package's block opens there, as blockLine reads), mention every line
// that holds it (a dependency list), in order.
type nameLines struct{ block, mention map[string][]int }

func indexNames(text string) nameLines {
	out := nameLines{block: map[string][]int{}, mention: map[string][]int{}}
	line := 1
	for len(text) > 0 {
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, `name = "`) && strings.IndexByte(t[len(`name = "`):], '"') == len(t)-len(`name = "`)-1 {
			name := t[len(`name = "`) : len(t)-1]
			out.block[name] = append(out.block[name], line)
		}
		for rest := l; ; {
			i := strings.Index(rest, `name = "`)
			if i < 0 {
				break
			}
			rest = rest[i+len(`name = "`):]
			j := strings.IndexByte(rest, '"')
			if j < 0 {
				break
			}
			if ls := out.mention[rest[:j]]; len(ls) == 0 || ls[len(ls)-1] != line {
				out.mention[rest[:j]] = append(ls, line)
			}
			rest = rest[j:]
		}
		line++
	}
	return out
}

// after is the line past from that opens name's block (not a mention in
// another package's dependencies), else the first mention, else from+1.
func (n nameLines) after(name string, from int) int {
	for _, ls := range [][]int{n.block[name], n.mention[name]} {
		if i := sort.SearchInts(ls, from+1); i < len(ls) {
			return ls[i]
		}
	}
	return from + 1
}
