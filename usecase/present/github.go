package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/usecase"
)

// GitHub writes a check as GitHub Actions workflow commands, one per
// finding (::error file=F,line=N,title=T::message), escaped as the
// runner's toolkit escapes them, so each finding is one annotation.
func GitHub(w io.Writer, r *usecase.CheckReport) error {
	var b strings.Builder
	for _, f := range r.Findings {
		level := "notice"
		switch f.Severity {
		case findings.SevError:
			level = "error"
		case findings.SevWarning:
			level = "warning"
		}
		msg := f.Message
		if f.Fix != "" {
			msg += "\nFix: " + f.Fix
		}
		line := f.Line
		if line < 1 {
			line = 1
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,title=%s::%s\n", level, escapeProperty(f.File), line, escapeProperty("cudb "+f.Category), escapeData(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
