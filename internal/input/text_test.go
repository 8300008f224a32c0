package input

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/cudb/cudb/internal/errs"
)

func utf16Bytes(s string, big bool) []byte {
	out := []byte{0xFF, 0xFE}
	if big {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func TestDecode(t *testing.T) {
	const freeze = "torch==2.1.0\r\nnumpy==1.26.0\r\n"
	freezeLong := strings.Repeat("numpy==1.26.0\n", 4) + "torch==2.1.0\n"
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		enc  Encoding
		err  string
	}{
		{"plain", []byte("torch==2.1.0\n"), "torch==2.1.0\n", UTF8, ""},
		{"utf-8 bom", []byte("\xEF\xBB\xBFtorch==2.1.0\n"), "torch==2.1.0\n", UTF8BOM, ""},
		{"utf-16le (PowerShell pip freeze >)", utf16Bytes(freeze, false), freeze, UTF16LE, ""},
		{"utf-16be", utf16Bytes(freeze, true), freeze, UTF16BE, ""},
		{"a latin-1 byte in a comment is text", []byte("# caf\xe9\n" + freezeLong), "# caf\xe9\n" + freezeLong, UTF8, ""},
		{"nul", []byte("torch==2.1.0\x00\n"), "", UTF8, "NUL byte at offset 12"},
		{"utf-16 without bom", utf16Bytes(freeze, false)[2:], "", UTF8, "NUL byte"},
		{"odd utf-16", append(utf16Bytes("ab", false), 'x'), "", UTF16LE, "odd number of bytes"},
		{"control bytes", []byte(strings.Repeat("\x01\x02\x03abc", 10)), "", UTF8, "not a text file"},
		{"invalid utf-8", []byte(strings.Repeat("a \xfd\xfc\xfb", 10)), "", UTF8, "not a text file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, enc, err := Decode("f", tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || errs.CodeOf(err) != errs.CodeUsage {
					t.Fatalf("err = %v, want a usage error with %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want || enc != tc.enc {
				t.Fatalf("Decode = %q, %s, %v; want %q, %s", got, enc, err, tc.want, tc.enc)
			}
		})
	}
}

func TestLimitNamesTheBound(t *testing.T) {
	err := Limit("Dockerfile:3", "the nesting depth", 65, MaxDepth)
	if errs.CodeOf(err) != errs.CodeLimit || !strings.Contains(err.Error(), "the nesting depth is 65, over the limit of 64") {
		t.Fatalf("%v", err)
	}
}
