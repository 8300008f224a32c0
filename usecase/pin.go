package usecase

import (
	"context"
	"errors"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/pin"
)

// PinFormats are the files Pin writes.
var PinFormats = pin.PinFormats

// PinOptions is a pin: the resolve to take the best stack of, the file
// format, and how to write it.
type PinOptions struct {
	ResolveRequest
	// Format is one of PinFormats ("" = requirements).
	Format string
	// Devel picks development packages and images (headers, nvcc).
	Devel bool
	// AllowUnknown writes a stack cudb cannot vouch for, each gap named
	// in the file's header; without it such a stack is refused (exit 4).
	AllowUnknown bool
	// ProjectName and ProjectVersion name the uv project or the conda
	// environment ("" = derived from the stack).
	ProjectName, ProjectVersion string
	// CudbVersion is written into the file's header.
	CudbVersion string
}

// Pin resolves, takes the best stack and renders it as a file an
// installer reads. When the frameworks conflict, the result carries the
// conflicts beside the coded error (the door may print both).
func Pin(ctx context.Context, d *DB, o PinOptions) (*PinResult, error) {
	return pin.Pins(ctx, d, o.ResolveRequest, o.Format, pin.PinOptions{CudbVersion: o.CudbVersion, Devel: o.Devel,
		AllowUnknown: o.AllowUnknown, ProjectName: o.ProjectName, ProjectVersion: o.ProjectVersion})
}

// UnknownRefusal reports whether err is Pin's refusal of a stack cudb
// cannot vouch for (a door offers its own way to write it anyway).
func UnknownRefusal(err error) bool {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeNotFound {
		return false
	}
	d, ok := e.Detail.(map[string]any)
	return ok && d["status"] == query.StatusUnknown
}
