package nvidia

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
)

// DriverPattern is the form of a driver version ParseDriver accepts
// (after an optional leading "r"), as a regular expression: the shape
// isDottedNumber checks. With DriverMajorMin and DriverMajorMax it is
// what the site's install selector checks typed drivers against.
const (
	DriverPattern  = `^\d{1,4}(\.\d{1,6}){0,3}$`
	DriverMajorMin = 100
	DriverMajorMax = 999
)

// PendingStatus marks a row whose facts are pending: a release the data
// names before its support facts are published.
const PendingStatus = "facts pending"

// DriverVerdict is the answer of CheckDriver.
type DriverVerdict struct {
	Driver  string `json:"driver"`
	CUDA    string `json:"cuda"`
	OK      bool   `json:"ok"`
	Via     string `json:"via,omitempty"` // "toolkit" or "minor_compat"
	Floor   string `json:"floor,omitempty"`
	MaxCUDA string `json:"max_cuda,omitempty"`
	Note    string `json:"note,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Unknown says why neither OK nor a refusal can be given: the data
	// holds no floor for this toolkit on this OS (NVIDIA's table prints
	// N/A for every CUDA 13.x Windows cell).
	Unknown string `json:"unknown,omitempty"`
}

// Err is the verdict as an incompatible error, or nil when OK.
func (v DriverVerdict) Err() error {
	if v.OK {
		return nil
	}
	return &errs.Error{Code: errs.CodeIncompatible, Message: v.Reason}
}

// bareMajor reports whether cuda names a CUDA major alone ("9", "12"):
// TensorFlow's tested-build tables and ONNX Runtime's cuda12 builds say
// no more.
func bareMajor(cuda string) bool {
	c := strings.TrimSpace(cuda)
	return c != "" && !strings.Contains(c, ".") && version.IsDottedNumber(c)
}

// majorMinors lists the toolkit minors ("9.0", "9.1", "9.2") the data
// knows of CUDA major m, oldest first.
func majorMinors(ctx context.Context, d *db.DB, m string) ([]string, error) {
	rows, err := d.CUDADriversOf(ctx, m, true)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		f := strings.Split(r.CUDA, ".")
		if r.Kind != "toolkit" || len(f) < 2 {
			continue
		}
		if mm := f[0] + "." + f[1]; !slices.Contains(out, mm) {
			out = append(out, mm)
		}
	}
	sort.Slice(out, func(i, j int) bool { return version.CompareDottedText(out[i], out[j]) < 0 })
	if len(out) == 0 {
		return nil, (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no driver floor known for CUDA %s", m)}).WithHint("cudb matrix cuda")
	}
	return out, nil
}

// majorFloors are the floors of a CUDA named by its major alone: the
// floor that holds for every minor the data knows (the highest), since
// the minor the build needs is not stated.
func majorFloors(ctx context.Context, d *db.DB, m string) (Floors, error) {
	minors, err := majorMinors(ctx, d, m)
	if err != nil {
		return Floors{}, err
	}
	f := Floors{CUDA: m}
	for _, mm := range minors {
		fl, err := DriverFloors(ctx, d, mm)
		if err != nil {
			return Floors{}, err
		}
		f.LinuxMin = higher(f.LinuxMin, fl.LinuxMin)
		f.WindowsMin = higher(f.WindowsMin, fl.WindowsMin)
		f.MinorCompatLinuxMin = higher(f.MinorCompatLinuxMin, fl.MinorCompatLinuxMin)
		f.MinorCompatWindowsMin = higher(f.MinorCompatWindowsMin, fl.MinorCompatWindowsMin)
	}
	f.Note = fmt.Sprintf("the build names CUDA %s but not its minor: these floors hold for every %s.x the data knows (%s to %s)", m, m, minors[0], minors[len(minors)-1])
	return f, nil
}

// higher is the higher of two driver versions; "" is unknown and loses.
func higher(a, b string) string {
	if a == "" || (b != "" && version.CompareDottedText(b, a) > 0) {
		return b
	}
	return a
}

// checkMajor judges a driver against a CUDA named by its major alone:
// the answer of every minor the data knows when they agree (all run, or
// none does), else unknown, naming the minors that run and those that
// do not.
func checkMajor(ctx context.Context, d *db.DB, drv, m, os string) (DriverVerdict, error) {
	minors, err := majorMinors(ctx, d, m)
	if err != nil {
		return DriverVerdict{}, err
	}
	v := DriverVerdict{Driver: drv, CUDA: m}
	var runs, not []string
	var need string
	for _, mm := range minors {
		vm, err := CheckDriverOS(ctx, d, drv, mm, os)
		if err != nil {
			return DriverVerdict{}, err
		}
		switch {
		case vm.Unknown != "":
			v.Unknown = fmt.Sprintf("the build names CUDA %s but not its minor, and %s", m, vm.Unknown)
			return v, nil
		case vm.OK:
			runs = append(runs, mm)
			if v.Note == "" {
				v.Note, v.Via = vm.Note, vm.Via
			}
			v.MaxCUDA = vm.MaxCUDA
		default:
			not = append(not, mm)
			need = higher(need, vm.Floor)
			if len(not) == 1 {
				// The oldest minor's refusal names the lowest floor.
				v.Reason, v.Floor, v.MaxCUDA = vm.Reason, vm.Floor, vm.MaxCUDA
			}
		}
	}
	switch {
	case len(not) == 0:
		v.OK = true
	case len(runs) == 0:
		v.Reason = fmt.Sprintf("the build names CUDA %s but not its minor, and no CUDA %s.x runs on this driver: %s", m, m, v.Reason)
	default:
		v.Reason, v.Floor = "", ""
		v.Unknown = fmt.Sprintf("the build names CUDA %s but not its minor: this driver runs CUDA %s but not %s (needs >= %s)",
			m, strings.Join(runs, ", "), strings.Join(not, ", "), need)
	}
	return v, nil
}
