package present

import (
	"strings"

	"github.com/cudb/cudb/usecase"
)

// CUDASupportTone colours a CUDA support cell.
func CUDASupportTone(cell string) Tone {
	switch cell {
	case usecase.CUDASupported:
		return Good
	case usecase.CUDADropped:
		return Bad
	case usecase.CUDAUnsupported:
		return Warn
	case usecase.CUDAUnknown:
		return Warn
	}
	return None
}

// CUDATable is `cudb matrix cuda`'s table, also what `resolve cuda==…` prints.
func CUDATable(rows []usecase.CUDARow) *Table {
	t := &Table{Header: []string{"cuda", "label", "linux min", "windows min", "minor-compat linux", "minor-compat windows", "released"}}
	for _, r := range rows {
		label := r.Label
		if r.Status != "" {
			label = "(" + r.Status + ")"
		}
		t.Add(r.CUDA, label, floorCell(r.LinuxMinDriver, r.LinuxMinDriverNote), floorCell(r.WindowsMinDriver, r.WindowsMinDriverNote),
			r.MinorCompatLinuxMinDriver, r.MinorCompatWindowsMinDriver, r.Released)
	}
	return t
}

// CUDNNReleaseTable lists cuDNN releases known without a support row.
func CUDNNReleaseTable(rows []usecase.CUDNNRelease) *Table {
	t := &Table{Header: []string{"cudnn", "build", "released", "cuda majors", "status", "reported by"}}
	for _, r := range rows {
		t.Add(r.CUDNN, r.Build, r.Released, strings.Join(r.CUDAMajors, " "), r.Status, r.ReportedBy)
	}
	return t
}

// floorCell is a driver floor, or why there is none: "N/A" where
// NVIDIA's table prints it (the driver is not bundled), else "unknown"
// (--json carries the whole note).
func floorCell(floor, note string) string {
	switch {
	case floor != "":
		return floor
	case strings.Contains(note, "N/A in NVIDIA's table"):
		return "N/A (unbundled)"
	default:
		return "unknown"
	}
}

// CUDNNTable is `cudb matrix cudnn`'s table, also what `resolve cudnn==…` prints.
func CUDNNTable(s Terminal, rows []usecase.CUDNNRow) *Table {
	// The list columns hold versions only; a range or a floor the source
	// states instead of a list goes in its own columns, as in the JSON.
	t := &Table{Header: []string{"cudnn", "cuda major", "cuda versions", "cuda range", "linux min", "windows min", "compute capabilities", "cc min", "status"}}
	for _, r := range rows {
		cudaRange := ""
		if len(r.CUDAVersions) == 0 && r.CUDAMin != "" {
			cudaRange = RangeText(s, r.CUDAMin, r.CUDAMax)
		}
		t.Add(r.CUDNN, r.CUDAMajor, strings.Join(r.CUDAVersions, " "), cudaRange, r.LinuxMinDriver, r.WindowsMinDriver,
			strings.Join(r.ComputeCapabilities, " "), r.ComputeCapabilityMin, r.Status)
	}
	return t
}
