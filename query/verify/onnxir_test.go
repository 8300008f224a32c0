package verify

import "testing"

// TestORTONNXTable: the embedded table parses, is ordered newest first,
// and answers the first release that reads an IR version or an opset.
func TestORTONNXTable(t *testing.T) {
	rows, err := ortONNXRows()
	if err != nil || len(rows) < 20 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if rows[0].ORT != "1.20" || rows[0].IR != 10 || rows[0].Opset != 21 {
		t.Errorf("newest row %+v", rows[0])
	}
	if r, _, ok := firstORTFor(9, 0); !ok || r.ORT != "1.16" {
		t.Errorf("first release reading IR 9: %+v %v", r, ok)
	}
	if r, _, ok := firstORTFor(0, 19); !ok || r.ORT != "1.15" {
		t.Errorf("first release implementing opset 19: %+v %v", r, ok)
	}
	if _, newest, ok := firstORTFor(14, 0); ok || newest.ORT != "1.20" {
		t.Errorf("IR 14 is past the table: ok %v newest %+v", ok, newest)
	}
	if r, ok := lastORTWithIR(8); !ok || r.ORT != "1.15" || r.ONNX != "1.14" {
		t.Errorf("newest release with IR 8: %+v", r)
	}
}
