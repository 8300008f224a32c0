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

type walker struct {
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

// pseudoLevel is the level given to bold-only paragraphs: below any ATX
// heading, so they nest inside the current section.
const pseudoLevel = 7

func parse(src []byte, visit func(w *walker, b Block)) ([]Table, error) {
	w := &walker{}
	for _, b := range Blocks(src) {
		switch b.Kind {
		case KindHeading:
			w.heading(b.Level, plain(b.Text))
		case KindParagraph:
			if s, ok := BoldOnly(b.Text); ok {
				w.heading(pseudoLevel, plain(s))
				continue
			}
			w.intro = plain(b.Text)
		}
		visit(w, b)
		if w.err != nil {
			return nil, w.err
		}
	}
	return w.out, nil
}

// plain is inline text on one line, runs of white space as one space.
func plain(s string) string { return strings.Join(strings.Fields(Inline(s, false)), " ") }

// HTMLTables returns the <table> blocks of a markdown document, each
// row's cells as text.
func HTMLTables(src []byte) ([]Table, error) {
	return parse(src, func(w *walker, b Block) {
		if b.Kind != KindHTML || len(b.Lines) == 0 {
			return
		}
		var raw bytes.Buffer
		for _, l := range b.Lines {
			raw.WriteString(l.Text)
			raw.WriteByte('\n')
		}
		if !bytes.Contains(bytes.ToLower(raw.Bytes()), []byte("<table")) {
			return
		}
		start := b.Lines[0].No
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
	return parse(src, func(w *walker, b Block) {
		if b.Kind != KindTable {
			return
		}
		t := Table{Path: append([]string(nil), w.path...), Intro: w.intro, Header: pipeCells(b.Header)}
		t.Line = rowLine(b.Header, b.Line)
		for _, r := range b.Rows {
			t.Rows = append(t.Rows, Row{Cells: pipeCells(r.Cells), Line: rowLine(r.Cells, r.Line)})
		}
		w.out = append(w.out, t)
		w.intro = ""
	})
}

func pipeCells(raw []string) []string {
	out := make([]string, len(raw))
	for i, c := range raw {
		lines := strings.Split(Inline(c, true), "\n")
		for j, l := range lines {
			lines[j] = strings.Join(strings.Fields(l), " ")
		}
		out[i] = strings.Join(lines, "\n")
	}
	return out
}

// rowLine is the row's line, or 0 when no cell holds any text.
func rowLine(cells []string, line int) int {
	for _, c := range cells {
		if Inline(c, false) != "" {
			return line
		}
	}
	return 0
}
