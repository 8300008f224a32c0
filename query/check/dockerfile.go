package check

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/input"
)

// instruction is one Dockerfile instruction after line continuations are
// joined; lines maps byte offsets of Args back to physical lines.
type instruction struct {
	Cmd   string // upper case
	Args  string
	Line  int
	lines []lineStart
}

type lineStart struct{ off, line int }

// lineAt is the physical line of byte offset off in Args.
func (in instruction) lineAt(off int) int {
	// lines are in offset order: the last one at or before off.
	i := sort.Search(len(in.lines), func(i int) bool { return in.lines[i].off > off })
	if i == 0 {
		return in.Line
	}
	return in.lines[i-1].line
}

var escapeDirective = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^#\s*escape\s*=\s*([\\` + "`" + `])\s*$`) })

// splitInstructions reads a Dockerfile into instructions: comments and
// blank lines dropped, continuations joined (comment lines inside a
// continuation are skipped as BuildKit does), heredoc bodies appended to
// their instruction.
func splitInstructions(text string) []instruction {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	escape := byte('\\')
	var out []instruction
	var cur *instruction
	var heredocs []string
	// args accumulates cur's Args: joining by += would copy the whole
	// instruction for each of its lines.
	var args []byte
	flush := func() {
		cur.Args = string(args)
		out = append(out, *cur)
		cur, args = nil, args[:0]
	}
	directives := true
	for i, l := range raw {
		n := i + 1
		if len(heredocs) > 0 {
			cur.lines = append(cur.lines, lineStart{len(args) + 1, n})
			args = append(append(args, '\n'), l...)
			if strings.TrimSpace(strings.TrimLeft(l, "\t")) == heredocs[0] {
				heredocs = heredocs[1:]
				if len(heredocs) == 0 {
					flush()
				}
			}
			continue
		}
		t := strings.TrimSpace(l)
		if directives {
			if m := escapeDirective().FindStringSubmatch(t); m != nil {
				escape = m[1][0]
				continue
			}
			if !strings.HasPrefix(t, "#") || t == "" {
				directives = false
			}
		}
		if cur == nil && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if cur != nil && strings.HasPrefix(t, "#") {
			continue
		}
		cont := strings.HasSuffix(t, string(escape))
		if cont {
			t = strings.TrimSpace(t[:len(t)-1])
		}
		if cur == nil {
			cmd, a, _ := strings.Cut(t, " ")
			if tab := strings.IndexByte(cmd, '\t'); tab >= 0 {
				cmd, a = cmd[:tab], cmd[tab+1:]+" "+a
			}
			a = strings.TrimSpace(a)
			cur = &instruction{Cmd: strings.ToUpper(cmd), Line: n, lines: []lineStart{{0, n}}}
			args = append(args[:0], a...)
		} else if t != "" {
			if len(args) > 0 {
				args = append(args, ' ')
			}
			cur.lines = append(cur.lines, lineStart{len(args), n})
			args = append(args, t...)
		}
		if cont {
			continue
		}
		cur.Args = string(args)
		if hd := heredocMarkers(cur); len(hd) > 0 {
			heredocs = hd
			continue
		}
		flush()
	}
	if cur != nil {
		flush()
	}
	return out
}

var heredocRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<-?\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?`) })

func heredocMarkers(in *instruction) []string {
	if in.Cmd != "RUN" && in.Cmd != "COPY" {
		return nil
	}
	var out []string
	for _, m := range heredocRe().FindAllStringSubmatch(in.Args, -1) {
		out = append(out, m[1])
	}
	return out
}

// stage is one FROM … section.
type stage struct {
	name  string
	unit  *Unit
	vars  map[string]string
	index int
	// fixed are the variables the build decides (--build-arg, ENV);
	// an ARG's default may be overridden and decides nothing.
	fixed   map[string]bool
	workdir string
}

var varRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))`)
})

// expansion is one file's budget for $VAR expansion: ARGs that double
// each other would otherwise grow exponentially. Past a bound err is set,
// what is expanded is cut short, and ParseDockerfile answers err.
type expansion struct {
	total int
	err   error
	file  string
	line  int
}

// expand substitutes $VAR, ${VAR}, ${VAR:-default} and ${VAR:+alt} as
// the Dockerfile frontend does; unknown variables are reported once.
func (e *expansion) expand(s string, vars map[string]string, unknown func(string)) string {
	if !strings.Contains(s, "$") || e.err != nil {
		return s
	}
	grown := 0
	out := varRe().ReplaceAllStringFunc(s, func(m string) string {
		if e.err != nil {
			return ""
		}
		v := expandOne(m, vars, unknown)
		grown += len(v)
		if grown > input.MaxExpandedValue {
			e.err = input.Limit(e.where(), "the length in bytes of a value after $VAR expansion", len(s)+grown, input.MaxExpandedValue)
			return ""
		}
		return v
	})
	e.total += len(out)
	if e.err == nil && e.total > input.MaxExpandedTotal {
		e.err = input.Limit(e.where(), "the bytes produced by $VAR expansion in the file", e.total, input.MaxExpandedTotal)
	}
	return out
}

func (e *expansion) where() string {
	if e.file == "" {
		return "$VAR expansion"
	}
	return e.file + ":" + lineNo(e.line)
}

func expandOne(m string, vars map[string]string, unknown func(string)) string {
	g := varRe().FindStringSubmatch(m)
	name := g[1] + g[4]
	v, ok := vars[name]
	switch g[2] {
	case ":-":
		if v == "" {
			return g[3]
		}
		return v
	case "-":
		if !ok {
			return g[3]
		}
		return v
	case ":+", "+":
		if ok && (v != "" || g[2] == "+") {
			return g[3]
		}
		return ""
	}
	if !ok && unknown != nil {
		unknown(name)
	}
	return v
}

// ParseDockerfile reads a Dockerfile into its final stage's unit: the
// base image (through earlier stages it is built FROM), what RUN lines
// install (pip, uv, conda, apt) with their index URLs, what COPY --from
// carries over from earlier stages' Python environments, and ENV
// settings that matter (LD_LIBRARY_PATH, NVIDIA_REQUIRE_CUDA, …).
// buildArgs override ARG defaults, as docker build --build-arg does.
func ParseDockerfile(file, text string, buildArgs map[string]string) (*Unit, error) {
	if err := checkBounds(file, KindDockerfile, text); err != nil {
		return nil, err
	}
	ins := splitInstructions(text)
	global := map[string]string{}
	var stages []*stage
	var cur *stage
	var notes []Note
	seenUnknown := map[string]bool{}
	bud := &expansion{file: file}
	for _, in := range ins {
		bud.line = in.Line
		if bud.err != nil {
			return nil, bud.err
		}
		vars := global
		if cur != nil {
			vars = cur.vars
		}
		unknown := func(name string) {
			if !seenUnknown[name] {
				seenUnknown[name] = true
				notes = append(notes, Note{Line: in.Line, Message: fmt.Sprintf("$%s has no value in the file (pass it with --build-arg %s=…)", name, name)})
			}
		}
		switch in.Cmd {
		case "ARG":
			for _, kv := range splitArgs(in.Args) {
				k, v, hasDefault := strings.Cut(kv, "=")
				if bv, ok := buildArgs[k]; ok {
					vars[k] = bv
					if cur != nil {
						cur.fixed[k] = true
					}
					continue
				}
				if hasDefault {
					vars[k] = bud.expand(unquote(v), vars, unknown)
				} else if gv, ok := global[k]; ok && cur != nil {
					vars[k] = gv
				} else if _, ok := vars[k]; !ok {
					vars[k] = ""
					if cur == nil {
						delete(vars, k)
					}
				}
			}
		case "FROM":
			st := &stage{index: len(stages), vars: map[string]string{}, fixed: map[string]bool{}}
			args := strings.Fields(in.Args)
			var ref string
			for i := 0; i < len(args); i++ {
				a := args[i]
				if strings.HasPrefix(a, "--") {
					continue
				}
				if ref == "" {
					ref = bud.expand(a, global, unknown)
					continue
				}
				if strings.EqualFold(a, "AS") && i+1 < len(args) {
					st.name = strings.ToLower(args[i+1])
					i++
				}
			}
			st.unit = &Unit{File: file, Name: st.name, Env: map[string]EnvVar{}}
			if prev := findStage(stages, ref); prev != nil {
				// FROM an earlier stage inherits what it installed.
				inherit(st.unit, prev.unit)
				for k, v := range prev.vars {
					st.vars[k] = v
				}
				for k := range prev.fixed {
					st.fixed[k] = true
				}
				st.workdir = prev.workdir
			} else {
				img := ClassifyImage(ref)
				img.Line = in.Line
				st.unit.Image = &img
			}
			stages = append(stages, st)
			cur = st
		default:
			if cur == nil {
				continue
			}
			switch in.Cmd {
			case "ENV":
				// Variables of the base image ($PATH) are not the file's
				// to define: only FROM reports unknown ones.
				for _, kv := range envPairs(in.Args) {
					v := bud.expand(kv[1], cur.vars, nil)
					cur.vars[kv[0]] = v
					cur.fixed[kv[0]] = true
					cur.unit.Env[kv[0]] = EnvVar{Value: v, Line: in.Line}
				}
			case "RUN":
				body := in.Args
				for strings.HasPrefix(body, "--") {
					_, rest, _ := strings.Cut(body, " ")
					body = strings.TrimLeft(rest, " ")
				}
				off := len(in.Args) - len(body)
				st := cur
				// A RUN sees the stage's ARGs and ENVs as its environment.
				env := map[string]string{}
				for k, v := range st.vars {
					env[k] = v
				}
				for k, v := range st.unit.Env {
					env[k] = v.Value
				}
				readShell(cur.unit, body, shellCtx{
					expand: func(w string) string { return bud.expand(w, st.vars, nil) },
					decided: func(w string) bool {
						ok := true
						for _, m := range varRe().FindAllStringSubmatch(w, -1) {
							if !st.fixed[m[1]+m[4]] {
								ok = false
							}
						}
						return ok
					},
					lineOf: func(o int) int { return in.lineAt(off + o) }, text: in.Args, workdir: st.workdir, env: env,
				})
			case "WORKDIR":
				wd := bud.expand(strings.Trim(in.Args, `"'`), cur.vars, nil)
				if !strings.HasPrefix(wd, "/") {
					wd = path.Join("/"+strings.TrimPrefix(cur.workdir, "/"), wd)
				}
				cur.workdir = path.Clean(wd)
			case "COPY", "ADD":
				copyFrom(cur, stages, in, &notes)
			}
		}
	}
	if bud.err != nil {
		return nil, bud.err
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM instruction: not a Dockerfile", file)
	}
	u := stages[len(stages)-1].unit
	u.Notes = append(notes, u.Notes...)
	return u, nil
}

func findStage(stages []*stage, ref string) *stage {
	r := strings.ToLower(ref)
	for i := len(stages) - 1; i >= 0; i-- {
		if stages[i].name != "" && stages[i].name == r {
			return stages[i]
		}
	}
	return nil
}

func inherit(dst, src *Unit) {
	dst.Image = src.Image
	dst.Reqs = append(dst.Reqs, src.Reqs...)
	dst.Apt = append(dst.Apt, src.Apt...)
	dst.Includes = append(dst.Includes, src.Includes...)
	dst.Syncs = append(dst.Syncs, src.Syncs...)
	dst.Copies = append(dst.Copies, src.Copies...)
	dst.Extensions = append(dst.Extensions, src.Extensions...)
	for k, v := range src.Env {
		dst.Env[k] = v
	}
	dst.Conda = src.Conda
	dst.Channels = append(dst.Channels, src.Channels...)
}

// pythonPaths are what a COPY --from carries when it copies a Python
// environment (site-packages, a venv, a conda prefix, pip --user).
var pythonPaths = []string{"site-packages", "dist-packages", "/venv", "/.venv", "/opt/conda", "/root/.local", "/install", "/usr/local/lib/python", "/opt/venv"}

func copyFrom(cur *stage, stages []*stage, in instruction, notes *[]Note) {
	var from string
	var paths []string
	for _, a := range strings.Fields(in.Args) {
		if strings.HasPrefix(a, "--from=") {
			from = strings.Trim(strings.TrimPrefix(a, "--from="), `"'`)
		} else if !strings.HasPrefix(a, "--") {
			paths = append(paths, a)
		}
	}
	if len(paths) > 1 && from == "" && !strings.HasPrefix(paths[0], "[") {
		// COPY requirements.txt . : the file a later pip -r reads.
		dest := paths[len(paths)-1]
		if !strings.HasPrefix(dest, "/") {
			dest = path.Join("/"+strings.TrimPrefix(cur.workdir, "/"), dest)
		}
		for _, p := range paths[:len(paths)-1] {
			if isDependencyFile(p) {
				cur.unit.Includes = append(cur.unit.Includes, Include{Path: p, Line: in.Line, Installer: "copy"})
			}
			cur.unit.Copies = append(cur.unit.Copies, Copy{Src: p, Dest: dest, Line: in.Line})
		}
	}
	if from == "" {
		return
	}
	src := findStage(stages, from)
	if src == nil {
		if n, ok := atoiOK(from); ok && n < len(stages) {
			src = stages[n]
		}
	}
	carries := false
	for _, p := range paths {
		for _, pp := range pythonPaths {
			if strings.Contains(p, pp) {
				carries = true
			}
		}
	}
	if src == nil {
		if carries {
			// A Python environment from another image (a tool binary
			// such as uv's is not one).
			*notes = append(*notes, Note{Line: in.Line, Message: fmt.Sprintf("COPY --from=%s names an image, not a stage: the Python environment it copies is not judged", from)})
		}
		return
	}
	if !carries {
		return
	}
	for _, r := range src.unit.Reqs {
		if !hasReq(cur.unit.Reqs, r) {
			cur.unit.Reqs = append(cur.unit.Reqs, r)
		}
	}
	cur.unit.Includes = append(cur.unit.Includes, src.unit.Includes...)
	// The stage is built for the copy: its extension builds run too.
	cur.unit.Extensions = append(cur.unit.Extensions, src.unit.Extensions...)
}

func hasReq(rs []Requirement, r Requirement) bool {
	for _, x := range rs {
		if x.Name == r.Name && x.Line == r.Line {
			return true
		}
	}
	return false
}

func atoiOK(s string) (int, bool) {
	n := 0
	if s == "" {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// splitArgs splits ARG's "A=1 B" into items, honouring quotes.
func splitArgs(s string) []string {
	var out []string
	for _, t := range shellWords(s) {
		out = append(out, t.text)
	}
	return out
}

// envPairs reads ENV in both forms: "K=V K2=V2" and the legacy "K V".
func envPairs(s string) [][2]string {
	words := shellWords(s)
	if len(words) == 0 {
		return nil
	}
	if !strings.Contains(words[0].text, "=") {
		k, v, _ := strings.Cut(strings.TrimSpace(s), " ")
		return [][2]string{{k, unquote(strings.TrimSpace(v))}}
	}
	var out [][2]string
	for _, w := range words {
		k, v, _ := strings.Cut(w.text, "=")
		out = append(out, [2]string{k, v})
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// isDependencyFile says whether a path names a file check can read.
func isDependencyFile(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	k, ok := kindByName(base)
	return ok && k != KindDockerfile && k != KindCompose
}
