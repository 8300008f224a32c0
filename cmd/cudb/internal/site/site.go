// Package site renders cudb's tables as a static web site: HTML pages
// with embedded assets (no CDN, works from file://), and the same data
// as JSON files beside them. The output is a pure function of the
// database: the same database gives the same bytes.
package site

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/usecase"
)

//go:embed assets/* templates/*.html
var files embed.FS

// tablePage names a table's page; "gpu.html" belongs to the grid, so the
// plain GPU table gets another name.
func tablePage(name string) string {
	if name+".html" == "gpu.html" {
		return "gpu-table.html"
	}
	return name + ".html"
}

// gridTable is the registered matrix that gpu.html renders as a grid.
const gridTable = "torch-gpu"

// Table is one generic table page.
type Table struct {
	Name    string
	Page    string
	Rows    int
	Columns []string
	Body    []Row
	Raw     string // pretty JSON, for values that are not a list of objects
}

// Row is one table row; URL is its citation.
type Row struct {
	Cells []string
	URL   string
}

type page struct {
	Title   string
	Info    *usecase.DataInfo
	Tables  []*Table
	Table   *Table
	Grid    *usecase.GPUGrid
	HasGPUs bool
	// GridPages are the GPU grid's pages (gpu.html first), GridFile the
	// one being rendered.
	GridPages []GridPage
	GridFile  string
}

// Written lists what Generate wrote, relative to the output directory.
type Written []string

// Generate writes the site into out (created if missing). `cudb gen
// site` hands it a fresh folder beside its target (internal/safewrite),
// so out never mixes an old site with a new one.
func Generate(ctx context.Context, d *usecase.DB, out string) (Written, error) {
	info, err := usecase.Info(ctx, d)
	if err != nil {
		return nil, err
	}
	w := &writer{out: out}
	p := page{Info: info}
	for _, name := range usecase.MatrixNames() {
		m, err := usecase.Matrix(ctx, d, usecase.MatrixOptions{Table: name})
		if err != nil {
			return nil, fmt.Errorf("failed to build table %s: %w", name, err)
		}
		v := m.Rows
		body, err := encodeJSON(v)
		if err != nil {
			return nil, fmt.Errorf("failed to encode table %s: %w", name, err)
		}
		w.write("data/"+name+".json", body)
		if name == gridTable {
			g, ok := v.(*usecase.GPUGrid)
			if !ok {
				return nil, fmt.Errorf("table %s is a %T, not a GPU grid", name, v)
			}
			p.Grid = g
			for _, r := range g.Rows {
				p.HasGPUs = p.HasGPUs || r.GPU != ""
			}
			continue
		}
		p.Tables = append(p.Tables, tableOf(name, body))
	}
	if p.Grid == nil {
		m, err := usecase.Matrix(ctx, d, usecase.MatrixOptions{Table: gridTable})
		if err != nil {
			return nil, err
		}
		g, ok := m.Rows.(*usecase.GPUGrid)
		if !ok {
			return nil, fmt.Errorf("table %s is a %T, not a GPU grid", gridTable, m.Rows)
		}
		p.Grid = g
	}
	meta, err := encodeJSON(info)
	if err != nil {
		return nil, err
	}
	w.write("meta.json", meta)
	sel, err := BuildSelector(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("failed to build the install selector: %w", err)
	}
	selJSON, err := json.Marshal(sel)
	if err != nil {
		return nil, err
	}
	w.write("data/install.js", append(append([]byte("window.cudbInstall = "), selJSON...), []byte(";\n")...))
	if err := writeReleases(w, sel); err != nil {
		return nil, err
	}
	if err := writePairs(ctx, d, w, sel); err != nil {
		return nil, fmt.Errorf("failed to build the install selector's pairs: %w", err)
	}
	for _, a := range []string{"site.css", "site.js", "install.js"} {
		b, err := fs.ReadFile(files, "assets/"+a)
		if err != nil {
			return nil, err
		}
		w.write(a, b)
	}
	p.Title = "compatibility tables"
	w.render("index.html", "index.html", p)
	p.Title = "install selector"
	w.render("install.html", "install.html", p)
	p.Title = "GPU ↔ compute capability ↔ torch kernels"
	full := p.Grid
	p.GridPages = splitGrid(full)
	for _, gp := range p.GridPages {
		p.Grid, p.GridFile = gp.Grid, gp.File
		w.render(gp.File, "gpu.html", p)
	}
	p.Grid = full
	for _, t := range p.Tables {
		p.Title, p.Table = "table "+t.Name, t
		w.render(t.Page, "table.html", p)
	}
	return w.done, w.err
}

type writer struct {
	out  string
	done Written
	err  error
}

func (w *writer) write(rel string, b []byte) {
	if w.err != nil {
		return
	}
	path := filepath.Join(w.out, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.err = fmt.Errorf("failed to create %s: %w", filepath.Dir(path), err)
		return
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		w.err = fmt.Errorf("failed to write %s: %w", path, err)
		return
	}
	w.done = append(w.done, rel)
}

var funcs = template.FuncMap{
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
	"join":  strings.Join,
	"nodot": func(s string) string { return strings.ReplaceAll(s, ".", "") },
	"label": func(s string) string {
		switch s {
		case usecase.SupportSASS:
			return "SASS"
		case usecase.SupportSASSCompatible:
			return "compat"
		case usecase.SupportPTXJIT:
			return "PTX"
		}
		return "—"
	},
}

func (w *writer) render(rel, tmpl string, p page) {
	if w.err != nil {
		return
	}
	t, err := template.New("").Funcs(funcs).ParseFS(files, "templates/base.html", "templates/"+tmpl)
	if err != nil {
		w.err = err
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "base", p); err != nil {
		w.err = fmt.Errorf("failed to render %s: %w", rel, err)
		return
	}
	w.write(rel, buf.Bytes())
}

// encodeJSON matches the CLI's --json and the HTTP API's bodies.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// tableOf lays a table's JSON out for the page. A list of flat objects
// becomes columns in field order (first seen wins); a "sources" field
// ([{name, url}]) becomes the row's link instead of a column. Anything
// else is shown as JSON.
func tableOf(name string, body []byte) *Table {
	t := &Table{Name: name, Page: tablePage(name)}
	objs, ok := decodeObjects(body)
	if !ok {
		t.Raw = string(body)
		return t
	}
	t.Rows = len(objs)
	seen := map[string]bool{}
	for _, o := range objs {
		for _, f := range o {
			if !seen[f.key] && f.key != "sources" && f.key != "citations" {
				seen[f.key] = true
				t.Columns = append(t.Columns, f.key)
			}
		}
	}
	for _, o := range objs {
		vals := map[string]json.RawMessage{}
		for _, f := range o {
			vals[f.key] = f.val
		}
		row := Row{URL: firstURL(vals["sources"])}
		for _, c := range t.Columns {
			row.Cells = append(row.Cells, cellText(vals[c]))
		}
		t.Body = append(t.Body, row)
	}
	if t.Columns == nil {
		t.Columns = []string{}
	}
	return t
}

type field struct {
	key string
	val json.RawMessage
}

// decodeObjects reads a JSON array of objects keeping each object's field
// order (a map would lose it).
func decodeObjects(b []byte) ([][]field, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, false
	}
	var out [][]field
	for dec.More() {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, false
		}
		var obj []field
		for dec.More() {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				return nil, false
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, false
			}
			obj = append(obj, field{key, raw})
		}
		if _, err := dec.Token(); err != nil {
			return nil, false
		}
		out = append(out, obj)
	}
	return out, true
}

func cellText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, v := range list {
			switch v := v.(type) {
			case string:
				parts = append(parts, v)
			case float64, bool:
				parts = append(parts, fmt.Sprint(v))
			default:
				b, _ := json.Marshal(v)
				parts = append(parts, string(b))
			}
		}
		return strings.Join(parts, " ")
	}
	if string(raw) == "true" {
		return "yes"
	}
	if string(raw) == "false" {
		return ""
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) == nil {
		return compact.String()
	}
	return string(raw)
}

func firstURL(raw json.RawMessage) string {
	var srcs []struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(raw, &srcs) != nil {
		return ""
	}
	for _, s := range srcs {
		if s.URL != "" {
			return s.URL
		}
	}
	return ""
}
