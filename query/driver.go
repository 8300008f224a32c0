package query

import "github.com/cudb/cudb/internal/errs"

// DriverPattern is the form of a driver version ParseDriver accepts
// (after an optional leading "r"), as a regular expression: the shape
// isDottedNumber checks. With DriverMajorMin and DriverMajorMax it is
// what the site's install selector checks typed drivers against.
const (
	DriverPattern  = `^\d{1,4}(\.\d{1,6}){0,3}$`
	DriverMajorMin = 100
	DriverMajorMax = 999
)

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
