package mdtab

import (
	"regexp"
	"strings"
	"sync"
)

// This file is a small CommonMark block reader: just what the framework
// pages need (headings, paragraphs, fenced code, HTML blocks and GFM pipe
// tables at the top level of a document). Lists, block quotes and indented
// code are recognised so that what they contain is not read as top-level
// blocks, but their content is not parsed. It replaced a full markdown
// library whose package initialisation every cudb start paid for.

// Kind is the kind of a top-level block.
type Kind int

// The block kinds Blocks reports.
const (
	KindOther     Kind = iota // list, block quote, indented code, thematic break
	KindHeading               // ATX or setext heading
	KindParagraph             // a paragraph
	KindFence                 // fenced code block
	KindHTML                  // HTML block
	KindTable                 // GFM pipe table
)

// Block is one top-level block of a markdown document.
type Block struct {
	Kind  Kind
	Level int // KindHeading: 1–6
	Line  int // 1-based line of the block's first line
	// Text is a heading's or a paragraph's inline source (the lines of a
	// paragraph joined with "\n").
	Text string
	// Lines are a fenced block's content lines, or an HTML block's lines.
	Lines []SrcLine
	// Header and Rows are a table's cells, as inline source.
	Header []string
	Rows   []TableRow
}

// SrcLine is one source line and its 1-based number.
type SrcLine struct {
	Text string
	No   int
}

// TableRow is one body row of a pipe table.
type TableRow struct {
	Cells []string
	Line  int
	Text  string // the row's source line, trimmed
}

type reader struct {
	lines []string
	i     int
	out   []Block
	para  []SrcLine // the open paragraph
}

// Blocks splits a markdown document into its top-level blocks.
func Blocks(src []byte) []Block {
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	r := &reader{lines: strings.Split(strings.TrimSuffix(s, "\n"), "\n")}
	if s == "" {
		r.lines = nil
	}
	for r.i < len(r.lines) {
		r.step()
	}
	r.closePara()
	return r.out
}

func (r *reader) emit(b Block) { r.out = append(r.out, b) }

// indent returns the width of the line's leading whitespace (tabs to the
// next multiple of 4) and the rest of the line.
func indent(l string) (int, string) {
	w := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, l[i:]
		}
	}
	return w, ""
}

func blank(l string) bool { return strings.TrimSpace(l) == "" }

func (r *reader) step() {
	l := r.lines[r.i]
	no := r.i + 1
	if blank(l) {
		r.closePara()
		r.i++
		return
	}
	ind, rest := indent(l)
	inPara := len(r.para) > 0
	if ind >= 4 {
		if inPara { // lazy: an indented line continues a paragraph
			r.para = append(r.para, SrcLine{l, no})
			r.i++
			return
		}
		r.indentedCode()
		return
	}
	if inPara {
		if lvl := setextLevel(rest); lvl > 0 && !(lvl == 2 && len(r.para) > 0 && isTableStart(r.para)) {
			text := joinPara(r.para)
			r.emit(Block{Kind: KindHeading, Level: lvl, Line: r.para[0].No, Text: strings.TrimSpace(text)})
			r.para = nil
			r.i++
			return
		}
	}
	switch {
	case isThematic(rest):
		r.closePara()
		r.emit(Block{Kind: KindOther, Line: no})
		r.i++
	case atxLevel(rest) > 0:
		r.closePara()
		lvl := atxLevel(rest)
		r.emit(Block{Kind: KindHeading, Level: lvl, Line: no, Text: atxText(rest[lvl:])})
		r.i++
	case fenceOpen(rest) != "":
		r.closePara()
		r.fence(ind, fenceOpen(rest))
	case isHTMLStart(rest, inPara):
		r.closePara()
		_, end := htmlStart(rest, false)
		r.html(end)
	case strings.HasPrefix(rest, ">"):
		r.closePara()
		r.container(func(l string) bool { _, x := indent(l); return strings.HasPrefix(x, ">") }, 0)
	case listMarker(rest, inPara) > 0:
		r.closePara()
		r.container(nil, ind+listMarker(rest, false))
	default:
		r.para = append(r.para, SrcLine{l, no})
		r.i++
	}
}

// container skips a block quote (own reports lines that belong to it) or
// a list (content indented by at least width), with lazy paragraph lines.
func (r *reader) container(own func(string) bool, width int) {
	start := r.i + 1
	r.i++
	prevBlank := false
	lazyOK := true
	for r.i < len(r.lines) {
		l := r.lines[r.i]
		if blank(l) {
			if own != nil {
				break
			}
			prevBlank, lazyOK = true, false
			r.i++
			continue
		}
		ind, rest := indent(l)
		switch {
		case own != nil && own(l):
		case own == nil && ind >= width:
		case own == nil && ind < 4 && listMarker(rest, false) > 0 && !isThematic(rest):
			width = ind + listMarker(rest, false) // the next item of the list
		case !prevBlank && lazyOK && ind < 4 && !interrupts(rest):
			// a lazy continuation line of the paragraph inside
		default:
			r.emit(Block{Kind: KindOther, Line: start})
			return
		}
		prevBlank = false
		lazyOK = !isFenceLine(rest)
		r.i++
	}
	r.emit(Block{Kind: KindOther, Line: start})
}

func isFenceLine(s string) bool { return fenceOpen(s) != "" }

// interrupts reports whether a line starts a block that ends a paragraph.
func interrupts(rest string) bool {
	return isThematic(rest) || atxLevel(rest) > 0 || fenceOpen(rest) != "" || isHTMLStart(rest, true) ||
		strings.HasPrefix(rest, ">") || listMarker(rest, true) > 0
}

func (r *reader) indentedCode() {
	start := r.i + 1
	for r.i < len(r.lines) {
		l := r.lines[r.i]
		if ind, _ := indent(l); ind < 4 && !blank(l) {
			break
		}
		r.i++
	}
	r.emit(Block{Kind: KindOther, Line: start})
}

// fence reads a fenced code block opened by marker at indentation ind.
func (r *reader) fence(ind int, marker string) {
	b := Block{Kind: KindFence, Line: r.i + 1}
	r.i++
	for r.i < len(r.lines) {
		l := r.lines[r.i]
		li, rest := indent(l)
		if li < 4 && strings.HasPrefix(rest, marker) && strings.TrimLeft(strings.TrimSpace(rest), marker[:1]) == "" {
			r.i++
			break
		}
		b.Lines = append(b.Lines, SrcLine{stripIndent(l, ind), r.i + 1})
		r.i++
	}
	r.emit(b)
}

// stripIndent removes up to n columns of leading spaces.
func stripIndent(l string, n int) string {
	for n > 0 && strings.HasPrefix(l, " ") {
		l, n = l[1:], n-1
	}
	return l
}

func isHTMLStart(rest string, inPara bool) bool { ok, _ := htmlStart(rest, inPara); return ok }

func (r *reader) html(end string) {
	b := Block{Kind: KindHTML, Line: r.i + 1}
	for r.i < len(r.lines) {
		l := r.lines[r.i]
		if end == "" && blank(l) {
			break
		}
		b.Lines = append(b.Lines, SrcLine{l, r.i + 1})
		r.i++
		if end != "" && containsFold(l, end) {
			break
		}
	}
	r.emit(b)
}

// closePara ends the open paragraph: a pipe table when its lines hold a
// header and a delimiter row, else a paragraph.
func (r *reader) closePara() {
	lines := r.para
	r.para = nil
	if len(lines) == 0 {
		return
	}
	for i := 1; i < len(lines); i++ {
		delim := delimiterCells(lines[i].Text)
		if delim == 0 {
			continue
		}
		head := splitRow(lines[i-1].Text)
		if len(head) != delim {
			continue
		}
		if i > 1 {
			r.emit(Block{Kind: KindParagraph, Line: lines[0].No, Text: joinPara(lines[:i-1])})
		}
		t := Block{Kind: KindTable, Line: lines[i-1].No, Header: head}
		for _, l := range lines[i+1:] {
			cells := splitRow(l.Text)
			switch {
			case len(cells) > delim:
				cells = cells[:delim]
			case len(cells) < delim:
				cells = append(cells, make([]string, delim-len(cells))...)
			}
			t.Rows = append(t.Rows, TableRow{Cells: cells, Line: l.No, Text: strings.TrimSpace(l.Text)})
		}
		r.emit(t)
		return
	}
	r.emit(Block{Kind: KindParagraph, Line: lines[0].No, Text: joinPara(lines)})
}

func isTableStart(lines []SrcLine) bool {
	for i := 1; i < len(lines); i++ {
		if d := delimiterCells(lines[i].Text); d > 0 && len(splitRow(lines[i-1].Text)) == d {
			return true
		}
	}
	return false
}

func joinPara(lines []SrcLine) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		_, parts[i] = indent(l.Text)
	}
	return strings.Join(parts, "\n")
}

// splitRow splits a table row on its unescaped pipes (code spans do not
// protect a pipe, as in GFM), dropping the leading and trailing pipe;
// cells are trimmed.
func splitRow(l string) []string {
	s := strings.TrimSpace(l)
	if s == "" {
		return nil
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && s[i+1] == '|' {
			cur.WriteString(`\|`) // an escaped pipe does not split; kept as written
			i++
			continue
		}
		if c == '|' {
			cells = append(cells, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	cells = append(cells, cur.String())
	if strings.HasPrefix(s, "|") {
		cells = cells[1:]
	}
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, "\\|") && len(cells) > 0 {
		cells = cells[:len(cells)-1]
	}
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// delimiterCells returns the number of cells of a delimiter row
// (|---|:--:|), or 0 when l is not one.
func delimiterCells(l string) int {
	s := strings.TrimSpace(l)
	if !strings.Contains(s, "-") {
		return 0
	}
	if !strings.Contains(s, "|") {
		// a single-column delimiter needs no pipe, but then it is a
		// setext underline or a thematic break: not a table here.
		return 0
	}
	cells := splitRow(s)
	for _, c := range cells {
		c = strings.TrimSpace(c)
		c = strings.TrimPrefix(c, ":")
		c = strings.TrimSuffix(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return 0
		}
	}
	return len(cells)
}

func atxLevel(rest string) int {
	n := 0
	for n < len(rest) && rest[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if n < len(rest) && rest[n] != ' ' && rest[n] != '\t' {
		return 0
	}
	return n
}

// atxText is a heading's content without its optional closing sequence.
func atxText(s string) string {
	s = strings.TrimSpace(s)
	t := strings.TrimRight(s, "#")
	if t == "" {
		return ""
	}
	if len(t) < len(s) && (strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		s = t
	}
	return strings.TrimSpace(s)
}

func setextLevel(rest string) int {
	s := strings.TrimSpace(rest)
	switch {
	case s == "":
		return 0
	case strings.Trim(s, "=") == "":
		return 1
	case strings.Trim(s, "-") == "":
		return 2
	}
	return 0
}

func isThematic(rest string) bool {
	s := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(rest), " ", ""), "\t", "")
	if len(s) < 3 {
		return false
	}
	c := s[0]
	return (c == '*' || c == '-' || c == '_') && strings.Trim(s, string(c)) == ""
}

// fenceOpen returns the fence (``` or ~~~, its full run) that opens a
// fenced code block, or "".
func fenceOpen(rest string) string {
	if !strings.HasPrefix(rest, "```") && !strings.HasPrefix(rest, "~~~") {
		return ""
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if c == '`' && strings.Contains(rest[n:], "`") {
		return ""
	}
	return rest[:n]
}

// listMarker returns the width of a list item's marker and the space
// after it, or 0. In a paragraph only an item that is not empty, and
// for an ordered list one that starts at 1, begins a list.
func listMarker(rest string, inPara bool) int {
	n := 0
	switch {
	case rest != "" && strings.ContainsRune("-*+", rune(rest[0])):
		n = 1
	default:
		for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(rest) || (rest[n] != '.' && rest[n] != ')') {
			return 0
		}
		if inPara && rest[:n] != "1" {
			return 0
		}
		n++
	}
	if n == len(rest) {
		if inPara {
			return 0
		}
		return n + 1
	}
	if rest[n] != ' ' && rest[n] != '\t' {
		return 0
	}
	if inPara && blank(rest[n:]) {
		return 0
	}
	w, after := indent(rest[n:])
	if w > 4 || after == "" {
		w = 1
	}
	return n + w
}

// htmlBlockTags are CommonMark's block-level tag names (start condition 6).
const htmlBlockTags = " address article aside base basefont blockquote body caption center col colgroup dd " +
	"details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head " +
	"header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search " +
	"section summary table tbody td tfoot th thead title tr track ul "

var reHTMLTag7 = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>` + "`" + `]+|'[^']*'|"[^"]*"))?)*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)\s*$`)
})

// htmlStart returns whether rest starts an HTML block (CommonMark's start
// conditions 1–7; 7 cannot interrupt a paragraph) and the text that ends
// the block ("" = a blank line).
func htmlStart(rest string, inPara bool) (ok bool, end string) {
	if !strings.HasPrefix(rest, "<") {
		return false, ""
	}
	low := strings.ToLower(rest)
	for _, t := range []string{"pre", "script", "style", "textarea"} {
		if strings.HasPrefix(low[1:], t) && (len(low) == len(t)+1 || strings.ContainsRune(" \t>", rune(low[len(t)+1]))) {
			return true, "</" + t + ">"
		}
	}
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return true, "-->"
	case strings.HasPrefix(rest, "<?"):
		return true, "?>"
	case strings.HasPrefix(rest, "<![CDATA["):
		return true, "]]>"
	case len(rest) > 2 && rest[1] == '!' && rest[2] >= 'A' && rest[2] <= 'Z':
		return true, ">"
	}
	name := strings.TrimPrefix(low[1:], "/")
	n := 0
	for n < len(name) && (name[n] >= 'a' && name[n] <= 'z' || name[n] >= '0' && name[n] <= '9') {
		n++
	}
	if n > 0 && strings.Contains(htmlBlockTags, " "+name[:n]+" ") {
		next := name[n:]
		if next == "" || next[0] == ' ' || next[0] == '\t' || next[0] == '>' || strings.HasPrefix(next, "/>") {
			return true, ""
		}
	}
	if !inPara && reHTMLTag7().MatchString(rest) {
		return true, ""
	}
	return false, ""
}

func containsFold(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }
