package pytorch

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// rstTable is one reStructuredText list-table: its header cells (the
// first :header-rows: rows, joined) and data rows with their line.
type rstTable struct {
	Line   int
	Header []string
	Rows   []mdRow
}

// readListTables returns the `.. list-table::` directives of src. Each row
// is a "* -" bullet whose cells are the following "-" bullets; a cell may
// continue on more-indented lines. Other reST constructs are skipped.
func readListTables(src []byte) ([]rstTable, error) {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), " \t\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("failed to read reST: %w", err)
	}
	var out []rstTable
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), ".. list-table::") {
			continue
		}
		t := rstTable{Line: i + 1}
		base := indentOf(lines[i])
		headerRows := 0
		var rows [][]string
		var rowLines []int
		var rowText []string
		j := i + 1
		for ; j < len(lines); j++ {
			l := lines[j]
			s := strings.TrimSpace(l)
			if s == "" {
				continue
			}
			if indentOf(l) <= base {
				break // the directive's body ended
			}
			switch {
			case strings.HasPrefix(s, ":header-rows:"):
				if _, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(s, ":header-rows:")), "%d", &headerRows); err != nil || headerRows < 0 {
					return nil, fmt.Errorf("line %d: bad :header-rows: %q", j+1, s)
				}
			case strings.HasPrefix(s, ":"):
				// other directive options (widths, class) do not change the cells
			case strings.HasPrefix(s, "* -") || s == "* -" || s == "*":
				rows = append(rows, []string{rstCell(strings.TrimPrefix(strings.TrimPrefix(s, "*"), " -"))})
				rowLines = append(rowLines, j+1)
				rowText = append(rowText, s)
			case strings.HasPrefix(s, "- ") || s == "-":
				if len(rows) == 0 {
					return nil, fmt.Errorf("line %d: cell before the first row", j+1)
				}
				r := len(rows) - 1
				rows[r] = append(rows[r], rstCell(strings.TrimPrefix(s, "-")))
				rowText[r] += " " + s
			default:
				if len(rows) == 0 {
					return nil, fmt.Errorf("line %d: text before the first row: %q", j+1, s)
				}
				r := len(rows) - 1
				c := len(rows[r]) - 1
				rows[r][c] = strings.TrimSpace(rows[r][c] + " " + rstCell(s))
				rowText[r] += " " + s
			}
		}
		i = j - 1
		if headerRows > len(rows) {
			return nil, fmt.Errorf("line %d: %d header rows but %d rows", t.Line, headerRows, len(rows))
		}
		for r := 0; r < headerRows; r++ {
			for c, cell := range rows[r] {
				if c < len(t.Header) {
					t.Header[c] = strings.TrimSpace(t.Header[c] + " " + cell)
				} else {
					t.Header = append(t.Header, cell)
				}
			}
		}
		for r := headerRows; r < len(rows); r++ {
			t.Rows = append(t.Rows, mdRow{Line: rowLines[r], Cells: rows[r], Text: rowText[r]})
		}
		out = append(out, t)
	}
	return out, nil
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// rstCell drops inline literal markup (“x“) from a cell.
func rstCell(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "``", ""))
}
