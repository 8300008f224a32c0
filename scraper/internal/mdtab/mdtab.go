// Package mdtab reads the tables of framework documentation pages written
// in markdown: HTML <table> blocks (TensorFlow) and pipe tables (JAX, ONNX
// Runtime), each with the heading path above it, so a source can pick a
// table by the section it sits in rather than by its header text (two
// tables may share a header: TensorFlow's Linux and macOS GPU tables).
package mdtab

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Table is one table of a document.
type Table struct {
	// Path holds the heading texts above the table, outermost first. A
	// paragraph that is only bold text ("**Linux**", used as a heading by
	// old TensorFlow pages) counts as the innermost heading.
	Path []string
	// Intro is the last paragraph before the table inside its section
	// ("The CUDA 12 wheel is:"), or "".
	Intro  string
	Line   int // 1-based line of the table's first line
	Header []string
	Rows   []Row
}

// Row is one body row.
type Row struct {
	Cells []string
	Line  int
}

// Under reports whether the table's heading path ends with the given
// headings (compared case-insensitively, ignoring surrounding space). The
// headings need not be adjacent: Under("Linux", "GPU") matches
// [Tested build configurations, Linux, GPU].
func (t Table) Under(headings ...string) bool {
	i := len(t.Path) - 1
	for j := len(headings) - 1; j >= 0; j-- {
		found := false
		for ; i >= 0; i-- {
			if strings.EqualFold(strings.TrimSpace(t.Path[i]), strings.TrimSpace(headings[j])) {
				found = true
				i--
				break
			}
			if j == len(headings)-1 {
				// The innermost heading must be the table's own section.
				return false
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Section renders the heading path for provenance: "Linux > GPU".
func (t Table) Section() string { return strings.Join(t.Path, " > ") }

// Find returns the tables under the given headings.
func Find(tables []Table, headings ...string) []Table {
	var out []Table
	for _, t := range tables {
		if t.Under(headings...) {
			out = append(out, t)
		}
	}
	return out
}

var md = goldmark.New(goldmark.WithExtensions(extension.Table))

type walker struct {
	src    []byte
	path   []string
	levels []int
	intro  string
	out    []Table
	err    error
}

func (w *walker) heading(level int, title string) {
	for len(w.levels) > 0 && w.levels[len(w.levels)-1] >= level {
		w.levels = w.levels[:len(w.levels)-1]
		w.path = w.path[:len(w.path)-1]
	}
	w.levels = append(w.levels, level)
	w.path = append(w.path, title)
	w.intro = ""
}

func (w *walker) line(offset int) int { return bytes.Count(w.src[:offset], []byte("\n")) + 1 }

// pseudoLevel is the level given to bold-only paragraphs: below any ATX
// heading, so they nest inside the current section.
const pseudoLevel = 7

func parse(src []byte, visit func(w *walker, n ast.Node)) ([]Table, error) {
	doc := md.Parser().Parse(text.NewReader(src))
	w := &walker{src: src}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			w.heading(n.Level, strings.TrimSpace(plain(n, src)))
		case *ast.Paragraph:
			if s, ok := boldOnly(n, src); ok {
				w.heading(pseudoLevel, s)
				continue
			}
			w.intro = strings.TrimSpace(plain(n, src))
		}
		visit(w, n)
		if w.err != nil {
			return nil, w.err
		}
	}
	return w.out, nil
}

// HTMLTables returns the <table> blocks of a markdown document, each
// row's cells as text.
func HTMLTables(src []byte) ([]Table, error) {
	return parse(src, func(w *walker, n ast.Node) {
		hb, ok := n.(*ast.HTMLBlock)
		if !ok {
			return
		}
		var raw bytes.Buffer
		lines := hb.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			raw.Write(seg.Value(w.src))
		}
		if hb.HasClosure() {
			raw.Write(hb.ClosureLine.Value(w.src))
		}
		if !bytes.Contains(bytes.ToLower(raw.Bytes()), []byte("<table")) || lines.Len() == 0 {
			return
		}
		start := w.line(lines.At(0).Start)
		tabs, err := htmlTables(raw.Bytes(), start)
		if err != nil {
			w.err = fmt.Errorf("line %d: %w", start, err)
			return
		}
		for _, t := range tabs {
			t.Path = append([]string(nil), w.path...)
			t.Intro = w.intro
			w.out = append(w.out, t)
		}
	})
}

// htmlTables parses the tables of one HTML block; start is the block's
// first line, used to give each row the line it sits on (one <tr> a line,
// as the TensorFlow pages write them).
func htmlTables(raw []byte, start int) ([]Table, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("failed to parse an HTML table: %w", err)
	}
	var trLines []int
	for i, l := range strings.Split(string(raw), "\n") {
		for range strings.Count(strings.ToLower(l), "<tr") {
			trLines = append(trLines, start+i)
		}
	}
	var out []Table
	tr := 0
	doc.Find("table").Each(func(_ int, tab *goquery.Selection) {
		t := Table{Line: start}
		tab.Find("tr").Each(func(_ int, row *goquery.Selection) {
			line := start
			if tr < len(trLines) {
				line = trLines[tr]
			}
			tr++
			if row.Find("th").Length() > 0 && row.Find("td").Length() == 0 {
				if t.Header == nil {
					row.Find("th").Each(func(_ int, c *goquery.Selection) {
						t.Header = append(t.Header, cellText(c))
					})
				}
				return
			}
			var cells []string
			row.Find("td,th").Each(func(_ int, c *goquery.Selection) {
				cells = append(cells, cellText(c))
			})
			t.Rows = append(t.Rows, Row{Cells: cells, Line: line})
		})
		out = append(out, t)
	})
	return out, nil
}

func cellText(c *goquery.Selection) string {
	c.Find("br").ReplaceWithHtml("\n")
	lines := strings.Split(c.Text(), "\n")
	var out []string
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// PipeTables returns the GitHub-flavoured pipe tables of a markdown
// document. An HTML line break inside a cell (<br>, <br/>) becomes "\n".
func PipeTables(src []byte) ([]Table, error) {
	return parse(src, func(w *walker, n ast.Node) {
		tab, ok := n.(*east.Table)
		if !ok {
			return
		}
		t := Table{Path: append([]string(nil), w.path...), Intro: w.intro}
		for r := tab.FirstChild(); r != nil; r = r.NextSibling() {
			var cells []string
			line := 0
			for c := r.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, pipeCell(c, w.src))
				if line == 0 {
					if off := firstOffset(c); off >= 0 {
						line = w.line(off)
					}
				}
			}
			if _, head := r.(*east.TableHeader); head {
				t.Header = cells
				t.Line = line
				continue
			}
			t.Rows = append(t.Rows, Row{Cells: cells, Line: line})
		}
		w.out = append(w.out, t)
		w.intro = ""
	})
}

func firstOffset(n ast.Node) int {
	off := -1
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if t, ok := c.(*ast.Text); ok {
			off = t.Segment.Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return off
}

func pipeCell(c ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(c, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.RawHTML:
			var h strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				h.Write(seg.Value(src))
			}
			if strings.HasPrefix(strings.ToLower(strings.ReplaceAll(h.String(), " ", "")), "<br") {
				b.WriteByte('\n')
			}
		}
		return ast.WalkContinue, nil
	})
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// plain returns the text of an inline container.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

func boldOnly(p *ast.Paragraph, src []byte) (string, bool) {
	e, ok := p.FirstChild().(*ast.Emphasis)
	if !ok || e.Level != 2 || e.NextSibling() != nil {
		return "", false
	}
	return plain(e, src), true
}
