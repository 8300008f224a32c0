package check

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/version"
)

// word is a shell word with the byte offset where it starts; op is set
// for command separators (&&, ||, ;, |, &, newline).
type word struct {
	text string
	off  int
	op   bool
}

// shellWords splits a shell command line into words and separators,
// honouring single and double quotes and backslash escapes. It is not a
// shell: it reads enough of one to find installer commands.
func shellWords(s string) []word {
	var out []word
	var b strings.Builder
	start, in := -1, false
	var quote byte
	flush := func() {
		if in {
			out = append(out, word{text: b.String(), off: start})
		}
		b.Reset()
		in, start = false, -1
	}
	begin := func(i int) {
		if !in {
			in, start = true, i
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else {
				b.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			begin(i)
			quote = c
		case '\\':
			begin(i)
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
		case ' ', '\t':
			flush()
		case '\n', ';', '&', '|', '(', ')':
			flush()
			j := i
			for j+1 < len(s) && (s[j+1] == '&' || s[j+1] == '|') && (c == '&' || c == '|') {
				j++
			}
			out = append(out, word{text: s[i : j+1], off: i, op: true})
			i = j
		case '#':
			if !in {
				// A comment runs to the end of the line.
				for i < len(s) && s[i] != '\n' {
					i++
				}
				i--
				continue
			}
			b.WriteByte(c)
		default:
			begin(i)
			b.WriteByte(c)
		}
	}
	flush()
	return out
}

// commands groups words into simple commands.
func commands(ws []word) [][]word {
	var out [][]word
	var cur []word
	for _, w := range ws {
		if w.op {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

var pythonExe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python(\d(\.\d+)?)?$`) })

// shellCtx is what a RUN body is read with: expand substitutes build
// variables in a word; decided reports whether every variable a word
// uses has a value the build fixes (--build-arg or ENV, not an ARG's
// default); lineOf maps a byte offset of the body to a file line; text
// is the instruction, kept for fixes that rewrite it; workdir is the
// WORKDIR the command runs in.
type shellCtx struct {
	expand  func(string) string
	decided func(string) bool
	lineOf  func(int) int
	text    string
	workdir string
	env     map[string]string
}

// readShell finds installer commands in a RUN body and records what they
// install in u. Commands inside an if/else are read per branch: a
// branch the build's variables decide is followed alone, otherwise each
// branch is its own scenario (judged apart).
func readShell(u *Unit, body string, sc shellCtx) {
	br := &branches{}
	for _, cmd := range commands(shellWords(body)) {
		cmd = br.step(cmd, sc)
		if cmd == nil || br.skipping() {
			continue
		}
		args := make([]word, 0, len(cmd))
		for _, w := range cmd {
			args = append(args, word{text: sc.expand(w.text), off: w.off})
		}
		inline := map[string]string{}
		// Drop wrappers: sudo, env assignments, time, exec, nohup.
		for len(args) > 0 && (args[0].text == "sudo" || args[0].text == "exec" || args[0].text == "time" || args[0].text == "nohup" || args[0].text == "env" || isAssignment(args[0].text)) {
			if k, v, ok := strings.Cut(args[0].text, "="); ok && isAssignment(args[0].text) {
				inline[k] = v
			}
			args = args[1:]
		}
		if len(args) == 0 {
			continue
		}
		n := len(u.Reqs)
		ni := len(u.Includes)
		if script, off, ok := shellScript(args); ok {
			// bash -c "pip install …": the script is read as the body.
			inner := sc
			inner.lineOf = func(i int) int { return sc.lineOf(off + i) }
			readShell(u, script, inner)
			if br.scenario() == "" {
				continue
			}
		} else {
			readCommand(u, args, sc, inline)
		}
		for i := n; i < len(u.Reqs); i++ {
			u.Reqs[i].Scenario = br.scenario()
		}
		for i := ni; i < len(u.Includes); i++ {
			u.Includes[i].Scenario = br.scenario()
		}
	}
}

// shellScript is the script of a shell run with -c (bash -c "…",
// /bin/sh -ec '…') and the offset its text starts at in the body.
func shellScript(args []word) (string, int, bool) {
	switch path.Base(args[0].text) {
	case "sh", "bash", "dash", "zsh":
	default:
		return "", 0, false
	}
	for i := 1; i < len(args); i++ {
		a := args[i].text
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return "", 0, false
		}
		if strings.HasPrefix(a, "--") || strings.Trim(a[1:], "eulxvc") != "" || !strings.Contains(a, "c") {
			if strings.HasPrefix(a, "--") || strings.Trim(a[1:], "eulxv") != "" {
				return "", 0, false
			}
			continue
		}
		if i+1 < len(args) {
			// The word starts at its opening quote.
			return args[i+1].text, args[i+1].off + 1, true
		}
		return "", 0, false
	}
	return "", 0, false
}

func readCommand(u *Unit, args []word, sc shellCtx, inline map[string]string) {
	lineOf := sc.lineOf
	prog := path.Base(args[0].text)
	rest := args[1:]
	extBuild(u, args, sc, inline)
	switch {
	case (prog == "pip" || prog == "pip3" || strings.HasPrefix(prog, "pip3.")) && firstIs(rest, "install"):
		readPip(u, rest[1:], sc, InstallerPip)
	case pythonExe().MatchString(prog) && len(rest) >= 3 && rest[0].text == "-m" && rest[1].text == "pip" && rest[2].text == "install":
		readPip(u, rest[3:], sc, InstallerPip)
	case prog == "uv" && len(rest) >= 2 && rest[0].text == "pip" && rest[1].text == "install":
		readPip(u, rest[2:], sc, InstallerUV)
	case prog == "uv" && firstIs(rest, "add"):
		readPip(u, rest[1:], sc, InstallerUV)
	case (prog == "conda" || prog == "mamba" || prog == "micromamba") && (firstIs(rest, "install") || firstIs(rest, "create")):
		readConda(u, rest[1:], lineOf)
	case (prog == "conda" || prog == "mamba" || prog == "micromamba") && len(rest) >= 2 && rest[0].text == "env" && (rest[1].text == "create" || rest[1].text == "update"):
		for i := 2; i < len(rest); i++ {
			if (rest[i].text == "-f" || rest[i].text == "--file") && i+1 < len(rest) {
				u.Includes = append(u.Includes, Include{Path: rest[i+1].text, Line: lineOf(rest[i].off), Installer: InstallerConda, Workdir: sc.workdir})
			} else if v, ok := strings.CutPrefix(rest[i].text, "--file="); ok {
				u.Includes = append(u.Includes, Include{Path: v, Line: lineOf(rest[i].off), Installer: InstallerConda, Workdir: sc.workdir})
			}
		}
	case prog == "poetry" && (firstIs(rest, "install") || firstIs(rest, "sync")):
		u.Syncs = append(u.Syncs, Sync{Tool: "poetry", Line: lineOf(args[0].off), Extras: syncExtras(rest[1:])})
	case prog == "uv" && firstIs(rest, "sync"):
		u.Syncs = append(u.Syncs, Sync{Tool: "uv", Line: lineOf(args[0].off), Extras: syncExtras(rest[1:])})
	case (prog == "apt-get" || prog == "apt" || prog == "yum" || prog == "dnf" || prog == "microdnf") && firstIs(rest, "install"):
		for _, w := range rest[1:] {
			if strings.HasPrefix(w.text, "-") || w.text == "" {
				continue
			}
			u.Apt = append(u.Apt, Package{Name: w.text, Line: lineOf(w.off), Text: sc.text})
		}
	}
}

// syncExtras reads uv sync's / poetry install's --extra and -E values.
func syncExtras(args []word) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "--all-extras":
			out = append(out, "*")
		case (a == "--extra" || a == "-E" || a == "--extras") && i+1 < len(args):
			out = append(out, strings.Fields(strings.ReplaceAll(args[i+1].text, ",", " "))...)
			i++
		case strings.HasPrefix(a, "--extra=") || strings.HasPrefix(a, "--extras="):
			_, v, _ := strings.Cut(a, "=")
			out = append(out, strings.Fields(strings.ReplaceAll(v, ",", " "))...)
		}
	}
	return out
}

func isAssignment(s string) bool {
	k, _, ok := strings.Cut(s, "=")
	return ok && k != "" && !strings.ContainsAny(k, "-./[")
}

func firstIs(ws []word, s string) bool { return len(ws) > 0 && ws[0].text == s }

// pipValueOptions take a value (as the next word or after "=").
var pipValueOptions = map[string]bool{
	"-i": true, "--index-url": true, "--extra-index-url": true, "-f": true, "--find-links": true,
	"-r": true, "--requirement": true, "-c": true, "--constraint": true, "-t": true, "--target": true,
	"--prefix": true, "--root": true, "--python-version": true, "--platform": true, "--only-binary": true,
	"--no-binary": true, "--trusted-host": true, "--cache-dir": true, "--src": true, "--progress-bar": true,
	"--log": true, "--timeout": true, "--retries": true, "--proxy": true, "--implementation": true,
	"--abi": true, "--index-strategy": true, "--python": true, "-p": true, "-e": true, "--editable": true,
	"--upgrade-strategy": true, "--global-option": true, "--config-settings": true, "-C": true,
	"--index": true, "--default-index": true, "--extra": true, "--group": true, "--torch-backend": true,
	"--report": true, "--keyring-provider": true, "--resolution": true, "--prerelease": true,
}

// readPip records a pip (or uv pip) install's requirements with the
// sources that apply to them (index, extra indexes, find-links, a
// --torch-backend), the files it reads and the local projects it
// installs; what it cannot follow (a VCS or archive URL) is a note.
func readPip(u *Unit, args []word, sc shellCtx, installer string) {
	lineOf := sc.lineOf
	var index, backend string
	var extra, links []string
	type opt struct {
		name, val string
		off       int
	}
	var opts []opt
	var reqs []word
	for i := 0; i < len(args); i++ {
		a := args[i].text
		if strings.HasPrefix(a, "-") {
			name, val, hasVal := strings.Cut(a, "=")
			if !hasVal && pipValueOptions[name] && i+1 < len(args) {
				val = args[i+1].text
				i++
			}
			opts = append(opts, opt{name, val, args[i].off})
			switch name {
			case "-i", "--index-url", "--index", "--default-index":
				index = val
			case "--extra-index-url":
				extra = append(extra, val)
			case "--torch-backend":
				backend = val
			case "-f", "--find-links":
				links = append(links, val)
			case "-e", "--editable":
				reqs = append(reqs, word{text: val, off: args[i].off})
			}
			continue
		}
		reqs = append(reqs, args[i])
	}
	// pip and uv read their sources from the environment too
	// (ENV PIP_FIND_LINKS=/app/wheelhouse, UV_EXTRA_INDEX_URL=…).
	envIndex, envExtra, envLinks := "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"
	if installer == InstallerUV {
		envIndex, envExtra, envLinks = "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS"
	}
	if v := sc.env[envIndex]; v != "" && index == "" {
		index = v
	}
	extra = append(extra, strings.Fields(sc.env[envExtra])...)
	links = append(links, strings.Fields(sc.env[envLinks])...)
	if backend == "" {
		backend = sc.env["UV_TORCH_BACKEND"]
	}
	if backend != "" && backend != "auto" && index == "" {
		index = "https://download.pytorch.org/whl/" + backend
	}
	for _, o := range opts {
		switch o.name {
		case "-r", "--requirement", "-c", "--constraint":
			u.Includes = append(u.Includes, Include{Path: o.val, Line: lineOf(o.off), Constraint: o.name == "-c" || o.name == "--constraint",
				IndexURL: index, ExtraIndexURLs: extra, FindLinks: links, Installer: installer, Workdir: sc.workdir})
		}
	}
	for _, w := range reqs {
		if dir, extras, ok := localPath(w.text); ok {
			u.Includes = append(u.Includes, Include{Path: dir, Line: lineOf(w.off), IndexURL: index, ExtraIndexURLs: extra, FindLinks: links,
				Installer: "local", Extras: extras, Workdir: sc.workdir})
			continue
		}
		r, ok := parseReqText(w.text)
		if !ok {
			if strings.Contains(w.text, "://") || strings.HasPrefix(w.text, "git+") {
				u.Notes = append(u.Notes, Note{Line: lineOf(w.off), Message: fmt.Sprintf("%s is installed from a URL cudb does not follow: what it installs is not judged", w.text)})
			}
			continue
		}
		r.Line, r.Installer = lineOf(w.off), installer
		if r.IndexURL == "" {
			r.IndexURL = index
			r.ExtraIndexURLs = extra
		}
		r.FindLinks = append(r.FindLinks, links...)
		u.Reqs = append(u.Reqs, r)
	}
}

// parseReqText reads one PEP 508 requirement, or a direct wheel
// reference (its file name states the version); other paths, URLs and
// VCS references are not requirements check can judge.
func parseReqText(s string) (Requirement, bool) {
	s = strings.TrimSpace(s)
	if r, ok := wheelRequirement(s); ok {
		return r, true
	}
	if s == "" || s == "." || strings.ContainsAny(s[:1], "./~$") || strings.Contains(s, "://") || strings.HasSuffix(s, ".whl") || strings.HasSuffix(s, ".tar.gz") {
		return Requirement{}, false
	}
	body, marker, _ := strings.Cut(s, ";")
	if strings.Contains(body, " @ ") || strings.Contains(body, "@") && !strings.Contains(body, "==") {
		name, _, _ := strings.Cut(body, "@")
		r, err := version.ParseRequirement(strings.TrimSpace(name))
		if err != nil {
			return Requirement{}, false
		}
		return Requirement{Name: version.NormalizeName(r.Name), Extras: r.Extras, Marker: strings.TrimSpace(marker)}, true
	}
	r, err := version.ParseRequirement(strings.TrimSpace(body))
	if err != nil {
		return Requirement{}, false
	}
	return Requirement{Name: version.NormalizeName(r.Name), Spec: r.SpecText(), Extras: r.Extras, Marker: strings.TrimSpace(marker)}, true
}

// readConda records a conda install: channels (-c) and name=version
// specs. Conda's "pytorch" is torch, its "pytorch-cuda=12.1" the CUDA
// variant.
func readConda(u *Unit, args []word, lineOf func(int) int) {
	var chans []string
	var specs []word
	for i := 0; i < len(args); i++ {
		a := args[i].text
		if strings.HasPrefix(a, "-") {
			name, val, hasVal := strings.Cut(a, "=")
			switch name {
			case "-c", "--channel", "-n", "--name", "-p", "--prefix", "--file", "--override-channels-x":
				if !hasVal && i+1 < len(args) {
					val = args[i+1].text
					i++
				}
				if name == "-c" || name == "--channel" {
					chans = append(chans, val)
				}
				if name == "--file" {
					u.Includes = append(u.Includes, Include{Path: val, Line: lineOf(args[i].off), Installer: InstallerConda})
				}
			}
			continue
		}
		specs = append(specs, args[i])
	}
	u.Channels = append(u.Channels, chans...)
	for _, w := range specs {
		if r, ok := parseCondaSpec(w.text); ok {
			r.Line = lineOf(w.off)
			if len(chans) > 0 {
				r.IndexURL = chans[0]
			}
			u.Reqs = append(u.Reqs, r)
			u.Conda = true
		}
	}
}

var condaSpecRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(?:(==|>=|<=|>|<|!=|=)\s*([^=\s]+)(?:=\S+)?)?$`)
})

// parseCondaSpec reads "name", "name=1.2", "name==1.2", "name>=1.2",
// "channel::name=1.2". A conda "=1.2" means 1.2.*.
func parseCondaSpec(s string) (Requirement, bool) {
	s = strings.Trim(s, `"' `)
	ch := ""
	if c, rest, ok := strings.Cut(s, "::"); ok {
		ch, s = c, rest
	}
	m := condaSpecRe().FindStringSubmatch(s)
	if m == nil {
		return Requirement{}, false
	}
	r := Requirement{Name: strings.ToLower(m[1]), Installer: InstallerConda, IndexURL: ch}
	switch m[2] {
	case "":
	case "=":
		v := m[3]
		if strings.HasSuffix(v, "*") {
			r.Spec = "==" + v
		} else if strings.Count(v, ".") >= 2 {
			r.Spec = "==" + v
		} else {
			r.Spec = "==" + v + ".*"
		}
	default:
		r.Spec = m[2] + m[3]
	}
	return r, true
}
