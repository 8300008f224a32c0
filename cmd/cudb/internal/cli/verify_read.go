package cli

import (
	"fmt"
	"strings"

	"github.com/cudb/cudb/query/verify"
)

// writeRead is the "what was read" block verify prints before its
// findings: the input, then each fact family, "not stated" when the
// input said nothing about it.
func writeRead(b *strings.Builder, r *verify.Read) {
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
			s += fmt.Sprintf(", %d more not explained (limit %d)", r.Skipped, verify.MaxExplainedLines)
		}
		line("errors", s)
	}
	if len(r.FromText) > 0 {
		line("from text", r.FromText...)
	}
}

// setInput names where a result's facts came from.
func setInput(r *verify.Result, input string) {
	if r != nil && r.Read != nil && input != "" {
		r.Read.Input = input
	}
}
