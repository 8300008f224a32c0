package version

import "strings"

// MarkerTokens splits a PEP 508 environment marker into its tokens:
// parentheses, quoted strings (with the quotes they were written with),
// operators (==, !=, <=, ~=, …) and words. ok is false when a quoted
// string is never closed.
func MarkerTokens(m string) (toks []string, ok bool) {
	for i := 0; i < len(m); {
		c := m[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			j := strings.IndexByte(m[i+1:], c)
			if j < 0 {
				return toks, false
			}
			toks = append(toks, m[i:i+j+2])
			i += j + 2
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		case strings.ContainsRune("=!<>~", rune(c)):
			j := i
			for j < len(m) && strings.ContainsRune("=!<>~", rune(m[j])) {
				j++
			}
			toks = append(toks, m[i:j])
			i = j
		default:
			j := i
			for j < len(m) && !strings.ContainsRune(" \t\r\n\"'()=!<>~", rune(m[j])) {
				j++
			}
			toks = append(toks, m[i:j])
			i = j
		}
	}
	return toks, true
}
