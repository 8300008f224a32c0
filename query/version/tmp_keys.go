package version

// TEMPORARY until the version branch lands: replaced by the real implementation.

import (
	"fmt"
	"strconv"
	"strings"
)

func DottedKey(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "vVrR")
	parts := strings.Split(s, ".")
	if len(parts) > 6 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < 6; i++ {
		n := 0
		if i < len(parts) {
			v, err := strconv.Atoi(parts[i])
			if err != nil || v < 0 {
				return ""
			}
			n = v
		}
		fmt.Fprintf(&b, "%010d", n)
	}
	return b.String()
}

func SortKey(s string) string {
	if k := DottedKey(s); k != "" {
		return k
	}
	return "~" + s
}
