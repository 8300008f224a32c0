package report

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// TestByteOrderMarks: a pip freeze saved by Windows PowerShell (UTF-16 LE
// with a byte-order mark) or with a UTF-8 BOM is read as the text it
// holds, its first line included.
func TestByteOrderMarks(t *testing.T) {
	const freeze = "torch==2.1.0+cu121\r\nnumpy==1.26.0\r\n"
	le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(freeze)) {
		le = append(le, byte(u), byte(u>>8))
	}
	for name, in := range map[string][]byte{"utf-16le": le, "utf-8 bom": append([]byte("\xEF\xBB\xBF"), freeze...)} {
		f, formats, err := Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(f.Pythons) == 0 || f.Pythons[0].Packages["torch"] != "2.1.0+cu121" {
			t.Errorf("%s: formats %v, pythons %+v", name, formats, f.Pythons)
		}
		if !strings.Contains(strings.Join(formats, ","), "pip") {
			t.Errorf("%s: formats %v", name, formats)
		}
	}
}
