package site

import (
	"fmt"
	"testing"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

// TestSplitGrid: pages of at most gridPageColumns builds, newest first,
// every column once and in order, a torch minor never split across pages
// unless it alone is wider than a page, and each row's cells cut with its
// columns.
func TestSplitGrid(t *testing.T) {
	g := &query.GPUGrid{}
	// 2.20 … 2.0 with 4 builds each, then a 1.9 minor of 70 builds.
	for minor := 20; minor >= 0; minor-- {
		for i := 0; i < 4; i++ {
			g.Columns = append(g.Columns, query.GridColumn{Torch: fmt.Sprintf("2.%d.%d", minor, i%2), Variant: fmt.Sprintf("cu%d", i)})
		}
	}
	for i := 0; i < 70; i++ {
		g.Columns = append(g.Columns, query.GridColumn{Torch: "1.9.0", Variant: fmt.Sprintf("v%d", i)})
	}
	row := query.GridRow{GPU: "X"}
	for i := range g.Columns {
		row.Support = append(row.Support, fmt.Sprint(i))
	}
	g.Rows = []query.GridRow{row}
	pages := splitGrid(g)
	next := 0
	for i, p := range pages {
		if len(p.Grid.Columns) > gridPageColumns || len(p.Grid.Columns) == 0 {
			t.Errorf("page %d has %d columns", i, len(p.Grid.Columns))
		}
		for j, c := range p.Grid.Columns {
			if c.Torch != g.Columns[next].Torch || c.Variant != g.Columns[next].Variant || p.Grid.Rows[0].Support[j] != fmt.Sprint(next) {
				t.Fatalf("page %d column %d is %v (cell %s), want column %d", i, j, c, p.Grid.Rows[0].Support[j], next)
			}
			next++
		}
		if i > 0 {
			prev := pages[i-1].Grid.Columns
			if version.ReleaseMinor(prev[len(prev)-1].Torch) == version.ReleaseMinor(p.Grid.Columns[0].Torch) && version.ReleaseMinor(p.Grid.Columns[0].Torch) != "1.9" {
				t.Errorf("torch %s is split between pages %d and %d", p.Grid.Columns[0].Torch, i-1, i)
			}
		}
	}
	if next != len(g.Columns) {
		t.Errorf("the pages hold %d of %d columns", next, len(g.Columns))
	}
	if pages[0].File != "gpu.html" || pages[1].File != "gpu-2.html" || pages[0].Label != "torch 2.6–2.20" {
		t.Errorf("pages %q %q, label %q", pages[0].File, pages[1].File, pages[0].Label)
	}
	if one := splitGrid(&query.GPUGrid{Columns: g.Columns[:3], Rows: []query.GridRow{{Support: row.Support[:3]}}}); len(one) != 1 || one[0].File != "gpu.html" {
		t.Errorf("a small grid is %d pages", len(one))
	}
}
