package usecase

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/check"
	"github.com/cudb/cudb/query/pin"
	"github.com/cudb/cudb/query/verify"
)

// CheckFormats are the output formats of a check.
var CheckFormats = []string{"text", "json", "sarif", "github"}

// CheckOptions is a check: the project files, the target host (flags, a
// probed host or a pasted report), build arguments, and how to read the
// files they refer to.
type CheckOptions struct {
	Files []CheckInput
	// Target is the host named by flags (From "flags", "request", ...).
	Target CheckTarget
	// Host is a probed host whose driver and first GPU fill what Target
	// leaves empty; HostReport is a pasted report used the same way.
	Host       *host.Snapshot
	HostReport *ReportText
	// BuildArgs are NAME=VALUE Dockerfile ARG overrides.
	BuildArgs []string
	// Frameworks is the framework table requirement lines are read with
	// (nil: cudb's).
	Frameworks frameworks.Table
	// Read reads a file another refers to (nil: not followed, and a note
	// says so).
	Read func(name string) ([]byte, error)
}

// Check judges what the project files will install against the target.
func Check(ctx context.Context, d *DB, o CheckOptions) (*CheckReport, error) {
	if len(o.Files) == 0 {
		return nil, errs.Usage("name at least one file to check (or - for standard input)").WithHint("cudb check Dockerfile")
	}
	if o.Host != nil && o.HostReport != nil {
		return nil, (&errs.Error{Code: errs.CodeUsage, Message: "--host and --host-from both describe the target: give one"}).WithHint("cudb check Dockerfile --host")
	}
	target := o.Target
	facts := o.Host
	if facts != nil {
		target.From = "host"
	}
	if r := o.HostReport; r != nil {
		fs, _, err := report.ParseWith(r.Text, o.Frameworks.Or())
		if err != nil {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("%s: %v", r.Name, err)}).
				WithHint("cudb check Dockerfile --host-from nvidia-smi.txt")
		}
		facts, target.From = fs, "report "+r.Name
	}
	if facts != nil {
		if target.Driver == "" && facts.Driver != nil {
			target.Driver = facts.Driver.Version
			if facts.Driver.WSL {
				target.DriverOS = "windows"
			}
		}
		if target.GPU == "" && target.SM == "" && len(facts.GPUs) > 0 {
			target.GPU, target.SM = facts.GPUs[0].Name, facts.GPUs[0].ComputeCapability
		}
	}
	buildArgs := map[string]string{}
	for _, a := range o.BuildArgs {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, (&errs.Error{Code: errs.CodeUsage, Message: fmt.Sprintf("invalid --build-arg %q: expected NAME=VALUE", a)}).WithHint("cudb check Dockerfile --build-arg CUDA_VERSION=12.1.0")
		}
		buildArgs[k] = v
	}
	return check.Check(ctx, d, o.Files, check.Options{Target: target, BuildArgs: buildArgs, Read: o.Read, Frameworks: o.Frameworks, JudgeHost: judgeHost})
}

// judgeHost is check's host pass: verify's judgement of the facts a
// build implies, naming system cuDNN packages as the pin plan writes them
// (check and verify are siblings; this is where they meet).
func judgeHost(ctx context.Context, d *DB, facts *host.Snapshot, table frameworks.Table) ([]Finding, error) {
	r, err := verify.VerifyWith(ctx, d, facts, verify.Options{Frameworks: table, SystemCUDNN: pin.SystemCUDNN})
	if err != nil {
		return nil, err
	}
	return r.Findings, nil
}

// CheckOutcome is the coded outcome of a printed check: exit 4 when a pin
// matches no known build, 3 on an incompatibility.
func CheckOutcome(rep *CheckReport) error {
	switch rep.ExitCode() {
	case 4:
		return errs.Reported(errs.CodeNotFound, "check found a pin that matches no known build")
	case 3:
		return errs.Reported(errs.CodeIncompatible, "check found an incompatibility")
	}
	return nil
}

// KindOfName reports whether check reads a file of this name.
func KindOfName(name string) bool {
	_, ok := check.KindOfName(name)
	return ok
}
