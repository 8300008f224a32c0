package nvidia

import (
	"strings"

	"github.com/cudb/cudb/internal/errs"
)

// ParseGPUName validates a GPU name or a part of one (--gpu, --name): it
// must keep a letter or digit once spaces, dashes and brand words are
// dropped ("_" or "NVIDIA" would name every GPU), and be no longer than
// any model name.
func ParseGPUName(s string) *errs.Error {
	n := normGPU(s)
	if len(s) > 128 || brandOnly(n) || !strings.ContainsFunc(n, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }) {
		return errs.Usage("%s names no GPU: give a model such as \"RTX 4090\" or \"A100\"", errs.Quote(s)).WithHint("cudb matrix gpu --name 4090")
	}
	return nil
}
