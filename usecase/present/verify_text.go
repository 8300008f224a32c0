package present

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudb/cudb/usecase"
)

// VerifyText is the human verify: each report (headed by its file when
// several), what it read, its findings grouped by severity, and a total.
func VerifyText(w io.Writer, res *usecase.VerifyResult, paint Paint) error {
	reps := res.Reports
	var b strings.Builder
	for i, r := range reps {
		if len(reps) > 1 {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "== %s (%s)\n", r.File, r.Origin)
		}
		writeFindings(&b, paint, r.Report)
	}
	if len(reps) > 1 {
		s := res.Summary
		fmt.Fprintf(&b, "\n== summary: %d reports, %s\n", len(reps), paint(SummaryTone(s), SummaryLine(s)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// severityTone colours a severity's heading on a terminal.
var severityTone = map[string]Tone{usecase.SevError: Bad, usecase.SevWarning: Warn}

// SummaryTone is a summary's colour: bad with errors, warn with warnings.
func SummaryTone(s usecase.Summary) Tone {
	switch {
	case !s.Healthy:
		return Bad
	case s.Warnings > 0:
		return Warn
	}
	return Good
}

// SummaryLine words a summary: "healthy: 0 errors, 1 warnings, 2 infos".
func SummaryLine(s usecase.Summary) string {
	state := "healthy"
	if !s.Healthy {
		state = "problems found"
	}
	line := fmt.Sprintf("%s: %d errors, %d warnings, %d infos", state, s.Errors, s.Warnings, s.Infos)
	if v := usecase.Verdict(s); v != "" {
		line += ": " + v
	}
	return line
}

// writeFindings is one report, grouped by severity.
func writeFindings(b *strings.Builder, paint Paint, r *usecase.Report) {
	fmt.Fprintf(b, "%s\n", paint(SummaryTone(r.Summary), SummaryLine(r.Summary)))
	writeRead(b, r.Read)
	for _, sev := range usecase.Severities {
		var fs []usecase.Finding
		for _, x := range r.Findings {
			if x.Severity == sev {
				fs = append(fs, x)
			}
		}
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s\n", paint(severityTone[sev], fmt.Sprintf("%s (%d):", strings.ToUpper(sev[:1])+sev[1:]+"s", len(fs))))
		for _, x := range fs {
			fmt.Fprintf(b, "  [%s] %s\n", x.Category, x.Message)
			for _, e := range x.Evidence {
				fmt.Fprintf(b, "      seen: %s\n", e)
			}
			if x.Fix != "" {
				fmt.Fprintf(b, "      fix:  %s\n", x.Fix)
			}
		}
	}
}

// writeRead is the "what was read" block verify prints before its
// findings: the input, then each fact family, "not stated" when the
// input said nothing about it.
func writeRead(b *strings.Builder, r *usecase.ReadFacts) {
	if r == nil {
		return
	}
	src := "this host (probe)"
	if r.Input != "host" {
		src = r.Input
		if len(r.Formats) > 0 {
			src += " (" + strings.Join(r.Formats, ", ") + ")"
		}
	}
	fmt.Fprintf(b, "read: %s\n", src)
	line := func(label string, vals ...string) {
		var keep []string
		for _, v := range vals {
			if v != "" {
				keep = append(keep, v)
			}
		}
		v := "not stated"
		if len(keep) > 0 {
			v = strings.Join(keep, "; ")
		}
		fmt.Fprintf(b, "  %-12s %s\n", label+":", v)
	}
	if r.OS != "" {
		line("host", r.OS)
	}
	line("driver", r.Driver)
	if r.DriverCUDA != "" {
		line("driver CUDA", r.DriverCUDA)
	}
	line("GPUs", r.GPUs...)
	line("CUDA", r.CUDA...)
	line("cuDNN", r.CUDNN...)
	line("envs", r.Environments...)
	line("frameworks", r.Frameworks...)
	if len(r.Env) > 0 {
		line("env", r.Env...)
	}
	if r.Errors > 0 {
		s := fmt.Sprintf("%d error lines, %d explained", r.Errors, r.Explained)
		if r.Skipped > 0 {
			s += fmt.Sprintf(", %d more not explained (limit %d)", r.Skipped, usecase.MaxExplainedLines)
		}
		line("errors", s)
	}
	if len(r.FromText) > 0 {
		line("from text", r.FromText...)
	}
}
