package version

import (
	"fmt"
	"strings"
)

// Requirement is a package requirement as pip writes it: "torch==2.1",
// "torch >= 2, <2.3", "jax[cuda12]==0.4.30". Name and Extras are normalized
// per PEP 503 so that "Torch", "torch" and "TORCH" find the same rows; Raw is
// the text as given (trimmed), for messages and for callers that want to
// read the specifier text with other rules (see SpecText).
type Requirement struct {
	Name   string
	Extras []string
	Specs  Specifiers
	Raw    string
}

// isNameEnd reports whether c may begin or end a PEP 508 name; isNameMid
// whether it may stand inside one.
func isNameEnd(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isNameMid(c byte) bool { return isNameEnd(c) || c == '.' || c == '_' || c == '-' }

// namePrefix is the longest PEP 508 name at the start of s ("" when s
// does not start with one): letters and digits, with '.', '_' and '-'
// inside but not at either end.
func namePrefix(s string) string {
	if s == "" || !isNameEnd(s[0]) {
		return ""
	}
	end, i := 1, 1
	for ; i < len(s) && isNameMid(s[i]); i++ {
		if isNameEnd(s[i]) {
			end = i + 1
		}
	}
	return s[:end]
}

// isName reports whether s is exactly a PEP 508 name (or extra).
func isName(s string) bool { return s != "" && namePrefix(s) == s }

// NormalizeName applies PEP 503: lowercase, runs of "-", "_", "." become "-".
func NormalizeName(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	b.Grow(len(s))
	run := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '-' || c == '_' || c == '.' {
			run = true
			continue
		}
		if run {
			b.WriteByte('-')
			run = false
		}
		b.WriteByte(s[i])
	}
	if run {
		b.WriteByte('-')
	}
	return b.String()
}

// ParseRequirement reads "name", "name[extra,...]" and then an optional
// specifier list, optionally in parentheses ("torch (>=2)"). Environment
// markers (";") and URLs ("@") are rejected rather than ignored, because
// ignoring them would answer a different question than the one asked.
func ParseRequirement(s string) (Requirement, error) {
	t := strings.TrimSpace(s)
	r := Requirement{Raw: t}
	if strings.ContainsAny(t, ";@") {
		return Requirement{}, fmt.Errorf("version: requirement %q: environment markers and URLs are not supported", s)
	}
	name := namePrefix(t)
	if name == "" {
		return Requirement{}, fmt.Errorf("version: requirement %q must start with a package name", s)
	}
	r.Name = NormalizeName(name)
	rest := strings.TrimSpace(t[len(name):])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return Requirement{}, fmt.Errorf("version: requirement %q: unclosed \"[\"", s)
		}
		for _, e := range strings.Split(rest[1:end], ",") {
			e = strings.TrimSpace(e)
			if e == "" && strings.TrimSpace(rest[1:end]) == "" {
				break // "name[]" is allowed by PEP 508
			}
			if !isName(e) {
				return Requirement{}, fmt.Errorf("version: requirement %q: bad extra %q", s, e)
			}
			r.Extras = append(r.Extras, NormalizeName(e))
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	if strings.HasPrefix(rest, "(") {
		if !strings.HasSuffix(rest, ")") {
			return Requirement{}, fmt.Errorf("version: requirement %q: unclosed \"(\"", s)
		}
		rest = strings.TrimSpace(rest[1 : len(rest)-1])
	}
	if strings.ContainsAny(rest, "[]()") {
		return Requirement{}, fmt.Errorf("version: requirement %q: unexpected bracket", s)
	}
	if rest != "" && !strings.ContainsAny(rest[:1], "=!<>~") {
		return Requirement{}, fmt.Errorf("version: requirement %q: expected a specifier after %q", s, name)
	}
	specs, err := ParseSpecifiers(rest)
	if err != nil {
		return Requirement{}, fmt.Errorf("version: requirement %q: %w", s, err)
	}
	if rest != "" && len(specs) == 0 {
		return Requirement{}, fmt.Errorf("version: requirement %q: empty specifier", s)
	}
	r.Specs = specs
	return r, nil
}

// SpecText returns the specifier part of Raw ("==12.1" for "cuda==12.1"), so
// callers holding a non-Python name can read it with ParseDottedSpec, where
// "==12.1" means the whole 12.1.x series.
func (r Requirement) SpecText() string {
	t := r.Raw
	name := namePrefix(t)
	rest := strings.TrimSpace(t[len(name):])
	if strings.HasPrefix(rest, "[") {
		if end := strings.IndexByte(rest, ']'); end >= 0 {
			rest = strings.TrimSpace(rest[end+1:])
		}
	}
	if strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
		rest = strings.TrimSpace(rest[1 : len(rest)-1])
	}
	return rest
}

// String renders the normalized requirement ("torch[cuda]>=2,<2.3").
func (r Requirement) String() string {
	s := r.Name
	if len(r.Extras) > 0 {
		s += "[" + strings.Join(r.Extras, ",") + "]"
	}
	return s + r.Specs.String()
}
