package verify

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// ortONNXTable is ONNX Runtime's published table of the ONNX release,
// opset and IR version each of its releases implements (the file's
// header names the page and commit it was read from).
//
//go:embed data/ort_onnx_versions.csv
var ortONNXTable string

const ortONNXURL = "https://onnxruntime.ai/docs/reference/compatibility.html#onnx-opset-support"

// ortONNXRow is one release of that table.
type ortONNXRow struct {
	ORT, ONNX    string
	Opset, IR    int
	releaseOrder int // 0 = newest
}

// ortONNXRows parses the table once; a malformed row is a build error of
// the embedded data, caught by TestORTONNXTable.
var ortONNXRows = sync.OnceValues(func() ([]ortONNXRow, error) {
	var body []string
	for _, l := range strings.Split(ortONNXTable, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("failed to read the ONNX Runtime IR/opset table: %w", err)
	}
	var out []ortONNXRow
	for i, r := range recs[1:] {
		if len(r) != 5 {
			return nil, fmt.Errorf("ONNX Runtime IR/opset table: row %d has %d fields", i+2, len(r))
		}
		opset, err1 := strconv.Atoi(r[2])
		ir, err2 := strconv.Atoi(r[4])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("ONNX Runtime IR/opset table: row %d: opset %q, IR %q", i+2, r[2], r[4])
		}
		out = append(out, ortONNXRow{ORT: r[0], ONNX: r[1], Opset: opset, IR: ir, releaseOrder: i})
	}
	return out, nil
})

// firstORTFor is the oldest ONNX Runtime release of the table that
// implements IR version ir (by IR) or opset n (by opset); ok is false
// when no release of the table does (the newest row is older).
func firstORTFor(ir, opset int) (row ortONNXRow, newest ortONNXRow, ok bool) {
	rows, err := ortONNXRows()
	if err != nil || len(rows) == 0 {
		return ortONNXRow{}, ortONNXRow{}, false
	}
	newest = rows[0]
	for i := len(rows) - 1; i >= 0; i-- { // oldest first
		r := rows[i]
		if (ir > 0 && r.IR >= ir) || (opset > 0 && r.Opset >= opset) {
			return r, newest, true
		}
	}
	return ortONNXRow{}, newest, false
}

// lastORTWithIR is the newest release of the table whose IR version is at
// most ir: the ONNX release it implements writes models this runtime reads.
func lastORTWithIR(ir int) (ortONNXRow, bool) {
	rows, err := ortONNXRows()
	if err != nil {
		return ortONNXRow{}, false
	}
	for _, r := range rows {
		if r.IR <= ir {
			return r, true
		}
	}
	return ortONNXRow{}, false
}
