package check

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

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
	defaultIndex := ""
	for _, ix := range p.Tool.UV.Index {
		indexURL[ix.Name] = ix.URL
		if ix.Default {
			defaultIndex = ix.URL
		}
	}
	// A source maps a package to an index, or to several under markers;
	// the first (Linux wins when a marker names it) is the one judged.
	sourceIndex := map[string]string{}
	for name, s := range p.Tool.UV.Sources {
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
			ix, _ := c["index"].(string)
			if ix == "" {
				continue
			}
			marker, _ := c["marker"].(string)
			if _, done := sourceIndex[version.NormalizeName(name)]; !done || strings.Contains(marker, "linux") {
				sourceIndex[version.NormalizeName(name)] = indexURL[ix]
			}
		}
	}
	add := func(list []string, from int) {
		for _, s := range list {
			r, ok := parseReqText(s)
			if !ok {
				continue
			}
			r.Line = lineOf(text, from, `"`+strings.SplitN(strings.TrimSpace(s), " ", 2)[0])
			if r.Line == from {
				r.Line = lineOf(text, from, r.Name)
			}
			r.Installer = InstallerUV
			r.IndexURL = sourceIndex[r.Name]
			if r.IndexURL == "" {
				r.IndexURL = defaultIndex
			}
			u.Reqs = append(u.Reqs, r)
		}
	}
	add(p.Project.Dependencies, lineOf(text, 1, "dependencies"))
	for _, g := range sortedKeys(p.Project.OptionalDependencies) {
		add(p.Project.OptionalDependencies[g], lineOf(text, 1, g))
	}
	for _, g := range sortedKeys(p.DependencyGroups) {
		var ss []string
		for _, e := range p.DependencyGroups[g] {
			if s, ok := e.(string); ok {
				ss = append(ss, s)
			}
		}
		add(ss, lineOf(text, 1, g))
	}
	preqs, _ := poetryReqs(p.Tool.Poetry, text)
	u.Reqs = append(u.Reqs, preqs...)
	if len(u.Reqs) == 0 && len(p.Project.Dependencies) == 0 && p.Tool.UV.Index == nil {
		u.Notes = append(u.Notes, Note{Line: 1, Message: "no [project].dependencies: nothing to judge"})
	}
	return u, nil
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
	} `toml:"package"`
}

// ParseLock reads uv.lock or poetry.lock: every locked package with its
// exact version and the registry it is locked from.
func ParseLock(file, text string, kind Kind) (*Unit, error) {
	var l lockFile
	if _, err := toml.Decode(text, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	u := &Unit{File: file, Python: exactPython(l.RequiresPython)}
	for _, p := range l.Package {
		if p.Name == "" || p.Version == "" {
			continue
		}
		r := Requirement{Name: version.NormalizeName(p.Name), Spec: "==" + p.Version, Installer: InstallerLock}
		if kind == KindUVLock {
			if reg, ok := p.Source["registry"].(string); ok && !strings.Contains(reg, "pypi.org") {
				r.IndexURL = reg
			}
		} else if url, ok := p.Source["url"].(string); ok {
			r.IndexURL = url
		}
		r.Line = lineOf(text, 1, `name = "`+p.Name+`"`)
		// Several versions of one package may be locked (per marker):
		// each block is found after the previous one.
		for _, x := range u.Reqs {
			if x.Name == r.Name && x.Line >= r.Line {
				r.Line = lineOf(text, x.Line+1, `name = "`+p.Name+`"`)
			}
		}
		u.Reqs = append(u.Reqs, r)
	}
	return u, nil
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
