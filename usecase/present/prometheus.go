package present

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/usecase"
)

// Prometheus renders a verify as node_exporter textfile metrics. Every
// severity/category pair is written (zero when absent) so alerts need no
// absent() guards; several reports are told apart by a report label.
func Prometheus(res *usecase.VerifyResult) string {
	reps := res.Reports
	var b strings.Builder
	multi := len(reps) > 1
	lbl := func(r usecase.FileReport, kv ...string) string {
		var parts []string
		if multi {
			parts = append(parts, `report="`+promEscape(r.File)+`"`)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			parts = append(parts, kv[i]+`="`+promEscape(kv[i+1])+`"`)
		}
		if len(parts) == 0 {
			return ""
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	head := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	head("cudb_verify_healthy", "gauge", "1 when cudb verify found no error-level finding, else 0.")
	for _, r := range reps {
		v := 0
		if r.Summary.Healthy {
			v = 1
		}
		fmt.Fprintf(&b, "cudb_verify_healthy%s %d\n", lbl(r), v)
	}
	head("cudb_verify_findings", "gauge", "Number of cudb verify findings by severity and category.")
	for _, r := range reps {
		count := map[[2]string]int{}
		for _, x := range r.Findings {
			count[[2]string{x.Severity, x.Category}]++
		}
		for _, sev := range usecase.Severities {
			for _, cat := range usecase.Categories {
				fmt.Fprintf(&b, "cudb_verify_findings%s %d\n", lbl(r, "severity", sev, "category", cat), count[[2]string{sev, cat}])
			}
		}
	}
	head("cudb_driver_info", "gauge", "The NVIDIA driver version seen, as a label.")
	for _, r := range reps {
		if fs := r.Facts; fs != nil && fs.Driver != nil && fs.Driver.Version != "" {
			fmt.Fprintf(&b, "cudb_driver_info%s 1\n", lbl(r, "version", fs.Driver.Version))
		}
	}
	head("cudb_gpu_info", "gauge", "Each GPU seen, with its compute capability when known.")
	for _, r := range reps {
		if r.Facts == nil {
			continue
		}
		for _, g := range r.Facts.GPUs {
			fmt.Fprintf(&b, "cudb_gpu_info%s 1\n", lbl(r, "index", fmt.Sprint(g.Index), "name", g.Name, "compute_capability", g.ComputeCapability))
		}
	}
	head("cudb_framework_info", "gauge", "Each framework build seen, by Python environment.")
	// typed are the frameworks whose build readers say more than a
	// version (their CUDA); they are written from those readers.
	typed := map[string]bool{frameworks.Torch: true, frameworks.TensorFlow: true, frameworks.JAX: true}
	for _, r := range reps {
		if r.Facts == nil {
			continue
		}
		var lines []string
		for _, py := range r.Facts.Pythons {
			add := func(name, ver, cuda string) {
				lines = append(lines, fmt.Sprintf("cudb_framework_info%s 1\n", lbl(r, "name", name, "version", ver, "cuda", cuda, "env", py.Prefix)))
			}
			if t := py.Torch; t != nil {
				add(frameworks.Torch, t.Version, t.CUDA)
			}
			if t := py.TensorFlow; t != nil {
				add(frameworks.TensorFlow, t.Version, t.CUDA)
			}
			if j := py.JAX; j != nil && j.Version != "" {
				add(frameworks.JAX, j.Version, "")
			}
			// Every other framework of the table the environment installs
			// (host.Python.Frameworks), by its package's version: a new
			// framework needs no line here.
			for name, in := range py.Frameworks {
				if typed[name] || in.Version == "" {
					continue
				}
				add(name, in.Version, "")
			}
		}
		sort.Strings(lines)
		for _, l := range lines {
			b.WriteString(l)
		}
	}
	return b.String()
}

func promEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
