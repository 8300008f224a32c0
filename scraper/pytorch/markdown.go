package pytorch

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// mdTable is one Markdown table with the heading it sits under.
type mdTable struct {
	Heading string
	Line    int // 1-based line of the header row
	Header  []string
	Rows    []mdRow
}

type mdRow struct {
	Line  int
	Cells []string
	Text  string // the row's source text, kept for provenance and refusals
}

var mdParser = goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()

func parseMarkdown(src []byte) ast.Node {
	return mdParser.Parse(text.NewReader(src))
}

// readTables returns every GFM table in src, in document order.
func readTables(src []byte) []mdTable {
	root := parseMarkdown(src)
	var out []mdTable
	heading := ""
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			heading = inlineText(n, src)
		case *east.Table:
			t := mdTable{Heading: heading}
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				var cells []string
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					cells = append(cells, strings.TrimSpace(inlineText(c, src)))
				}
				line, rowText := nodeLine(r, src)
				if _, ok := r.(*east.TableHeader); ok {
					t.Header, t.Line = cells, line
					continue
				}
				t.Rows = append(t.Rows, mdRow{Line: line, Cells: cells, Text: rowText})
			}
			out = append(out, t)
		}
	}
	return out
}

// inlineText concatenates the text under n (code spans included, raw HTML
// left out).
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// nodeLine finds the first source offset under n and returns its 1-based
// line and the whole text of that line.
func nodeLine(n ast.Node, src []byte) (int, string) {
	off := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if off >= 0 {
			return ast.WalkStop, nil
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		if t, ok := c.(*ast.Text); ok {
			off = t.Segment.Start
			return ast.WalkStop, nil
		}
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			off = c.Lines().At(0).Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if off < 0 || off > len(src) {
		return 0, ""
	}
	return lineAt(src, off)
}

func lineAt(src []byte, off int) (int, string) {
	line := bytes.Count(src[:off], []byte("\n")) + 1
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src) - off
	}
	return line, strings.TrimSpace(string(src[start : off+end]))
}
