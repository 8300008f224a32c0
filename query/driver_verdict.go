package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
)

// The driver judgement: the newest toolkit a driver runs, and whether a
// driver runs a given CUDA release (shared by resolve, pin, verify, check,
// the HTTP API and the site).

// MaxCUDAForDriver returns the newest CUDA toolkit minor a (Linux)
// driver runs natively: the newest toolkit whose Linux floor it meets,
// else the branch's stated maximum.
func MaxCUDAForDriver(ctx context.Context, d *db.DB, driver string) (string, error) {
	return MaxCUDAForDriverOS(ctx, d, driver, "linux")
}

// MaxCUDAForDriverOS is MaxCUDAForDriver for the driver numbering of os
// ("linux" or "windows": Windows drivers carry their own numbers, 531.14
// where Linux has 530.30.02).
func MaxCUDAForDriverOS(ctx context.Context, d *db.DB, driver, os string) (string, error) {
	drv, err := ParseDriver(driver)
	if err != nil {
		return "", err
	}
	best, err := d.NewestToolkitFor(ctx, os, drv)
	if err != nil {
		return "", err
	}
	if best != "" {
		parts := strings.Split(best, ".")
		return parts[0] + "." + parts[1], nil
	}
	b, ok, err := d.DriverBranch(ctx, version.MajorText(drv))
	if err != nil {
		return "", err
	}
	if ok && b.MaxCUDA != "" {
		return b.MaxCUDA, nil
	}
	return "", (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no CUDA toolkit is known to run on driver %s", drv)}).WithHint("cudb matrix driver")
}

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

// CheckDriver says whether a (Linux) driver runs CUDA cuda: OK at or
// above the minor-version-compatibility floor of the CUDA major (with a
// note when below the toolkit's own floor), refused below it, and refused
// when the driver's newest CUDA is of an older major.
func CheckDriver(ctx context.Context, d *db.DB, driver, cuda string) (DriverVerdict, error) {
	return CheckDriverOS(ctx, d, driver, cuda, "linux")
}

// CheckDriverOS is CheckDriver against the floors of os ("linux" or
// "windows").
func CheckDriverOS(ctx context.Context, d *db.DB, driver, cuda, os string) (DriverVerdict, error) {
	drv, err := ParseDriver(driver)
	if err != nil {
		return DriverVerdict{}, err
	}
	fl, err := DriverFloors(ctx, d, cuda)
	if err != nil {
		return DriverVerdict{}, err
	}
	toolkit, compat, osName := fl.LinuxMin, fl.MinorCompatLinuxMin, "Linux"
	if os == "windows" {
		toolkit, compat, osName = fl.WindowsMin, fl.MinorCompatWindowsMin, "Windows"
	}
	v := DriverVerdict{Driver: drv, CUDA: fl.CUDA}
	if toolkit == "" && compat == "" {
		// No floor of this toolkit on this OS (NVIDIA prints N/A for
		// every CUDA 13.x Windows cell). A driver below the floor of
		// some toolkit the data does know is older than this toolkit
		// needs (floors rise with toolkits): refused below. A driver at
		// or above every known floor cannot be judged: unknown, with the
		// reason the data gives.
		mine, err := d.NewestToolkitFor(ctx, os, drv)
		if err != nil {
			return DriverVerdict{}, err
		}
		known, err := d.NewestToolkitFor(ctx, os, "99999")
		if err != nil {
			return DriverVerdict{}, err
		}
		if known == "" || mine == known {
			v.Unknown = fmt.Sprintf("no %s driver floor known for CUDA %s", osName, fl.CUDA)
			if why, _, err := d.Attribute(ctx, "cuda", fl.CUDA, strings.ToLower(osName)+"_min_driver"); err == nil && why != "" {
				v.Unknown += ": " + why
			} else if why, _, err := d.Attribute(ctx, "cuda", fl.CUDA, "min_driver"); err == nil && why != "" {
				v.Unknown += ": " + why
			}
			return v, nil
		}
	}
	if mx, err := MaxCUDAForDriverOS(ctx, d, drv, os); err == nil {
		v.MaxCUDA = mx
		if a, b := version.MajorText(mx), version.MajorText(fl.CUDA); version.CompareDottedText(a, b) < 0 {
			v.Reason = fmt.Sprintf("driver %s supports CUDA up to %s; CUDA %s needs a CUDA %s-era driver", drv, mx, fl.CUDA, b)
			if compat != "" {
				v.Reason += fmt.Sprintf(" (>= %s)", compat)
			} else if toolkit != "" {
				v.Reason += fmt.Sprintf(" (>= %s)", toolkit)
			}
			v.Floor = compat
			return v, nil
		}
	}
	// The installed CUDA release's own floor is the minimum; the
	// minor-version floor matters only for a driver below it (a runtime
	// newer than the driver supports), and only where it is lower.
	floor := toolkit
	if compat != "" && (floor == "" || version.CompareDottedText(compat, floor) < 0) {
		floor = compat
	}
	v.Floor = floor
	switch {
	case floor == "":
		return v, (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no %s driver floor known for CUDA %s", osName, fl.CUDA)}).WithHint("cudb matrix cuda")
	case toolkit != "" && version.CompareDottedText(drv, toolkit) >= 0:
		v.OK, v.Via = true, "toolkit"
	case version.CompareDottedText(drv, floor) < 0:
		v.Reason = fmt.Sprintf("driver %s is below the minimum %s for CUDA %s", drv, floor, fl.CUDA)
	default:
		v.OK, v.Via = true, "minor_compat"
		v.Note = fmt.Sprintf("runs via minor-version compatibility; recommended >= %s", toolkit)
	}
	return v, nil
}
