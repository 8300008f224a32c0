package check

import (
	"strings"
)

// ParseRequirements reads a requirements file, a constraints file or pip
// freeze output: one requirement per line, comments, line continuations,
// --index-url/--extra-index-url/--find-links, -r and -c includes, hashes
// and environment markers. constraint marks every line as a constraint
// (the file was given with -c).
func ParseRequirements(file, text string, constraint bool) *Unit {
	u := &Unit{File: file}
	var index string
	var extra, links []string
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	type logical struct {
		text string
		line int
	}
	var ls []logical
	for i := 0; i < len(lines); i++ {
		start := i + 1
		l := lines[i]
		for strings.HasSuffix(strings.TrimRight(l, " \t"), "\\") && i+1 < len(lines) {
			l = strings.TrimSuffix(strings.TrimRight(l, " \t"), "\\") + " " + lines[i+1]
			i++
		}
		ls = append(ls, logical{l, start})
	}
	for _, lg := range ls {
		l := lg.text
		if i := strings.Index(l, "#"); i == 0 || i > 0 && (l[i-1] == ' ' || l[i-1] == '\t') {
			l = l[:i]
		}
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "-") {
			ws := shellWords(l)
			if len(ws) == 0 {
				continue
			}
			name, val, has := strings.Cut(ws[0].text, "=")
			if !has && len(ws) > 1 {
				val = ws[1].text
			}
			switch name {
			case "-i", "--index-url":
				index = val
			case "-f", "--find-links":
				links = append(links, val)
			case "--extra-index-url":
				extra = append(extra, val)
			case "-r", "--requirement", "-c", "--constraint":
				u.Includes = append(u.Includes, Include{Path: val, Line: lg.line, Constraint: constraint || name == "-c" || name == "--constraint", Installer: InstallerPip})
			case "-e", "--editable":
				if dir, extras, ok := localPath(val); ok {
					u.Includes = append(u.Includes, Include{Path: dir, Line: lg.line, Installer: "local", Extras: extras})
				} else if r, ok := parseReqText(val); ok {
					r.Line, r.Installer = lg.line, InstallerPip
					u.Reqs = append(u.Reqs, r)
				}
			}
			continue
		}
		// Per-requirement options (--hash=…) follow the requirement.
		if i := strings.Index(l, " --"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if dir, extras, ok := localPath(l); ok {
			u.Includes = append(u.Includes, Include{Path: dir, Line: lg.line, Installer: "local", Extras: extras})
			continue
		}
		r, ok := parseReqText(l)
		if !ok {
			if strings.Contains(l, "://") || strings.HasPrefix(l, "git+") {
				u.Notes = append(u.Notes, Note{Line: lg.line, Message: l + " is installed from a URL cudb does not follow: what it installs is not judged"})
			}
			continue
		}
		r.Line, r.Installer, r.Constraint = lg.line, InstallerPip, constraint
		u.Reqs = append(u.Reqs, r)
	}
	// Index options apply to the whole file wherever they are written.
	for i := range u.Reqs {
		r := &u.Reqs[i]
		if r.IndexURL == "" {
			r.IndexURL = index
		}
		r.ExtraIndexURLs, r.FindLinks = extra, links
	}
	for i := range u.Includes {
		in := &u.Includes[i]
		if in.IndexURL == "" {
			in.IndexURL = index
		}
		in.ExtraIndexURLs, in.FindLinks = extra, links
	}
	return u
}
