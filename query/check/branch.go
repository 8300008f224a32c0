package check

import (
	"fmt"
	"path"
	"strings"
)

// branches follows the if/elif/else/fi of a RUN body. A condition whose
// variables the build decides (--build-arg, ENV) is evaluated and only
// the branch taken is read; any other condition makes each branch a
// scenario of its own, so each is judged as a build could run it.
type branches struct {
	stack []ifFrame
}

type ifFrame struct {
	line    int
	cond    string
	decided bool
	value   bool // the condition's value, when decided
	part    string
}

// step consumes the shell keywords that start cmd and returns the rest
// of the command to read (nil when nothing is left).
func (b *branches) step(cmd []word, sc shellCtx) []word {
	for len(cmd) > 0 {
		switch cmd[0].text {
		case "if":
			f := ifFrame{line: sc.lineOf(cmd[0].off), part: "cond"}
			f.cond, f.decided, f.value = evalTest(cmd[1:], sc)
			b.stack = append(b.stack, f)
			return nil
		case "elif":
			if n := len(b.stack); n > 0 {
				// An elif is read as an else branch of its own.
				b.stack[n-1].part = "elif"
				b.stack[n-1].decided = false
			}
			return nil
		case "then":
			if n := len(b.stack); n > 0 && b.stack[n-1].part == "cond" {
				b.stack[n-1].part = "then"
			}
			cmd = cmd[1:]
		case "else":
			if n := len(b.stack); n > 0 {
				b.stack[n-1].part = "else"
			}
			cmd = cmd[1:]
		case "fi":
			if n := len(b.stack); n > 0 {
				b.stack = b.stack[:n-1]
			}
			cmd = cmd[1:]
		case "do", "done", "{", "}", "!":
			cmd = cmd[1:]
		default:
			return cmd
		}
	}
	return nil
}

// skipping reports whether the current command is in a branch the
// build's variables rule out.
func (b *branches) skipping() bool {
	for _, f := range b.stack {
		if !f.decided {
			continue
		}
		if f.part == "then" && !f.value || f.part == "else" && f.value {
			return true
		}
	}
	return false
}

// scenario names the undecided branches the current command is in.
func (b *branches) scenario() string {
	var parts []string
	for _, f := range b.stack {
		if f.decided || f.part == "cond" {
			continue
		}
		switch f.part {
		case "then":
			parts = append(parts, fmt.Sprintf("line %d: if %s", f.line, f.cond))
		default:
			parts = append(parts, fmt.Sprintf("line %d: not %s", f.line, f.cond))
		}
	}
	return strings.Join(parts, ", ")
}

// evalTest reads a test command ([ a = b ], [[ a != b ]], test -n a) and
// evaluates it when the build decides every variable it uses.
func evalTest(ws []word, sc shellCtx) (text string, decided, value bool) {
	var raw []string
	for _, w := range ws {
		raw = append(raw, w.text)
	}
	text = strings.Join(raw, " ")
	if len(raw) > 0 && (raw[0] == "[" || raw[0] == "[[") {
		raw = raw[1:]
		if n := len(raw); n > 0 && (raw[n-1] == "]" || raw[n-1] == "]]") {
			raw = raw[:n-1]
		}
	} else if len(raw) > 0 && path.Base(raw[0]) == "test" {
		raw = raw[1:]
	} else {
		return text, false, false
	}
	for _, r := range raw {
		if !sc.decided(r) {
			return text, false, false
		}
	}
	v := make([]string, len(raw))
	for i, r := range raw {
		v[i] = sc.expand(r)
	}
	switch {
	case len(v) == 3 && (v[1] == "=" || v[1] == "=="):
		return text, true, v[0] == v[2]
	case len(v) == 3 && v[1] == "!=":
		return text, true, v[0] != v[2]
	case len(v) == 2 && v[0] == "-n":
		return text, true, v[1] != ""
	case len(v) == 2 && v[0] == "-z":
		return text, true, v[1] == ""
	case len(raw) == 1 && len(v) == 1:
		return text, true, v[0] != ""
	}
	return text, false, false
}

// extBuild records a command that compiles CUDA extensions against the
// installed torch: an apex-style --cuda_ext build, or a build of a
// source tree (setup.py, a local or git install) with
// TORCH_CUDA_ARCH_LIST set or flash-attn forced to build.
func extBuild(u *Unit, args []word, sc shellCtx, inline map[string]string) {
	line := sc.lineOf(args[0].off)
	for _, a := range args {
		if strings.Contains(a.text, "--cuda_ext") {
			u.Extensions = append(u.Extensions, ExtBuild{Line: sc.lineOf(a.off), What: "a --cuda_ext extension build"})
			return
		}
	}
	archList := inline["TORCH_CUDA_ARCH_LIST"] != "" || sc.env["TORCH_CUDA_ARCH_LIST"] != ""
	force := strings.EqualFold(inline["FLASH_ATTENTION_FORCE_BUILD"], "true") || strings.EqualFold(sc.env["FLASH_ATTENTION_FORCE_BUILD"], "true")
	if !archList && !force {
		return
	}
	prog := path.Base(args[0].text)
	compiles := false
	var what string
	switch {
	case pythonExe().MatchString(prog) && len(args) >= 3 && strings.HasPrefix(path.Base(args[1].text), "setup") && strings.HasSuffix(args[1].text, ".py"):
		compiles = args[2].text == "install" || args[2].text == "build_ext" || args[2].text == "develop" || args[2].text == "bdist_wheel"
		what = prog + " " + path.Base(args[1].text) + " " + args[2].text
	case prog == "pip" || prog == "pip3" || pythonExe().MatchString(prog) && len(args) > 2 && args[2].text == "pip":
		for _, a := range args[1:] {
			_, _, local := localPath(a.text)
			if local || strings.HasPrefix(a.text, "git+") || force && strings.HasPrefix(strings.ReplaceAll(a.text, "_", "-"), "flash-attn") {
				compiles, what = true, "pip install "+a.text
				break
			}
		}
	}
	if compiles {
		how := "TORCH_CUDA_ARCH_LIST set"
		if force {
			how = "FLASH_ATTENTION_FORCE_BUILD"
		}
		u.Extensions = append(u.Extensions, ExtBuild{Line: line, What: what + " (" + how + ")"})
	}
}
