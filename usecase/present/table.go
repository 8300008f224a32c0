package present

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table writes rows for people on a terminal (aligned, upper-case header,
// "-" for an empty cell, cells cut to the terminal's width, status in
// colour) and for programs otherwise: tab-separated values under a header
// row of lower-case, underscore-joined column names.
type Table struct {
	Header []string
	Rows   [][]string
	// Status colours column i's cells on a terminal by what Status[i]
	// returns for the cell (Good, Warn, Bad or None).
	Status map[int]func(cell string) Tone
}

var toneCodes = map[Tone]string{Good: "\x1b[32m", Warn: "\x1b[33m", Bad: "\x1b[31m"}

// Terminal is where text goes and what it can show: TTY (aligned tables
// for people; tab-separated values for programs otherwise), its Width in
// columns (0: unknown, tables are not cut) and whether it may show
// Colour.
type Terminal struct {
	Out    io.Writer
	TTY    bool
	Width  int
	Colour bool
}

// Paint wraps text in tone's colour when the terminal may show colour.
func (s Terminal) Paint(tone Tone, text string) string {
	code, ok := toneCodes[tone]
	if !ok || !s.Colour {
		return text
	}
	return code + text + "\x1b[0m"
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// TSVHeader is the header row programs read: "driver (min)" → "driver_min".
func TSVHeader(h []string) []string {
	out := make([]string, len(h))
	for i, c := range h {
		c = strings.NewReplacer("(", "", ")", "", "-", "_", " ", "_").Replace(strings.ToLower(c))
		out[i] = c
	}
	return out
}

// Render writes the table.
func (t *Table) Render(s Terminal) error {
	if !s.TTY {
		clean := strings.NewReplacer("\t", " ", "\n", " ")
		lines := append([][]string{TSVHeader(t.Header)}, t.Rows...)
		for _, r := range lines {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = clean.Replace(c)
			}
			if _, err := fmt.Fprintln(s.Out, strings.Join(cells, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	rows := make([][]string, 0, len(t.Rows)+1)
	rows = append(rows, upper(t.Header))
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			if c == "" {
				c = "-"
			}
			cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
		}
		rows = append(rows, cells)
	}
	widths := fitWidths(columnWidths(rows), s.Width)
	var b strings.Builder
	for ri, r := range rows {
		for i, c := range r {
			c = cut(c, widths[i])
			pad := widths[i] - utf8.RuneCountInString(c)
			if ri > 0 && t.Status[i] != nil {
				c = s.Paint(t.Status[i](t.Rows[ri-1][i]), c)
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", pad+2))
			}
		}
		b.WriteString("\n")
	}
	_, err := fmt.Fprint(s.Out, b.String())
	return err
}

func columnWidths(rows [][]string) []int {
	var w []int
	for _, r := range rows {
		for i, c := range r {
			for len(w) <= i {
				w = append(w, 0)
			}
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	return w
}

// minCell is the narrowest a column is cut to.
const minCell = 12

// fitWidths narrows the widest columns, one column at a time, until the
// table fits in width (0: no limit) or every column is at minCell.
func fitWidths(w []int, width int) []int {
	if width <= 0 || len(w) == 0 {
		return w
	}
	total := func() int {
		n := 2 * (len(w) - 1)
		for _, x := range w {
			n += x
		}
		return n
	}
	for total() > width {
		widest := 0
		for i := range w {
			if w[i] > w[widest] {
				widest = i
			}
		}
		if w[widest] <= minCell {
			break
		}
		w[widest]--
	}
	return w
}

// cut shortens c to n runes, ending in "…" when it was longer.
func cut(c string, n int) string {
	if utf8.RuneCountInString(c) <= n {
		return c
	}
	r := []rune(c)
	return string(r[:n-1]) + "…"
}

func upper(h []string) []string {
	out := make([]string, len(h))
	for i, s := range h {
		out[i] = strings.ToUpper(s)
	}
	return out
}
