package mdtab

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Inline text: the words of a span of markdown, the way the pages' cells
// and headings read — emphasis markers, link syntax and raw HTML left out,
// code span contents and link texts kept, escapes and entities as written.
// A soft line break reads as one space, a hard one as nothing; with br, an
// HTML line break (<br>, <br/>) reads as "\n".

// Inline returns the text of the inline markdown s.
func Inline(s string, br bool) string {
	var b strings.Builder
	for _, p := range inlinePieces(s, br) {
		b.WriteString(p.text)
	}
	return b.String()
}

// BoldOnly reports whether s is one strong span and nothing else
// ("**Linux**"), and returns its text.
func BoldOnly(s string) (string, bool) {
	ps := inlinePieces(s, false)
	if len(ps) < 2 {
		return "", false
	}
	first, last := ps[0], ps[len(ps)-1]
	if !first.delim || !last.delim || first.pair != len(ps)-1 || first.used != 2 || first.n != 2 || last.n != 2 {
		return "", false
	}
	var b strings.Builder
	for _, p := range ps[1 : len(ps)-1] {
		b.WriteString(p.text)
	}
	return b.String(), true
}

type piece struct {
	text  string
	delim bool // an emphasis delimiter run (* or _)
	char  byte
	n     int // the run's length
	used  int // characters matched as emphasis
	open  bool
	close bool
	pair  int // index of the run it was first matched with, or -1
}

// inlinePieces splits s into text and delimiter runs and resolves
// emphasis; the text of matched delimiter characters is removed.
func inlinePieces(s string, br bool) []piece {
	var ps []piece
	text := func(t string) {
		if t == "" {
			return
		}
		if n := len(ps); n > 0 && !ps[n-1].delim {
			ps[n-1].text += t
			return
		}
		ps = append(ps, piece{text: t, pair: -1})
	}
	start := 0 // of the pending plain text
	flush := func(i int) { text(s[start:i]) }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			flush(i)
			i += 2
			start = i
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i += 2
		case c == '\n':
			// soft break, or a hard one after two spaces
			j := i
			for j > start && s[j-1] == ' ' {
				j--
			}
			flush(j)
			if i-j < 2 {
				text(" ")
			}
			i++
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			start = i
		case c == '`':
			n := run(s, i, '`')
			end := closingTicks(s, i+n, n)
			if end < 0 {
				i += n
				continue
			}
			flush(i)
			text(codeContent(s[i+n : end]))
			i = end + n
			start = i
		case c == '*' || c == '_':
			flush(i)
			n := run(s, i, c)
			open, close := flanking(s, i, n)
			ps = append(ps, piece{text: s[i : i+n], delim: true, char: c, n: n, open: open, close: close, pair: -1})
			i += n
			start = i
		case c == '[' || (c == '!' && i+1 < len(s) && s[i+1] == '['):
			// A link and an image read alike: their text is kept.
			at := i
			if c == '!' {
				at++
			}
			if inner, end, ok := link(s, at); ok {
				flush(i)
				text(Inline(inner, br))
				i = end
				start = i
				continue
			}
			i++
		case c == '<':
			if end := rawHTML(s, i); end > 0 {
				flush(i)
				tag := strings.ToLower(strings.ReplaceAll(s[i:end], " ", ""))
				if br && strings.HasPrefix(tag, "<br") {
					text("\n")
				}
				i = end
				start = i
				continue
			}
			i++
		default:
			i++
		}
	}
	flush(len(s))
	emphasis(ps)
	for i := range ps {
		if ps[i].delim {
			ps[i].text = strings.Repeat(string(ps[i].char), ps[i].n-ps[i].used)
		}
	}
	return ps
}

func run(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingTicks finds the backtick run of exactly n that closes a code
// span opened before from.
func closingTicks(s string, from, n int) int {
	for i := from; i < len(s) && i-from < maxSpan; {
		if s[i] != '`' {
			i++
			continue
		}
		m := run(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func codeContent(c string) string {
	c = strings.ReplaceAll(c, "\n", " ")
	if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
		c = c[1 : len(c)-1]
	}
	return c
}

// link parses [text](destination) at s[i] == '['; it returns the text
// and the end of the link.
func link(s string, i int) (inner string, end int, ok bool) {
	depth := 0
	j := i
	for ; j < len(s) && j-i < maxSpan; j++ {
		switch s[j] {
		case '\\':
			j++
		case '`':
			n := run(s, j, '`')
			if e := closingTicks(s, j+n, n); e >= 0 {
				j = e + n - 1
			} else {
				j += n - 1
			}
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if depth != 0 || j+1 >= len(s) || s[j+1] != '(' {
		return "", 0, false
	}
	k := j + 2
	paren := 1
	for ; k < len(s) && paren > 0 && k-j < maxSpan; k++ {
		switch s[k] {
		case '\\':
			k++
		case '(':
			paren++
		case ')':
			paren--
		case '\n':
			if paren > 0 && !strings.Contains(s[j+2:k], "\"") {
				return "", 0, false
			}
		}
	}
	if paren != 0 {
		return "", 0, false
	}
	return s[i+1 : j], k, true
}

// rawHTML returns the end of an inline HTML tag, comment or autolink at
// s[i] == '<', or 0.
func rawHTML(s string, i int) int {
	if strings.HasPrefix(s[i:], "<!--") {
		if e := strings.Index(s[i+4:], "-->"); e >= 0 {
			return i + 4 + e + 3
		}
		return 0
	}
	j := i + 1
	if j < len(s) && s[j] == '/' {
		j++
	}
	if j >= len(s) || !isASCIILetter(s[j]) {
		return 0
	}
	e := strings.IndexByte(s[i:min(len(s), i+maxSpan)], '>')
	if e < 0 {
		return 0
	}
	body := s[i+1 : i+e]
	if strings.ContainsAny(body, "<") {
		return 0
	}
	// an autolink (<https://…>) has a scheme and no spaces
	if k := strings.IndexByte(body, ':'); k > 0 && !strings.ContainsAny(body, " \t\n") {
		return i + e + 1
	}
	name := strings.TrimPrefix(body, "/")
	n := 0
	for n < len(name) && (isASCIILetter(name[n]) || name[n] >= '0' && name[n] <= '9' || name[n] == '-') {
		n++
	}
	if n < len(name) && !strings.ContainsRune(" \t\n/", rune(name[n])) {
		return 0
	}
	return i + e + 1
}

// flanking applies CommonMark's rules for whether the delimiter run
// s[i:i+n] can open and close emphasis.
func flanking(s string, i, n int) (open, close bool) {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	if i == 0 {
		before = ' '
	}
	after, _ := utf8.DecodeRuneInString(s[i+n:])
	if i+n >= len(s) {
		after = ' '
	}
	ws := func(r rune) bool { return unicode.IsSpace(r) }
	pu := func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }
	left := !ws(after) && (!pu(after) || ws(before) || pu(before))
	right := !ws(before) && (!pu(before) || ws(after) || pu(after))
	if s[i] == '*' {
		return left, right
	}
	return left && (!right || pu(before)), right && (!left || pu(after))
}

// emphasis matches closers with openers (CommonMark's process emphasis,
// without the bracket bookkeeping: link texts are read separately).
func emphasis(ps []piece) {
	for c := 0; c < len(ps); c++ {
		for ps[c].delim && ps[c].close && ps[c].n-ps[c].used > 0 {
			matched := false
			for o := c - 1; o >= 0 && c-o < maxSpan; o-- {
				po := &ps[o]
				if !po.delim || !po.open || po.char != ps[c].char || po.n-po.used == 0 {
					continue
				}
				lo, lc := po.n-po.used, ps[c].n-ps[c].used
				if (po.close || ps[c].open) && (lo+lc)%3 == 0 && !(lo%3 == 0 && lc%3 == 0) {
					continue
				}
				k := 1
				if lo >= 2 && lc >= 2 {
					k = 2
				}
				if po.pair < 0 {
					po.pair = c
				}
				po.used += k
				ps[c].used += k
				// delimiters between the two can no longer match
				for m := o + 1; m < c; m++ {
					if ps[m].delim {
						ps[m].open, ps[m].close = false, false
					}
				}
				matched = true
				break
			}
			if !matched {
				break
			}
		}
	}
}

// maxSpan bounds how far a code span, a link, a tag or an emphasis opener
// is looked for, so that hostile input stays linear; real pages' spans
// are far shorter.
const maxSpan = 4096

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
