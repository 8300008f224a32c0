package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudb/cudb/query/check"
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
		msg, line := annotation(f)
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

// annotation is a check finding as code-scanning views show one: its
// message with the fix after it (they have no field of their own for a
// fix cudb cannot place as a byte edit), and its line, at least 1.
func annotation(f check.Finding) (msg string, line int) {
	msg = f.Message
	if f.Fix != "" {
		msg += "\nFix: " + f.Fix
	}
	return msg, max(f.Line, 1)
}
