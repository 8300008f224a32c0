// Package textin tells text from binary data: every reader of pasted
// reports and project files asks it before parsing, so random bytes are
// refused instead of being searched for GPU names.
package textin

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// MaxBadShare is the share of bytes (in percent) that may be control
// bytes or invalid UTF-8 in text: a stray Latin-1 letter or a terminal
// colour code is text, random bytes (about 60% bad) are not.
const MaxBadShare = 2

// NotText says why b is not text, or returns "" when it is. Text is
// UTF-8 (a UTF-16 byte-order mark is left to the decoder that reads it)
// with no NUL byte and at most MaxBadShare percent of control bytes
// (other than tab, newline, carriage return, form feed, vertical tab
// and escape) or invalid UTF-8.
func NotText(b []byte) string {
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}) {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Sprintf("a NUL byte at offset %d", i)
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b, r == 0x7f:
			bad++
		}
		i += n
	}
	if bad*100 > len(b)*MaxBadShare {
		return fmt.Sprintf("%d of %d bytes are control bytes or invalid UTF-8 (at most %d%% in text)", bad, len(b), MaxBadShare)
	}
	return ""
}
