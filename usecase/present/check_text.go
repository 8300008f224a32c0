package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudb/cudb/usecase"
)

// CheckText is the human check: what was read of each file, each finding
// at its file and line with its fix, and a total.
func CheckText(w io.Writer, rep *usecase.CheckReport) error {
	var b strings.Builder
	b.WriteString(rep.Read.Line() + "\n")
	for _, fs := range rep.Files {
		for _, u := range fs.Units {
			what := fs.File + " (" + string(fs.Kind)
			if u.Name != "" {
				what += ", " + u.Name
			}
			if u.Scenario != "" {
				what += ", " + u.Scenario
			}
			what += ")"
			if u.Image != "" {
				what += " image " + u.Image
			}
			if u.Python != "" {
				what += ", Python " + u.Python
			}
			if len(u.Judged) > 0 {
				what += ": " + strings.Join(u.Judged, "; ")
			}
			fmt.Fprintf(&b, "read %s\n", what)
		}
	}
	for _, fd := range rep.Findings {
		fmt.Fprintf(&b, "%s:%d: %s: %s: %s\n", fd.File, fd.Line, fd.Severity, fd.Category, fd.Message)
		if fd.Fix != "" {
			fmt.Fprintf(&b, "    fix: %s\n", strings.ReplaceAll(fd.Fix, "\n", "\n         "))
		}
	}
	s := rep.Summary
	state := "healthy"
	if !s.Healthy {
		state = "not healthy"
	}
	fmt.Fprintf(&b, "%s: %d error(s), %d warning(s), %d info(s)\n", state, s.Errors, s.Warnings, s.Infos)
	_, err := io.WriteString(w, b.String())
	return err
}
