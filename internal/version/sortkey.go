package version

import (
	"fmt"
	"strconv"
	"strings"
)

// Key format. These keys are stored in a committed database, so the format
// below is frozen: changing any byte of it means rebuilding every stored key.
// TestSortKeyGolden pins examples.
//
// A number n is written as one length letter ('a' = 1 digit ... 'r' = 18
// digits) followed by its digits without leading zeros; that makes byte
// order equal numeric order without fixed-width padding.
//
// PEP 440 key, in order:
//
//	epoch      number
//	release    one number per segment, trailing zero segments dropped
//	           ("2.1.0" == "2.1"), then '-' (below 'a', so a shorter release
//	           sorts first)
//	pre        '1' bare dev release (1.0.dev1 sorts before 1.0a1),
//	           '2'/'3'/'4' + number for a/b/rc, '5' when none
//	post       '0' none, '1' + number
//	dev        '0' + number, '1' none
//	local      '0' none, else '1' then per segment 'a'+text+'-' for
//	           alphanumeric, 'b'+number for numeric, then '.' to end
//
// Every part is self-delimiting, so comparing two keys byte by byte compares
// the parts in order, exactly as Compare does.

// SortKey returns an ASCII key whose byte order equals version order. PEP 440
// versions get a PEP 440 key; text that is only Dotted ("r418.39") gets
// DottedKey; anything else gets "~" plus the text, so it sorts after every
// key (bytes outside printable ASCII and '%' are %XX-escaped to keep the key
// ASCII). Keys of the two families are not meant to be compared with each
// other.
func SortKey(s string) string {
	if v, err := Parse(s); err == nil {
		return v.sortKey()
	}
	if k := DottedKey(s); k != "" {
		return k
	}
	return "~" + escapeASCII(s)
}

func (v Version) sortKey() string {
	var b strings.Builder
	keyNum(&b, v.epoch)
	r := v.release
	for len(r) > 0 && r[len(r)-1] == 0 {
		r = r[:len(r)-1]
	}
	for _, n := range r {
		keyNum(&b, n)
	}
	b.WriteByte('-')
	switch rank := v.preRank(); rank {
	case 1, 2, 3:
		b.WriteByte(byte('1' + rank))
		keyNum(&b, v.preN)
	default:
		b.WriteByte(byte('1' + rank))
	}
	if v.hasPost {
		b.WriteByte('1')
		keyNum(&b, v.post)
	} else {
		b.WriteByte('0')
	}
	if v.hasDev {
		b.WriteByte('0')
		keyNum(&b, v.dev)
	} else {
		b.WriteByte('1')
	}
	if len(v.local) == 0 {
		b.WriteByte('0')
		return b.String()
	}
	b.WriteByte('1')
	for _, p := range v.local {
		if isDigits(p) {
			b.WriteByte('b')
			keyDigits(&b, strings.TrimLeft(p, "0"))
		} else {
			b.WriteByte('a')
			b.WriteString(p)
			b.WriteByte('-')
		}
	}
	b.WriteByte('.')
	return b.String()
}

func keyNum(b *strings.Builder, n int) {
	keyDigits(b, strconv.Itoa(n))
}

// keyDigits writes a length-prefixed number; d has no leading zeros ("" is 0).
func keyDigits(b *strings.Builder, d string) {
	if d == "" {
		d = "0"
	}
	b.WriteByte(byte('a' + len(d) - 1))
	b.WriteString(d)
}

// DottedKey returns a fixed-width key for a Dotted version: six fields, each
// zero padded to 10 digits, joined by '.'. Missing fields are 0, so "12.1"
// and "12.1.0" share a key, as they compare equal. Unparsable text gives "".
func DottedKey(s string) string {
	d, err := parseDottedFields(s)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for i := 0; i < maxDottedFields; i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		fmt.Fprintf(&b, "%010d", at(d.fields, i))
	}
	return b.String()
}

func escapeASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
