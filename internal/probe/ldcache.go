package probe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The loader cache /etc/ld.so.cache, written by ldconfig, in its two
// layouts: the old "ld.so-1.7.0" table (optionally followed by the new
// one) and the "glibc-ld.so.cache1.1" table alone (glibc ≥ 2.32). Reading
// it directly saves running `ldconfig -p`.

const (
	ldOldMagic = "ld.so-1.7.0"
	ldNewMagic = "glibc-ld.so.cache1.1"
	ldOldHdr   = 16 // magic[11], pad, uint32 nlibs
	ldOldEntry = 12 // int32 flags, uint32 key, uint32 value
	ldNewHdr   = 48 // magic+version[20], nlibs, len_strings, flags, pad[3], extension_offset, unused[3]
	ldNewEntry = 24 // int32 flags, uint32 key, value, osversion, uint64 hwcap
)

type ldEntry struct {
	Name, Path string
	Flags      int32
}

// parseLDCache returns the entries of a loader cache, preferring the new
// table when both are present.
func parseLDCache(b []byte) ([]ldEntry, error) {
	if bytes.HasPrefix(b, []byte(ldNewMagic)) {
		return parseLDNew(b, 0)
	}
	if !bytes.HasPrefix(b, []byte(ldOldMagic)) {
		return nil, errors.New("not a loader cache (unknown magic)")
	}
	if len(b) < ldOldHdr {
		return nil, errors.New("truncated loader cache header")
	}
	n := int(binary.LittleEndian.Uint32(b[12:16]))
	if n < 0 || n > (len(b)-ldOldHdr)/ldOldEntry {
		return nil, fmt.Errorf("loader cache claims %d entries, more than fit", n)
	}
	strs := ldOldHdr + n*ldOldEntry
	// The new table, when present, follows the old one at an 8-byte
	// boundary and is the more complete of the two.
	if newAt := (strs + 7) &^ 7; newAt < len(b) && bytes.HasPrefix(b[newAt:], []byte(ldNewMagic)) {
		return parseLDNew(b, newAt)
	}
	out := make([]ldEntry, 0, n)
	for i := 0; i < n; i++ {
		e := b[ldOldHdr+i*ldOldEntry:]
		flags := int32(binary.LittleEndian.Uint32(e[0:4]))
		name, ok1 := cString(b, strs, binary.LittleEndian.Uint32(e[4:8]))
		p, ok2 := cString(b, strs, binary.LittleEndian.Uint32(e[8:12]))
		if ok1 && ok2 {
			out = append(out, ldEntry{Name: name, Path: p, Flags: flags})
		}
	}
	return out, nil
}

// parseLDNew reads the new table starting at off; its string offsets are
// relative to off.
func parseLDNew(b []byte, off int) ([]ldEntry, error) {
	h := b[off:]
	if len(h) < ldNewHdr {
		return nil, errors.New("truncated loader cache header")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h[28] == 3 { // the header's endianness flag: 2 little, 3 big
		bo = binary.BigEndian
	}
	n := int(bo.Uint32(h[20:24]))
	if n < 0 || n > (len(h)-ldNewHdr)/ldNewEntry {
		return nil, fmt.Errorf("loader cache claims %d entries, more than fit", n)
	}
	out := make([]ldEntry, 0, n)
	for i := 0; i < n; i++ {
		e := h[ldNewHdr+i*ldNewEntry:]
		flags := int32(bo.Uint32(e[0:4]))
		name, ok1 := cString(b, off, bo.Uint32(e[4:8]))
		p, ok2 := cString(b, off, bo.Uint32(e[8:12]))
		if ok1 && ok2 {
			out = append(out, ldEntry{Name: name, Path: p, Flags: flags})
		}
	}
	return out, nil
}

func cString(b []byte, base int, off uint32) (string, bool) {
	start := base + int(off)
	if int(off) < 0 || start < 0 || start >= len(b) {
		return "", false
	}
	end := bytes.IndexByte(b[start:], 0)
	if end < 0 {
		return "", false
	}
	return string(b[start : start+end]), true
}

// parseLdconfigP reads `ldconfig -p` output, the fallback when the cache
// file cannot be read.
func parseLdconfigP(out []byte) []ldEntry {
	var es []ldEntry
	for _, line := range bytes.Split(out, []byte("\n")) {
		l := string(bytes.TrimSpace(line))
		name, rest, ok := cut3(l, " (", ") => ")
		if !ok {
			continue
		}
		es = append(es, ldEntry{Name: name, Path: rest})
	}
	return es
}

// cut3 splits "name (flags) => path" into name and path.
func cut3(s, a, b string) (string, string, bool) {
	i := bytes.Index([]byte(s), []byte(a))
	j := bytes.Index([]byte(s), []byte(b))
	if i <= 0 || j < i {
		return "", "", false
	}
	return s[:i], s[j+len(b):], true
}
