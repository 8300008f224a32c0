package check

import (
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/version"
)

// poetryTool is pyproject's [tool.poetry]: dependencies as a table of
// name → constraint string or {version, source, url, extras}.
type poetryTool struct {
	Dependencies map[string]any `toml:"dependencies"`
	Group        map[string]struct {
		Dependencies map[string]any `toml:"dependencies"`
	} `toml:"group"`
	Source []struct {
		Name string `toml:"name"`
		URL  string `toml:"url"`
	} `toml:"source"`
}

// poetryReqs turns [tool.poetry] dependencies into requirements; python
// is the project's Python constraint, which is returned apart.
func poetryReqs(p poetryTool, text string) (reqs []Requirement, python string) {
	sources := map[string]string{}
	for _, s := range p.Source {
		sources[s.Name] = s.URL
	}
	add := func(deps map[string]any, from int) {
		for _, name := range sortedKeys(deps) {
			if name == "python" {
				if s, ok := deps[name].(string); ok {
					python = s
				}
				continue
			}
			r := Requirement{Name: version.NormalizeName(name), Installer: InstallerLock}
			switch v := deps[name].(type) {
			case string:
				r.Spec = poetrySpec(v)
			case map[string]any:
				if s, ok := v["version"].(string); ok {
					r.Spec = poetrySpec(s)
				}
				if s, ok := v["source"].(string); ok {
					r.IndexURL = sources[s]
				}
				if u, ok := v["url"].(string); ok {
					if ver := wheelVersion(u); ver != "" {
						r.Spec = "==" + ver
						r.IndexURL = u[:strings.LastIndexByte(u, '/')+1]
					}
				}
				if xs, ok := v["extras"].([]any); ok {
					for _, x := range xs {
						if s, ok := x.(string); ok {
							r.Extras = append(r.Extras, s)
						}
					}
				}
			default:
				continue
			}
			r.Installer = "poetry"
			r.Line = lineOf(text, from, name+" ")
			if r.Line == from {
				r.Line = lineOf(text, from, name)
			}
			reqs = append(reqs, r)
		}
	}
	add(p.Dependencies, lineOf(text, 1, "[tool.poetry.dependencies]"))
	for _, g := range sortedKeys(p.Group) {
		add(p.Group[g].Dependencies, lineOf(text, 1, "[tool.poetry.group."+g))
	}
	return reqs, python
}

var caretRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([~^])\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?`) })

// poetrySpec turns a Poetry constraint into a PEP 440 specifier:
// "2.0.1+cu118" is exact, "^2.3.1" is >=2.3.1,<3.0.0, "~2.3.1" is
// >=2.3.1,<2.4.0, "*" is any. A local label on a range names the
// variant only, and is dropped from the range.
func poetrySpec(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "*":
		return ""
	case s[0] >= '0' && s[0] <= '9':
		return "==" + s
	}
	if m := caretRe().FindStringSubmatch(s); m != nil {
		maj, _ := strconv.Atoi(m[2])
		mnr, _ := strconv.Atoi(orZero(m[3]))
		low := m[2] + "." + orZero(m[3]) + "." + orZero(m[4])
		var high string
		switch {
		case m[1] == "~" && m[3] != "":
			high = m[2] + "." + strconv.Itoa(mnr+1) + ".0"
		case m[1] == "^" && maj == 0 && m[3] != "":
			high = "0." + strconv.Itoa(mnr+1) + ".0"
		default:
			high = strconv.Itoa(maj+1) + ".0.0"
		}
		return ">=" + low + ",<" + high
	}
	return localRe().ReplaceAllString(s, "")
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// wheelVersion reads the version from a wheel URL's file name
// (torch-2.0.0%2Bcu117-cp38-cp38-linux_x86_64.whl → 2.0.0+cu117).
func wheelVersion(u string) string {
	if !strings.HasSuffix(u, ".whl") {
		return ""
	}
	name := path.Base(u)
	if un, err := url.PathUnescape(name); err == nil {
		name = un
	}
	parts := strings.Split(name, "-")
	if len(parts) < 3 {
		return ""
	}
	return parts[1]
}
