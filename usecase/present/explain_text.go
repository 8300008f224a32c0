package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudb/cudb/usecase"
)

// ExplainText is the human explain: each cause with what was seen and
// its fix, then how many error lines were left unexplained.
func ExplainText(w io.Writer, x *usecase.ExplainResult) error {
	var b strings.Builder
	for i, fd := range x.Findings {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s [%s] %s\n", fd.Severity, fd.Category, fd.Message)
		for _, e := range fd.Evidence {
			fmt.Fprintf(&b, "    seen: %s\n", e)
		}
		if fd.Fix != "" {
			fmt.Fprintf(&b, "    fix:  %s\n", fd.Fix)
		}
	}
	if x.Skipped > 0 {
		fmt.Fprintf(&b, "\n%d more error lines not explained (at most %d per input)\n", x.Skipped, usecase.MaxExplainedLines)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
