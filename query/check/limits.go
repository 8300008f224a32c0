package check

import (
	"strings"

	"github.com/cudb/cudb/internal/input"
)

// The bounds each parser works within are internal/input's; this file
// holds the checks that run before a file reaches its parser (and before
// a TOML or YAML library sees it: their work grows faster than the input
// on deep nesting and long dotted keys).

// checkShape refuses a file with a physical line longer than the bound,
// or, where each line is an item (Dockerfile instructions and their
// continuations, requirements, YAML entries), more lines than items.
// TOML locks hold many lines per package: their packages are counted.
func checkShape(file string, k Kind, text string) error {
	if k != KindPyproject && k != KindUVLock && k != KindPoetryLock {
		if n := strings.Count(text, "\n"); n > input.MaxItems {
			return input.Limit(file, "the number of lines", n, input.MaxItems)
		}
	}
	lines := 0
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		l := text
		if i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		lines++
		if len(l) > input.MaxLineLength {
			return input.Limit(file+":"+lineNo(lines), "the line's length in bytes", len(l), input.MaxLineLength)
		}
	}
	return nil
}

func lineNo(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

// tomlDepth refuses TOML whose nesting is past input.MaxDepth: arrays and
// inline tables inside each other, and tables named by a dotted key or
// table header of many parts (each part is one more table). It lexes
// only strings, comments and brackets, linearly.
func tomlDepth(file, text string) error {
	var stack []byte // '[' and '{'
	keyParts := 0
	inKey := true // at the start of a line outside any bracket: a key
	line := 1
	fail := func(what string, got int) error {
		return input.Limit(file+":"+lineNo(line), what, got, input.MaxDepth)
	}
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch ch {
		case '\n':
			line++
			if len(stack) == 0 {
				inKey, keyParts = true, 0
			}
		case '#':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j - 1
		case '"', '\'':
			q := text[i : i+1]
			if strings.HasPrefix(text[i:], q+q+q) {
				j := strings.Index(text[i+3:], q+q+q)
				if j < 0 {
					return nil // the TOML parser reports the open string
				}
				line += strings.Count(text[i+3:i+3+j], "\n")
				i += 3 + j + 2
				for i+1 < len(text) && text[i+1] == ch { // """a"""" ends with the last three
					i++
				}
				continue
			}
			j := i + 1
			for j < len(text) && text[j] != ch && text[j] != '\n' {
				if ch == '"' && text[j] == '\\' {
					j++
				}
				j++
			}
			i = j
			if i < len(text) && text[i] == '\n' {
				i--
			}
		case '.':
			if inKey {
				keyParts++
				if keyParts+len(stack) > input.MaxDepth {
					return fail("the nesting depth of a dotted key or table header", keyParts+len(stack))
				}
			}
		case '=':
			inKey = false
		case '[', '{':
			if ch == '[' && len(stack) == 0 && inKey && keyParts == 0 {
				// A table header: its parts are keys.
				if i+1 < len(text) && text[i+1] == '[' {
					i++
				}
				continue
			}
			stack = append(stack, ch)
			if len(stack) > input.MaxDepth {
				return fail("the nesting depth of arrays and inline tables", len(stack))
			}
			inKey, keyParts = ch == '{', 0
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				inKey = false
			}
		case ',':
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				inKey, keyParts = true, 0
			}
		}
	}
	return nil
}

// yamlDepth refuses YAML nested past input.MaxDepth in flow collections
// ([ and { inside each other) and aliases past input.MaxItems (an alias
// expands to its anchor's whole node). Block nesting is bounded by the
// line length (each level indents).
func yamlDepth(file, text string) error {
	depth, line := 0, 1
	aliases := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			line++
		case '#':
			if i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n' {
				j := strings.IndexByte(text[i:], '\n')
				if j < 0 {
					return nil
				}
				i += j - 1
			}
		case '"', '\'':
			if i > 0 && text[i-1] != ' ' && text[i-1] != '[' && text[i-1] != '{' && text[i-1] != ',' && text[i-1] != ':' && text[i-1] != '-' && text[i-1] != '\n' {
				continue
			}
			q := text[i]
			j := i + 1
			for j < len(text) && text[j] != q {
				if q == '"' && text[j] == '\\' {
					j++
				}
				if j < len(text) && text[j] == '\n' {
					line++
				}
				j++
			}
			i = j
		case '[', '{':
			depth++
			if depth > input.MaxDepth {
				return input.Limit(file+":"+lineNo(line), "the nesting depth of flow collections", depth, input.MaxDepth)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		case '*':
			if i == 0 || text[i-1] == ' ' || text[i-1] == '[' || text[i-1] == ',' || text[i-1] == '\n' {
				aliases++
				if aliases > input.MaxItems {
					return input.Limit(file, "the number of aliases", aliases, input.MaxItems)
				}
			}
		}
	}
	return nil
}
