package db

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unsafe"
)

// The column image is the form the typed reads answer from: every table
// of a built database, column by column, in rowid order, with each text
// stored once. It is written from the SQLite file (EncodeColumns) and
// read in place: opening it parses a few hundred bytes of directory, and
// a read touches only the cells it looks at. A question answered from it
// runs no SQL, so a query command starts without SQLite's parser, pager
// and virtual machine (docs/benchmarks.md).
//
// Layout, little-endian:
//
//	magic "CUDBCOL1"
//	u32 schema version, u32 strings, u32 pool values, u32 tables,
//	u32 offset of the string bytes
//	u32 string offsets (strings+1), relative to the string bytes
//	pool values: 1 type byte ('i' int64, 'f' float64) and 8 value bytes each
//	per table: u32 name, u32 columns, u32 rows, u32 column names,
//	           then u32 cells, column after column
//	string bytes
//
// A cell is a u32 whose two low bits say what the rest is: 0 NULL,
// 1 the index of a text, 2 a small non-negative integer, 3 the index of
// a pool value.
const colMagic = "CUDBCOL1"

const (
	cellNull = iota
	cellText
	cellSmall
	cellPool
)

// colImage is an open column image.
type colImage struct {
	b       []byte
	version int
	nStr    int
	nPool   int
	pool    int // offset of the pool
	strData int // offset of the string bytes
	tables  map[string]*colTable
}

// colTable is one table of a column image.
type colTable struct {
	img  *colImage
	name string
	cols []string
	rows int
	off  int // offset of the first cell
}

const colHeader = 28 // magic and five u32

func le32(b []byte, off int) int { return int(binary.LittleEndian.Uint32(b[off:])) }

// openColumns reads a column image's directory, checking that it lies
// inside b (cells are checked as they are read: a text or pool index out
// of range reads as NULL); b must not change while the image is in
// use (its texts are read in place).
func openColumns(b []byte) (*colImage, error) {
	bad := func(why string) error { return fmt.Errorf("the column image is damaged: %s", why) }
	if len(b) < colHeader || string(b[:8]) != colMagic {
		return nil, bad("no " + colMagic + " header")
	}
	img := &colImage{b: b, version: le32(b, 8), nStr: le32(b, 12), tables: map[string]*colTable{}}
	img.nPool = le32(b, 16)
	nTables := le32(b, 20)
	img.strData = le32(b, 24)
	img.pool = colHeader + 4*(img.nStr+1)
	off := img.pool + 9*img.nPool
	if off > img.strData || img.strData > len(b) {
		return nil, bad("directory past the end")
	}
	if img.strData+img.strEnd(img.nStr) != len(b) {
		return nil, bad("texts do not end the image")
	}
	for i := 0; i < nTables; i++ {
		if off+12 > img.strData {
			return nil, bad("table directory past the end")
		}
		t := &colTable{img: img, rows: le32(b, off+8)}
		nCols := le32(b, off+4)
		name, ok := img.text(le32(b, off))
		if !ok || nCols > 1000 {
			return nil, bad("table header")
		}
		t.name = name
		off += 12
		if off+4*nCols > img.strData {
			return nil, bad("column names past the end")
		}
		for c := 0; c < nCols; c++ {
			col, ok := img.text(le32(b, off+4*c))
			if !ok {
				return nil, bad("column name")
			}
			t.cols = append(t.cols, col)
		}
		off += 4 * nCols
		t.off = off
		off += 4 * nCols * t.rows
		if off > img.strData {
			return nil, bad("table " + name + " past the end")
		}
		img.tables[name] = t
	}
	if off != img.strData {
		return nil, bad("tables do not end where the texts start")
	}
	return img, nil
}

// strEnd is where text i starts (and text i-1 ends), relative to the
// string bytes.
func (img *colImage) strEnd(i int) int { return le32(img.b, colHeader+4*i) }

// text returns text i, read in place; ok is false when i is out of range.
func (img *colImage) text(i int) (string, bool) {
	if i < 0 || i >= img.nStr {
		return "", false
	}
	lo, hi := img.strEnd(i), img.strEnd(i+1)
	if lo > hi || img.strData+hi > len(img.b) {
		return "", false
	}
	return bytesString(img.b[img.strData+lo : img.strData+hi]), true
}

// bytesString views b as a string without copying: the image's bytes
// never change while it is open, which is what unsafe.String requires.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// col is the index of a column, -1 when the table has none (whose cells
// read as NULL).
func (t *colTable) col(name string) int {
	for i, c := range t.cols {
		if c == name {
			return i
		}
	}
	return -1
}

func (t *colTable) cell(c, r int) uint32 {
	if c < 0 || c >= len(t.cols) || r < 0 || r >= t.rows {
		return cellNull
	}
	v := binary.LittleEndian.Uint32(t.img.b[t.off+4*(c*t.rows+r):])
	if v&3 == cellText && int(v>>2) >= t.img.nStr {
		return cellNull // a damaged image: never read past the texts
	}
	return v
}

// value is a cell as database/sql would scan it into any: nil, string,
// int64 or float64.
func (t *colTable) value(c, r int) any {
	v := t.cell(c, r)
	switch v & 3 {
	case cellText:
		s, _ := t.img.text(int(v >> 2))
		return s
	case cellSmall:
		return int64(v >> 2)
	case cellPool:
		if int(v>>2) >= t.img.nPool {
			return nil // a damaged image: read as NULL, never past the pool
		}
		p := t.img.pool + 9*int(v>>2)
		bits := binary.LittleEndian.Uint64(t.img.b[p+1:])
		if t.img.b[p] == 'f' {
			return math.Float64frombits(bits)
		}
		return int64(bits)
	}
	return nil
}

// str is a cell as text ("" for NULL), as scanning into a string does.
func (t *colTable) str(c, r int) string {
	v := t.cell(c, r)
	if v&3 == cellText {
		s, _ := t.img.text(int(v >> 2))
		return s
	}
	switch x := t.value(c, r).(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// is reports whether a cell is the text s, without building a string.
func (t *colTable) is(c, r int, s string) bool {
	v := t.cell(c, r)
	if v&3 != cellText {
		return false
	}
	x, _ := t.img.text(int(v >> 2))
	return x == s
}

// int is a cell as an integer (0 for NULL or text that is not one).
func (t *colTable) int(c, r int) int64 {
	if v := t.cell(c, r); v&3 == cellSmall {
		return int64(v >> 2)
	}
	switch x := t.value(c, r).(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// where lists the rows keep accepts, in rowid order.
func (t *colTable) where(keep func(r int) bool) []int {
	var out []int
	for r := 0; r < t.rows; r++ {
		if keep == nil || keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// orderKey is one ORDER BY term: a column, descending or not.
type orderKey struct {
	col  int
	desc bool
}

// orderBy sorts rows as SQLite's ORDER BY does with the BINARY
// collation: NULL first, then numbers by value, then texts byte by
// byte; rows that tie keep their rowid order.
func (t *colTable) orderBy(rows []int, keys ...orderKey) {
	sort.SliceStable(rows, func(i, j int) bool {
		for _, k := range keys {
			if c := t.compare(k.col, rows[i], rows[j]); c != 0 {
				return (c < 0) != k.desc
			}
		}
		return false
	})
}

// compare orders two cells of a column the way SQLite does.
func (t *colTable) compare(c, ri, rj int) int {
	a, b := t.cell(c, ri), t.cell(c, rj)
	switch {
	case a&3 == cellText && b&3 == cellText:
		x, _ := t.img.text(int(a >> 2))
		y, _ := t.img.text(int(b >> 2))
		return cmp.Compare(x, y)
	case a&3 == cellSmall && b&3 == cellSmall:
		return cmp.Compare(a>>2, b>>2)
	}
	return compareValues(t.value(c, ri), t.value(c, rj))
}

// compareValues orders two values the way SQLite does: NULL, then
// numbers, then texts.
func compareValues(a, b any) int {
	rank := func(v any) int {
		switch v.(type) {
		case nil:
			return 0
		case int64, float64:
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case string:
		return cmp.Compare(x, b.(string))
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(float64(x), toFloat(b))
	case float64:
		return cmp.Compare(x, toFloat(b))
	}
	return 0
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// EncodeColumns writes the column image of the database file at path
// (what the binary embeds beside it: data/cudb.cols).
func EncodeColumns(ctx context.Context, path string) ([]byte, error) {
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	return encodeColumns(ctx, conn)
}

// keyOrder names the tables whose rows the column image keeps in primary
// key order rather than rowid order: build_version has no rowid, and a
// build's requirements then lie together, in the order reads want them,
// found by a binary search on build_id (findRequirements).
var keyOrder = map[string]string{
	"build_version": "component, version_key, version",
	"requirement":   "build_id, needs, kind",
}

// encodeColumns reads every table in Tables, in rowid (or key) order,
// into a column image. The same database always gives the same bytes.
func encodeColumns(ctx context.Context, conn *sql.DB) ([]byte, error) {
	var version int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil, err
	}
	e := &colEncoder{strIdx: map[string]uint32{}, poolIdx: map[string]uint32{}}
	type table struct {
		name  uint32
		cols  []uint32
		rows  int
		cells [][]uint32 // by column
	}
	var tables []table
	for _, name := range Tables {
		order := "rowid"
		if key, ok := keyOrder[name]; ok {
			order = key
		}
		rs, err := conn.QueryContext(ctx, "SELECT * FROM "+name+" ORDER BY "+order)
		if err != nil {
			return nil, fmt.Errorf("failed to read table %s: %w", name, err)
		}
		cols, err := rs.Columns()
		if err != nil {
			rs.Close()
			return nil, err
		}
		t := table{name: e.text(name), cells: make([][]uint32, len(cols))}
		for _, c := range cols {
			t.cols = append(t.cols, e.text(c))
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				rs.Close()
				return nil, err
			}
			for i, v := range vals {
				cell, err := e.cell(v)
				if err != nil {
					rs.Close()
					return nil, fmt.Errorf("table %s, column %s: %w", name, cols[i], err)
				}
				t.cells[i] = append(t.cells[i], cell)
			}
			t.rows++
		}
		if err := rs.Err(); err != nil {
			rs.Close()
			return nil, err
		}
		rs.Close()
		tables = append(tables, t)
	}
	strData := colHeader + 4*(len(e.strs)+1) + len(e.pool)
	for _, t := range tables {
		strData += 12 + 4*len(t.cols)*(1+t.rows)
	}
	var out []byte
	u32 := func(v int) { out = binary.LittleEndian.AppendUint32(out, uint32(v)) }
	out = append(out, colMagic...)
	u32(version)
	u32(len(e.strs))
	u32(len(e.pool) / 9)
	u32(len(tables))
	u32(strData)
	off := 0
	u32(0)
	for _, s := range e.strs {
		off += len(s)
		u32(off)
	}
	out = append(out, e.pool...)
	for _, t := range tables {
		u32(int(t.name))
		u32(len(t.cols))
		u32(t.rows)
		for _, c := range t.cols {
			u32(int(c))
		}
		for _, col := range t.cells {
			for _, v := range col {
				u32(int(v))
			}
		}
	}
	for _, s := range e.strs {
		out = append(out, s...)
	}
	return out, nil
}

// check reports whether the image holds every table in Tables (its
// schema version is checked where it is opened, with the file's message).
func (img *colImage) check() error {
	for _, name := range Tables {
		if img.tables[name] == nil {
			return fmt.Errorf("the column image is damaged: it has no table %s", name)
		}
	}
	return nil
}

// colEncoder collects a column image's texts and pool values, each once,
// in the order they are first met.
type colEncoder struct {
	strs    []string
	strIdx  map[string]uint32
	pool    []byte
	poolIdx map[string]uint32
}

func (e *colEncoder) text(s string) uint32 {
	if i, ok := e.strIdx[s]; ok {
		return i
	}
	i := uint32(len(e.strs))
	e.strs = append(e.strs, s)
	e.strIdx[s] = i
	return i
}

func (e *colEncoder) cell(v any) (uint32, error) {
	const most = 1 << 30
	var kind byte
	var bits uint64
	switch x := v.(type) {
	case nil:
		return cellNull, nil
	case string:
		if len(e.strs) >= most {
			return 0, errors.New("too many texts")
		}
		return e.text(x)<<2 | cellText, nil
	case []byte:
		return e.text(string(x))<<2 | cellText, nil
	case int64:
		if x >= 0 && x < most {
			return uint32(x)<<2 | cellSmall, nil
		}
		kind, bits = 'i', uint64(x)
	case float64:
		kind, bits = 'f', math.Float64bits(x)
	default:
		return 0, fmt.Errorf("unexpected value of type %T", v)
	}
	key := string(kind) + strconv.FormatUint(bits, 16)
	if i, ok := e.poolIdx[key]; ok {
		return i<<2 | cellPool, nil
	}
	i := uint32(len(e.pool) / 9)
	e.pool = append(e.pool, kind)
	e.pool = binary.LittleEndian.AppendUint64(e.pool, bits)
	e.poolIdx[key] = i
	return i<<2 | cellPool, nil
}
