package check

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// contextPath maps a path inside the image (absolute, or relative to
// the WORKDIR of the RUN that names it) back to the build context,
// through the COPY of a directory that put it there.
func contextPath(u *Unit, p, workdir string) (string, bool) {
	abs := p
	if !path.IsAbs(p) {
		abs = path.Join("/"+strings.TrimPrefix(workdir, "/"), p)
	}
	abs = path.Clean(abs)
	best, bestLen := -1, -1
	for i, cp := range u.Copies {
		if !dirLike(cp.Src) {
			continue
		}
		d := path.Clean(cp.Dest)
		if abs == d || d == "/" || strings.HasPrefix(abs, d+"/") {
			if len(d) > bestLen {
				best, bestLen = i, len(d)
			}
		}
	}
	if best < 0 {
		return "", false
	}
	cp := u.Copies[best]
	rel := strings.TrimPrefix(strings.TrimPrefix(abs, path.Clean(cp.Dest)), "/")
	return path.Join(cp.Src, rel), true
}

// readFrom reads a file a unit names: a Dockerfile's COPY sources are
// relative to its build context (a compose service's context when it
// builds from one, else the Dockerfile's folder), other files' names to
// their own folder.
func (c *checker) readFrom(u *Unit, name string) (string, []byte, error) {
	if u.context != "" && !path.IsAbs(name) {
		return c.read(path.Join(u.context, "Dockerfile"), name)
	}
	return c.read(u.File, name)
}

// dirLike says whether a COPY source names a directory.
func dirLike(src string) bool {
	if src == "." || src == "./" || strings.HasSuffix(src, "/") {
		return true
	}
	base := path.Base(src)
	return !strings.Contains(base, ".") && !strings.ContainsAny(base, "*?")
}

// followSyncDirs reads what a uv sync or poetry install installs when the
// Dockerfile copied a whole directory (COPY . .) rather than the lock:
// the lock in that directory, else its pyproject.toml.
func (c *checker) followSyncDirs(u *Unit, synced map[string]Sync) {
	for _, s := range u.Syncs {
		done := false
		for _, sc := range synced {
			done = done || sc.Line == s.Line
		}
		if done {
			continue
		}
		found := false
		for _, cp := range u.Copies {
			if !dirLike(cp.Src) {
				continue
			}
			for _, name := range []string{s.Tool + ".lock", "pyproject.toml"} {
				p, b, err := c.readFrom(u, path.Join(cp.Src, name))
				if err != nil {
					continue
				}
				k, _ := Detect(p, b)
				c.noteKind(p, k)
				units, err := c.parse(p, k, string(b))
				if err != nil || len(units) != 1 {
					continue
				}
				c.merge(u, Include{Line: s.Line}, p, keepScenarios(units[0].Reqs, s.Extras, s.Tool == "uv"))
				found = true
				break
			}
			if found {
				break
			}
		}
		if !found {
			c.notFollowed(u, s.Line, fmt.Sprintf("%s %s installs the project's locked dependencies, and neither %s.lock nor pyproject.toml was copied from a readable build context: they are not judged", s.Tool, syncVerb(s.Tool), s.Tool))
		}
	}
}

func syncVerb(tool string) string {
	if tool == "poetry" {
		return "install"
	}
	return "sync"
}

// followLocal reads the project a pip install of a directory installs
// (pip install ., -e ., /src/pkg): its pyproject.toml dependencies (with
// the extras asked), else setup.py's install_requires, else the
// requirements.txt beside it that setup.py reads.
func (c *checker) followLocal(u *Unit, in Include) {
	dir := in.Path
	if u.Image != nil {
		cp, ok := contextPath(u, in.Path, in.Workdir)
		if !ok {
			c.notFollowed(u, in.Line, fmt.Sprintf("pip installs %s, which no COPY from the build context puts there: what it installs is not judged", in.Path))
			return
		}
		dir = cp
	}
	if p, b, err := c.readFrom(u, path.Join(dir, "pyproject.toml")); err == nil {
		if pu, err := ParsePyproject(p, string(b)); err == nil && len(pu.Reqs) > 0 {
			c.merge(u, in, p, keepScenarios(pu.Reqs, in.Extras, false))
			return
		}
	}
	if p, b, err := c.readFrom(u, path.Join(dir, "setup.py")); err == nil {
		reqs, readsFile := setupRequires(string(b))
		for i := range reqs {
			reqs[i].Line = lineOf(string(b), 1, `"`+reqs[i].Name)
			reqs[i].Installer = InstallerPip
		}
		if len(reqs) > 0 || !readsFile {
			c.merge(u, in, p, reqs)
			return
		}
		if rp, rb, err := c.readFrom(u, path.Join(dir, "requirements.txt")); err == nil {
			c.merge(u, in, rp, ParseRequirements(rp, string(rb), false).Reqs)
			return
		}
	}
	c.notFollowed(u, in.Line, fmt.Sprintf("pip installs the project in %s, whose pyproject.toml or setup.py cannot be read: what it installs is not judged", dir))
}

var (
	installRequiresRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)install_requires\s*=\s*\[(.*?)\]`) })
	quotedRe          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`["']([^"'\n]+)["']`) })
)

// setupRequires reads the literal install_requires list of a setup.py;
// readsFile is true when install_requires is not a literal list (it is
// read from a file or built in code).
func setupRequires(text string) (reqs []Requirement, readsFile bool) {
	m := installRequiresRe().FindStringSubmatch(text)
	if m == nil {
		return nil, strings.Contains(text, "install_requires")
	}
	for _, q := range quotedRe().FindAllStringSubmatch(m[1], -1) {
		if r, ok := parseReqText(q[1]); ok {
			reqs = append(reqs, r)
		}
	}
	return reqs, false
}
