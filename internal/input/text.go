package input

import (
	"bytes"
	"unicode/utf16"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/textin"
)

// Encoding names how Decode read a file's bytes.
type Encoding string

const (
	UTF8    Encoding = "utf-8"
	UTF8BOM Encoding = "utf-8 with BOM"
	UTF16LE Encoding = "utf-16le"
	UTF16BE Encoding = "utf-16be"
)

// Decode turns a file's bytes into text: a UTF-8 byte-order mark is
// dropped, UTF-16 with a byte-order mark (what Windows PowerShell's
// `pip freeze > file` writes) is decoded, and input that is not text (a
// NUL byte, or mostly control bytes and invalid UTF-8) is refused with a
// usage error naming what, rather than judged as if it were empty.
func Decode(what string, b []byte) (string, Encoding, error) {
	enc := UTF8
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b, enc = b[3:], UTF8BOM
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		enc = UTF16LE
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		enc = UTF16BE
	}
	if enc == UTF16LE || enc == UTF16BE {
		s, err := decodeUTF16(what, b[2:], enc)
		return s, enc, err
	}
	if err := CheckText(what, b); err != nil {
		return "", enc, err
	}
	return string(b), enc, nil
}

func decodeUTF16(what string, b []byte, enc Encoding) (string, error) {
	if len(b)%2 != 0 {
		return "", errs.Usage("%s: starts with a UTF-16 byte-order mark but has an odd number of bytes: not UTF-16 text", what)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if enc == UTF16LE {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		} else {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		}
	}
	s := string(utf16.Decode(u))
	if err := CheckText(what, []byte(s)); err != nil {
		return "", err
	}
	return s, nil
}

// CheckText refuses bytes that are not text, by internal/textin's one
// test (a NUL byte, or too many control bytes and invalid UTF-8): a NUL
// is binary data or UTF-16 without a byte-order mark.
func CheckText(what string, b []byte) error {
	why := textin.NotText(b)
	if why == "" {
		return nil
	}
	return errs.Usage("%s: not a text file: %s (binary data, or UTF-16 without a byte-order mark)", what, why).
		WithHint("save the file as UTF-8 text (PowerShell: pip freeze | Out-File -Encoding utf8 requirements.txt)")
}
