package check

import (
	"strings"

	"github.com/cudb/cudb/internal/version"
)

// markerAdmitsLinux evaluates a PEP 508 environment marker as a Linux
// x86-64 host would: `and`, `or` and parentheses keep their meaning, the
// platform variables (sys_platform, platform_system, platform_machine,
// os_name) take that host's values, and anything else (the Python
// version, an extra, a malformed marker) is unknown and rules nothing
// out. It reports whether the marker may hold there.
func markerAdmitsLinux(marker string) bool {
	toks, ok := version.MarkerTokens(marker)
	if !ok {
		return true // an unclosed string: unreadable, nothing is ruled out
	}
	p := &markerParser{toks: toks}
	v := p.or()
	if p.err || p.i != len(p.toks) {
		return true // unreadable: nothing is ruled out
	}
	return v != tvFalse
}

// tv is a three-valued truth: a marker atom about something other than
// the platform is unknown.
type tv int

const (
	tvUnknown tv = iota
	tvFalse
	tvTrue
)

func tvAnd(a, b tv) tv {
	switch {
	case a == tvFalse || b == tvFalse:
		return tvFalse
	case a == tvTrue && b == tvTrue:
		return tvTrue
	}
	return tvUnknown
}

func tvOr(a, b tv) tv {
	switch {
	case a == tvTrue || b == tvTrue:
		return tvTrue
	case a == tvFalse && b == tvFalse:
		return tvFalse
	}
	return tvUnknown
}

// linuxHost is what a Linux x86-64 host's platform variables hold.
var linuxHost = map[string]string{"sys_platform": "linux", "platform_system": "linux", "platform_machine": "x86_64", "os_name": "posix"}

type markerParser struct {
	toks  []string
	i     int
	depth int
	err   bool
}

// maxMarkerDepth bounds the nesting of parentheses a marker may have; a
// deeper one is unreadable (no real marker nests past a few).
const maxMarkerDepth = 32

func (p *markerParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *markerParser) next() string {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *markerParser) or() tv {
	v := p.and()
	for p.peek() == "or" {
		p.next()
		v = tvOr(v, p.and())
	}
	return v
}

func (p *markerParser) and() tv {
	v := p.atom()
	for p.peek() == "and" {
		p.next()
		v = tvAnd(v, p.atom())
	}
	return v
}

func (p *markerParser) atom() tv {
	if p.peek() == "(" {
		p.next()
		if p.depth++; p.depth > maxMarkerDepth {
			p.err = true
			p.i = len(p.toks)
			return tvUnknown
		}
		v := p.or()
		p.depth--
		if p.next() != ")" {
			p.err = true
		}
		return v
	}
	left, op, right := p.next(), p.next(), p.next()
	if op == "not" && right == "in" {
		op, right = "not in", p.next()
	}
	if left == "" || op == "" || right == "" {
		p.err = true
		return tvUnknown
	}
	// One side is a variable, the other a quoted value.
	name, value, swapped := left, right, false
	if isQuoted(left) {
		name, value, swapped = right, left, true
	}
	host, ok := linuxHost[strings.ToLower(name)]
	if !ok || !isQuoted(value) {
		return tvUnknown
	}
	val := strings.ToLower(value[1 : len(value)-1])
	var holds bool
	switch op {
	case "==", "===":
		holds = host == val
	case "!=":
		holds = host != val
	case "in", "not in":
		// `"linux" in sys_platform` tests the variable; `sys_platform in
		// "linux darwin"` tests the value.
		if swapped {
			holds = strings.Contains(host, val)
		} else {
			holds = strings.Contains(val, host)
		}
		if op == "not in" {
			holds = !holds
		}
	default:
		return tvUnknown // an ordering of platform names means nothing
	}
	if holds {
		return tvTrue
	}
	return tvFalse
}

func isQuoted(s string) bool {
	return len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0]
}
