package nvsrc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Cell is one table cell: its whole text, and its items when the cell
// holds a list or several paragraphs / <br>-separated lines (cuDNN
// bullet lists, several GPU names in one cell).
type Cell struct {
	Text  string
	Items []string
}

// Grid is a table with colspans and rowspans expanded: Header[i] names
// column i (a two-row header gives "Toolkit Driver Version / Linux x86_64
// Driver Version"), Rows hold the body cells.
type Grid struct {
	Caption string
	Header  []string
	Rows    [][]Cell
}

// Parse reads an HTML page.
func Parse(page []byte) (*goquery.Document, error) {
	return goquery.NewDocumentFromReader(bytes.NewReader(page))
}

// FindTable returns the first table whose caption (Sphinx <caption>, or a
// DITA "Table N. ..." title just before it) contains text, ignoring case,
// table numbers and whitespace. Numbers and ids move between releases;
// caption text does not.
func FindTable(doc *goquery.Document, text string) *goquery.Selection {
	want := squash(text)
	var found *goquery.Selection
	doc.Find("table").EachWithBreak(func(_ int, t *goquery.Selection) bool {
		if strings.Contains(squash(captionOf(t)), want) {
			found = t
			return false
		}
		return true
	})
	return found
}

func captionOf(t *goquery.Selection) string {
	if c := t.Find("caption").First(); c.Length() > 0 {
		return c.Text()
	}
	// DITA pages put the title in a sibling before the table (or before
	// its wrapping div).
	for s := t; s.Length() > 0 && !s.Is("body"); s = s.Parent() {
		if p := s.Prev(); p.Length() > 0 {
			return p.Text()
		}
	}
	return ""
}

// squash lowercases, drops "Table N" prefixes, headerlink "#"/"¶" and
// collapses whitespace.
func squash(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, "\u00a0", " "))
	s = strings.NewReplacer("#", " ", "¶", " ").Replace(s)
	f := strings.Fields(s)
	if len(f) >= 2 && f[0] == "table" {
		f = f[2:]
	}
	return strings.Join(f, " ")
}

// CellText is the text of a cell with whitespace collapsed.
func CellText(s *goquery.Selection) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s.Text(), "\u00a0", " ")), " ")
}

// cell splits a cell into items on element boundaries (never on spaces):
// list items, paragraphs, and <br>.
func cell(s *goquery.Selection) Cell {
	c := Cell{Text: CellText(s)}
	if li := s.Find("li"); li.Length() > 0 {
		li.Each(func(_ int, l *goquery.Selection) {
			if t := CellText(l); t != "" {
				c.Items = append(c.Items, t)
			}
		})
		return c
	}
	if p := s.Find("p"); p.Length() > 1 {
		p.Each(func(_ int, l *goquery.Selection) {
			c.Items = append(c.Items, splitBR(l)...)
		})
		return c
	}
	c.Items = splitBR(s)
	return c
}

func splitBR(s *goquery.Selection) []string {
	h, err := s.Html()
	if err != nil {
		return nil
	}
	var out []string
	for _, part := range strings.Split(strings.NewReplacer("<br/>", "\x00", "<br>", "\x00", "<br />", "\x00").Replace(h), "\x00") {
		d, err := goquery.NewDocumentFromReader(strings.NewReader("<div>" + part + "</div>"))
		if err != nil {
			continue
		}
		if t := CellText(d.Find("div").First()); t != "" {
			out = append(out, t)
		}
	}
	return out
}

type span struct {
	c    Cell
	left int
}

// ReadGrid expands t into a Grid. Header rows are the <thead> rows, or,
// without a <thead>, the leading rows made only of <th>.
func ReadGrid(t *goquery.Selection) (*Grid, error) {
	if t == nil || t.Length() == 0 {
		return nil, fmt.Errorf("table not found")
	}
	g := &Grid{Caption: CellText(t.Find("caption").First())}
	// Sphinx footnote references render as a bare digit; keep them
	// recognisable as "[n]" so they are never read as part of a value.
	t.Find("a.footnote-reference").Each(func(_ int, a *goquery.Selection) {
		a.ReplaceWithHtml(" [" + strings.Trim(CellText(a), "[]") + "]")
	})
	var headRows, bodyRows []*goquery.Selection
	t.Find("tr").Each(func(_ int, tr *goquery.Selection) {
		if tr.ParentsFiltered("table").First().Get(0) != t.Get(0) {
			return // nested table
		}
		inHead := tr.ParentsFiltered("thead").Length() > 0
		if !inHead && len(bodyRows) == 0 && tr.Children().Filter("td").Length() == 0 && t.Find("thead").Length() == 0 {
			inHead = true
		}
		if inHead {
			headRows = append(headRows, tr)
		} else {
			bodyRows = append(bodyRows, tr)
		}
	})
	head := expand(headRows)
	body := expand(bodyRows)
	if len(body) > 0 && continuesHeader(head, body[0]) {
		head, body = append(head, body[0]), body[1:]
	}
	for _, row := range head {
		for i, c := range row {
			for len(g.Header) <= i {
				g.Header = append(g.Header, "")
			}
			if c.Text != "" && !strings.HasSuffix(g.Header[i], c.Text) {
				if g.Header[i] != "" {
					g.Header[i] += " / "
				}
				g.Header[i] += c.Text
			}
		}
	}
	g.Rows = body
	return g, nil
}

// continuesHeader reports whether row, the first body row, is the second
// header row of a table whose header spans columns: NVIDIA's Table 3
// heads "Toolkit Driver Version" over two columns and names them
// ("Linux x86_64 Driver Version", "Windows ...") in a <tbody> row whose
// first cell is empty.
func continuesHeader(head [][]Cell, row []Cell) bool {
	if len(head) == 0 || len(row) < 2 || row[0].Text != "" || head[len(head)-1][0].Text == "" {
		return false
	}
	last := head[len(head)-1]
	spans := false
	for i := 1; i < len(last); i++ {
		spans = spans || (last[i].Text != "" && last[i].Text == last[i-1].Text)
	}
	for _, c := range row[1:] {
		if c.Text == "" {
			return false
		}
	}
	return spans && len(row) == len(last)
}

// expand lays rows out on a grid, copying rowspan/colspan cells into
// every slot they cover.
func expand(rows []*goquery.Selection) [][]Cell {
	var out [][]Cell
	var pending []span // per column: a cell still spanning down
	for _, tr := range rows {
		var row []Cell
		col := 0
		take := func() {
			for col < len(pending) && pending[col].left > 0 {
				row = append(row, pending[col].c)
				pending[col].left--
				col++
			}
		}
		tr.Children().Filter("td,th").Each(func(_ int, td *goquery.Selection) {
			take()
			c := cell(td)
			cs, rs := attrInt(td, "colspan"), attrInt(td, "rowspan")
			for k := 0; k < cs; k++ {
				row = append(row, c)
				for len(pending) <= col {
					pending = append(pending, span{})
				}
				pending[col] = span{c: c, left: rs - 1}
				col++
			}
		})
		take()
		out = append(out, row)
	}
	return out
}

func attrInt(s *goquery.Selection, name string) int {
	v, ok := s.Attr(name)
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 64 {
		return 1
	}
	return n
}

// Col returns the index of the first header containing any of names
// (case-insensitive), or -1.
func (g *Grid) Col(names ...string) int {
	for _, n := range names {
		n = strings.ToLower(n)
		for i, h := range g.Header {
			if strings.Contains(strings.ToLower(h), n) {
				return i
			}
		}
	}
	return -1
}

// ColLast returns the index of the first column whose own (lowest)
// header cell is exactly name, ignoring case, or -1.
func (g *Grid) ColLast(name string) int {
	for i, h := range g.Header {
		parts := strings.Split(h, " / ")
		if strings.EqualFold(strings.TrimSpace(parts[len(parts)-1]), name) {
			return i
		}
	}
	return -1
}

// At returns row[i] or an empty cell.
func At(row []Cell, i int) Cell {
	if i < 0 || i >= len(row) {
		return Cell{}
	}
	return row[i]
}
