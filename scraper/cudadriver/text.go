package cudadriver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Text renderings of the release notes. The snapshot directory keeps
// NVIDIA's own release-notes text (nvidia/raw/), captured not as HTML but
// as two renderings of it:
//
//   - a line-numbered text dump ("L113: CUDA 13.2 Update 2  | >=595.71.05
//     | N/A"): one table row a line, cells split by "|", header rows and
//     data rows separated by "--- | ---" lines, the table caption on the
//     line before ("Table 3 CUDA Toolkit and Corresponding Driver
//     Versions");
//   - an HTML-to-markdown conversion with one cell a line ("CUDA 13.1 |"),
//     a line holding only "|" for an empty or spanned cell, one
//     "|---|---|---|" line after the first header row giving the width,
//     and no captions.
//
// ParseText reads both into the records ParsePage makes of the HTML page,
// so a text snapshot and the live page normalize the same way.

// RawPrefix starts the file name of every release-notes text snapshot in
// the NVIDIA folder's raw/ directory; the edition follows
// ("docs.nvidia.com_cuda_archive_13.2.2_cuda-toolkit-release-notes_...").
const RawPrefix = "docs.nvidia.com_cuda_archive_"

// rawTable is one table read from a text rendering.
type rawTable struct {
	header [][]string // header rows, top first
	rows   [][]string // data rows
	lines  []int      // source line of each data row (0: unknown)
}

// ParseText reads Table 3 (required) and Table 2 (optional) of a release
// notes text rendering. url is the page the text was rendered from; when
// empty, the snapshot's "Origin page" header line names it.
func ParseText(page []byte, url string) ([]scraper.Record, error) {
	if url == "" {
		url = originURL(page)
		if url == "" {
			return nil, errors.New("the text names no origin page (no \"Origin page\" line)")
		}
	}
	var recs []scraper.Record
	seen := map[string]bool{}
	found := false
	for _, t := range textTables(page) {
		switch kind(t) {
		case TableToolkit:
			found = true
			cTK, cLin, cWin := colOf(t, "CUDA Toolkit"), colOf(t, "Linux"), colOf(t, "Windows")
			if cTK < 0 || cLin < 0 || cWin < 0 {
				return nil, fmt.Errorf("table %q: expected toolkit, Linux and Windows columns, header is %q", captionToolkit, t.header)
			}
			for i, row := range t.rows {
				if label := cell(row, cTK); label != "" {
					recs = append(recs, toolkitRecord(seen, i, label, cell(row, cLin), cell(row, cWin), url, textRef(captionToolkit, t.lines[i])))
				}
			}
		case TableMinorCompat:
			cTK, cMin, cMax := colOf(t, "CTK", "CUDA Toolkit"), colOf(t, "Min"), colOf(t, "Max")
			if cTK < 0 || cMin < 0 {
				return nil, fmt.Errorf("table %q: expected toolkit and Min columns, header is %q", captionCompat, t.header)
			}
			for i, row := range t.rows {
				ctk := cell(row, cTK)
				if ctk == "" || seen["compat\x00"+ctk] {
					continue
				}
				seen["compat\x00"+ctk] = true
				recs = append(recs, scraper.Record{Table: TableMinorCompat, Key: ctk, URL: url, Ref: textRef(captionCompat, t.lines[i]),
					Fields: map[string]string{"ctk": ctk, "linux": cell(row, cMin), "max": cell(row, cMax)}})
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("no table headed %q", "CUDA Toolkit | Toolkit Driver Version")
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("table %q has no rows", captionToolkit)
	}
	return recs, nil
}

func textRef(caption string, line int) string {
	if line > 0 {
		return fmt.Sprintf("Table: %s (text line %d)", caption, line)
	}
	return "Table: " + caption
}

func cell(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return row[i]
}

// kind tells Table 3 from Table 2 by their header, the one thing both
// renderings keep (the markdown one drops captions).
func kind(t rawTable) string {
	if len(t.header) == 0 {
		return ""
	}
	switch first := t.header[0][0]; {
	case strings.EqualFold(first, "CUDA Toolkit") && colOf(t, "Linux") >= 0:
		return TableToolkit
	case strings.HasPrefix(first, "CTK") && colOf(t, "Min") >= 0:
		return TableMinorCompat
	}
	return ""
}

// colOf is the first column whose header (any header row) contains one
// of names; -1 when none does.
func colOf(t rawTable, names ...string) int {
	for c := 0; c < width(t); c++ {
		for _, h := range t.header {
			for _, n := range names {
				if c < len(h) && strings.Contains(h[c], n) {
					return c
				}
			}
		}
	}
	return -1
}

func width(t rawTable) int {
	w := 0
	for _, h := range t.header {
		w = max(w, len(h))
	}
	return w
}

// originURL is the address on the snapshot's "Origin page" line.
func originURL(page []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(page))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 0; sc.Scan() && n < 40; n++ {
		if line := sc.Text(); strings.Contains(line, "Origin page") {
			return nvsrc.FirstURL(line)
		}
	}
	return ""
}

// textLine is a line of the rendering with its number in the document.
type textLine struct {
	n    int
	text string
}

// docLines splits page into lines, taking the dump's "L<n>: " prefix as
// the line number where there is one.
func docLines(page []byte) []textLine {
	var out []textLine
	for i, raw := range strings.Split(string(page), "\n") {
		l := textLine{n: i + 1, text: strings.TrimRight(raw, "\r")}
		if rest, ok := strings.CutPrefix(l.text, "L"); ok {
			if num, tail, ok := strings.Cut(rest, ":"); ok && num != "" && len(num) < 8 && strings.Trim(num, "0123456789") == "" {
				l.n, _ = strconv.Atoi(num)
				l.text = strings.TrimPrefix(tail, " ")
			}
		}
		out = append(out, l)
	}
	return out
}

// isSep reports a header/body separator: cells of dashes only.
func isSep(s string) bool {
	s = strings.TrimSpace(s)
	return strings.Contains(s, "---") && strings.Trim(s, "|-: ") == ""
}

func splitRow(s string) []string {
	parts := strings.Split(s, "|")
	for i := range parts {
		parts[i] = strings.Join(strings.Fields(strings.ReplaceAll(parts[i], "\u00a0", " ")), " ")
	}
	return parts
}

// textTables finds the tables of either rendering.
func textTables(page []byte) []rawTable {
	lines := docLines(page)
	var out []rawTable
	for i := 0; i < len(lines); i++ {
		s := lines[i].text
		switch {
		case isSep(s) && i > 0 && strings.Contains(lines[i-1].text, " | ") && !strings.HasSuffix(strings.TrimSpace(lines[i-1].text), "|"):
			t, next := pipeTable(lines, i-1)
			out = append(out, t)
			i = next - 1
		case isSep(s) && strings.HasPrefix(strings.TrimSpace(s), "|"):
			if t, next, ok := cellTable(lines, i); ok {
				out = append(out, t)
				i = next - 1
			}
		}
	}
	return out
}

// pipeTable reads a dump table whose first header row is lines[start]:
// every row before the last separator is a header row; a header cell left
// empty under a spanning cell takes the text of the row above.
func pipeTable(lines []textLine, start int) (rawTable, int) {
	var rows [][]string
	var nums []int
	header := 0
	i := start
	for ; i < len(lines); i++ {
		s := lines[i].text
		if isSep(s) {
			header = len(rows)
			continue
		}
		if !strings.Contains(s, "|") {
			break
		}
		rows = append(rows, splitRow(s))
		nums = append(nums, lines[i].n)
	}
	// A row right under the header whose first cell is empty continues
	// the header under a spanning first cell (Table 3 prints its second
	// header row with no separator after it).
	for header > 0 && header < len(rows) && rows[header][0] == "" && rows[0][0] != "" {
		header++
	}
	t := rawTable{header: rows[:header], rows: rows[header:], lines: nums[header:]}
	fillSpans(&t)
	return t, i
}

// cellTable reads a markdown table of one cell a line. sep is the
// "|---|---|---|" line after the first header row; the second header row
// is the next width cells; data rows follow, width cells each, up to the
// first line that is not a cell.
func cellTable(lines []textLine, sep int) (rawTable, int, bool) {
	w := strings.Count(strings.Trim(strings.TrimSpace(lines[sep].text), "|"), "|") + 1
	var head []string
	for j := sep - 1; j >= 0 && len(head) < w; j-- {
		c, ok := cellLine(lines[j].text)
		if !ok {
			break
		}
		head = append([]string{c}, head...)
	}
	if len(head) != w {
		return rawTable{}, sep + 1, false
	}
	var cells []string
	var nums []int
	i := sep + 1
	for ; i < len(lines); i++ {
		c, ok := cellLine(lines[i].text)
		if !ok {
			break
		}
		cells = append(cells, c)
		nums = append(nums, lines[i].n)
	}
	if len(cells) < 2*w {
		return rawTable{}, i, false
	}
	h2 := cells[:w]
	// The converter drops the rowspan cell of the second header row and
	// pads the row at its end: shift it under the columns it heads.
	if h2[w-1] == "" && head[0] != "" {
		h2 = append([]string{""}, h2[:w-1]...)
	}
	t := rawTable{header: [][]string{head, h2}}
	for k := w; k+w <= len(cells); k += w {
		t.rows = append(t.rows, cells[k:k+w])
		t.lines = append(t.lines, nums[k])
	}
	fillSpans(&t)
	return t, i, true
}

// cellLine is the cell of a one-cell-a-line row ("CUDA 13.1 |", "|").
func cellLine(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, "|") || isSep(s) {
		return "", false
	}
	if strings.Trim(s, "|") == "" {
		return "", true
	}
	return splitRow(strings.TrimSuffix(s, "|"))[0], strings.Count(s, "|") == 1
}

// fillSpans gives a header cell left empty the text of the cell above it
// (a rowspan): "CUDA Toolkit" heads the first column of both rows.
func fillSpans(t *rawTable) {
	for r := 1; r < len(t.header); r++ {
		for c := range t.header[r] {
			if t.header[r][c] == "" && c < len(t.header[r-1]) {
				t.header[r][c] = t.header[r-1][c]
			}
		}
	}
	for len(t.lines) < len(t.rows) {
		t.lines = append(t.lines, 0)
	}
}

// rawEditions lists the release-notes text snapshots in dir, newest
// edition first (the newest edition's Table 3 is read first; an older
// edition's rows fill in and are compared).
func rawEditions(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type ed struct{ name, ver string }
	var eds []ed
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), RawPrefix)
		if !ok || e.IsDir() || !strings.Contains(rest, "cuda-toolkit-release-notes") {
			continue
		}
		v, _, _ := strings.Cut(rest, "_")
		if !nvsrc.IsDotted(v) {
			continue
		}
		eds = append(eds, ed{e.Name(), v})
	}
	sort.Slice(eds, func(i, j int) bool { return version.DottedKey(eds[i].ver) > version.DottedKey(eds[j].ver) })
	out := make([]string, len(eds))
	for i, e := range eds {
		out[i] = filepath.Join(dir, e.name)
	}
	return out, nil
}

// editionOf is "13.2.2" for a snapshot file name or an archive URL.
func editionOf(s string) string {
	_, rest, ok := strings.Cut(s, "archive/")
	if !ok {
		_, rest, _ = strings.Cut(filepath.Base(s), RawPrefix)
	}
	v, _, _ := strings.Cut(strings.ReplaceAll(rest, "_", "/"), "/")
	return v
}
