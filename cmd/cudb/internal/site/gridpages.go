package site

import (
	"fmt"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/usecase"
)

// gridPageColumns bounds one page of the GPU grid: about 60 build columns
// keep a page near 450 kB with every GPU in the data as a row (a cell is
// about 33 bytes), under the 600 kB a first load of gpu.html may weigh.
const gridPageColumns = 60

// GridPage is one page of the GPU grid: gpu.html holds the newest torch
// builds, each further page the next older ones.
type GridPage struct {
	File  string // gpu.html, gpu-2.html, ...
	Label string // the torch releases it covers, "torch 2.5–2.14"
	Grid  *usecase.GPUGrid
}

// splitGrid cuts the grid's columns (newest first) into pages of at most
// gridPageColumns, each ending at a torch minor release, so one minor's
// builds stay side by side (a minor with more builds than a page gets a
// page of its own).
func splitGrid(g *usecase.GPUGrid) []GridPage {
	var pages []GridPage
	start := 0
	for start < len(g.Columns) || len(pages) == 0 {
		end := len(g.Columns)
		if end-start > gridPageColumns {
			end = start + gridPageColumns
			// Back off to the start of the minor the cut falls in.
			for end > start+1 && version.ReleaseMinor(g.Columns[end].Torch) == version.ReleaseMinor(g.Columns[end-1].Torch) {
				end--
			}
			if end == start+1 && version.ReleaseMinor(g.Columns[end].Torch) == version.ReleaseMinor(g.Columns[start].Torch) {
				end = start + gridPageColumns
			}
		}
		part := &usecase.GPUGrid{Columns: g.Columns[start:end], Rows: make([]usecase.GridRow, len(g.Rows))}
		for i, r := range g.Rows {
			r.Support = r.Support[start:end]
			part.Rows[i] = r
		}
		file := "gpu.html"
		if len(pages) > 0 {
			file = fmt.Sprintf("gpu-%d.html", len(pages)+1)
		}
		label := frameworks.Torch
		if end > start {
			newest, oldest := version.ReleaseMinor(g.Columns[start].Torch), version.ReleaseMinor(g.Columns[end-1].Torch)
			label = frameworks.Torch + " " + oldest
			if newest != oldest {
				label += "–" + newest
			}
		}
		pages = append(pages, GridPage{File: file, Label: label, Grid: part})
		if end == start {
			break
		}
		start = end
	}
	return pages
}
