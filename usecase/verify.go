package usecase

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/pin"
	"github.com/cudb/cudb/query/verify"
)

// How a host with no visible GPU is judged (VerifyOptions.GPU).
const (
	GPUAuto   = verify.GPUAuto
	GPUExpect = verify.GPUExpect
	GPUNoneOK = verify.GPUNoneOK
)

// ReportText is one pasted report to judge.
type ReportText struct {
	// Name names the report in errors and, when several are judged, in
	// the result ("" = unnamed).
	Name string
	// Input is what the report's "read:" line says it read ("" = Name).
	Input string
	Text  []byte
}

// VerifyOptions is a verify: a probed host, pasted reports, or both (the
// host is judged first), and how a host without a GPU is judged.
type VerifyOptions struct {
	// Host is the snapshot the probe took of this host (the door probes:
	// only the probe touches the host), nil for reports only.
	Host    *host.Snapshot
	Reports []ReportText
	// GPU is GPUAuto (""), GPUExpect or GPUNoneOK.
	GPU string
	// Frameworks is the framework table reports are read and judged with
	// (nil: cudb's).
	Frameworks frameworks.Table
	// ParseHint replaces the hint of a report that cannot be read ("" =
	// the CLI's).
	ParseHint string
}

// FileReport is one report of a verify, named by its file when several
// are judged.
type FileReport struct {
	File string `json:"file"`
	*Report
}

// VerifyResult is a verify's reports and their total. Its JSON is the one
// report's when there is one, else {reports, summary} (docs/json.md).
type VerifyResult struct {
	Reports []FileReport `json:"reports"`
	Summary Summary      `json:"summary"`
}

// MarshalJSON writes one report as itself and several with their total.
func (r *VerifyResult) MarshalJSON() ([]byte, error) {
	if len(r.Reports) == 1 {
		return json.Marshal(r.Reports[0].Report)
	}
	type multi VerifyResult
	return json.Marshal((*multi)(r))
}

// Healthy reports whether no report has an error-level finding.
func (r *VerifyResult) Healthy() bool { return r.Summary.Healthy }

// Outcome is the coded outcome of a printed verify: exit 3 when any
// report has an error-level finding.
func (r *VerifyResult) Outcome() error {
	if !r.Healthy() {
		return errs.Reported(errs.CodeIncompatible, "verify found an incompatibility")
	}
	return nil
}

// Verify judges the host and each report against the database.
func Verify(ctx context.Context, d *DB, o VerifyOptions) (*VerifyResult, error) {
	vo := verify.Options{GPU: o.GPU, Frameworks: o.Frameworks, SystemCUDNN: pin.SystemCUDNN}
	res := &VerifyResult{}
	if o.Host != nil {
		r, err := verify.VerifyWith(ctx, d, o.Host, vo)
		if err != nil {
			return nil, err
		}
		res.Reports = append(res.Reports, FileReport{Report: r})
	}
	for _, in := range o.Reports {
		facts, _, err := report.ParseWith(in.Text, o.Frameworks.Or())
		if err != nil {
			code := errs.CodeUsage
			if errs.CodeOf(err) == errs.CodeLimit {
				if in.Name == "" {
					return nil, err
				}
				code = errs.CodeLimit
			}
			msg := err.Error()
			if in.Name != "" {
				msg = fmt.Sprintf("%s: %v", in.Name, err)
			}
			hint := o.ParseHint
			if hint == "" {
				hint = "cudb verify --from collect_env.txt (python -m torch.utils.collect_env > collect_env.txt)"
			}
			return nil, (&errs.Error{Code: code, Message: msg}).WithHint("%s", hint)
		}
		r, err := verify.VerifyWith(ctx, d, facts, vo)
		if err != nil {
			return nil, err
		}
		input := in.Input
		if input == "" {
			input = in.Name
		}
		if r.Read != nil && input != "" {
			r.Read.Input = input
		}
		res.Reports = append(res.Reports, FileReport{File: in.Name, Report: r})
	}
	res.Summary = total(res.Reports)
	return res, nil
}

func total(reps []FileReport) Summary {
	var s Summary
	for _, r := range reps {
		s.Errors += r.Summary.Errors
		s.Warnings += r.Summary.Warnings
		s.Infos += r.Summary.Infos
	}
	s.Healthy = s.Errors == 0
	return s
}
