package pytorch

import (
	"strings"

	"github.com/cudb/cudb/scraper/internal/mdtab"
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

// readTables returns every GFM table in src, in document order.
func readTables(src []byte) []mdTable {
	var out []mdTable
	heading := ""
	for _, b := range mdtab.Blocks(src) {
		switch b.Kind {
		case mdtab.KindHeading:
			heading = mdtab.Inline(b.Text, false)
		case mdtab.KindTable:
			t := mdTable{Heading: heading, Header: cellTexts(b.Header), Line: b.Line}
			for _, r := range b.Rows {
				t.Rows = append(t.Rows, mdRow{Line: r.Line, Cells: cellTexts(r.Cells), Text: r.Text})
			}
			out = append(out, t)
		}
	}
	return out
}

func cellTexts(raw []string) []string {
	out := make([]string, len(raw))
	for i, c := range raw {
		out[i] = strings.TrimSpace(mdtab.Inline(c, false))
	}
	return out
}
