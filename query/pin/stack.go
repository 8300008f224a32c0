package pin

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query"
)

// RenderStack renders s, one of the stacks query.Resolve gave for r, in
// format: the file Pins writes when s is resolve's best stack for r. The
// site's install selector precomputes every stack's file with it, so the
// page shows what `cudb pin` prints. A stack cudb cannot vouch for is
// refused unless opts.AllowUnknown, as Pins refuses it.
func RenderStack(ctx context.Context, d *db.DB, r query.ResolveRequest, format string, opts PinOptions, s *query.Stack) (string, error) {
	if !slices.Contains(PinFormats, format) {
		return "", errs.Usage("unknown format %q: expected one of %s", format, strings.Join(PinFormats, ", "))
	}
	if s.Status == query.StatusUnknown && !opts.AllowUnknown {
		return "", errs.Errorf(errs.CodeNotFound, "cudb cannot vouch for %s: %s", packagesLine(*s), strings.Join(s.Unknown, "; "))
	}
	data, err := pinData(ctx, d)
	if err != nil {
		return "", err
	}
	content, _, err := renderStack(ctx, d, r, format, opts, s, data)
	return content, err
}

// ShellQuote quotes a command-line argument the way the header of every
// pin file quotes it.
func ShellQuote(s string) string { return shellQuote(s) }

func pinData(ctx context.Context, d *db.DB) (PinData, error) {
	meta, err := d.Meta(ctx)
	if err != nil {
		return PinData{}, fmt.Errorf("failed to read the database's build: %w", err)
	}
	return PinData{BuiltFrom: meta["built_from"], DataAsOf: meta["data_as_of"], SchemaVersion: meta["schema_version"]}, nil
}

func renderStack(ctx context.Context, d *db.DB, r query.ResolveRequest, format string, opts PinOptions, s *query.Stack, data PinData) (string, []string, error) {
	plan, err := newPinPlan(ctx, d, r, format, opts, s, data)
	if err != nil {
		return "", nil, err
	}
	content, err := renderers[format](plan)
	return content, plan.notes, err
}

// SystemCUDNN is the system cuDNN package line ("libcudnn8=8.9.7.29-1+cuda12.2")
// the apt file of a framework release's Linux pin plan writes, "" when
// the plan has none (the framework brings its cuDNN as a wheel).
func SystemCUDNN(ctx context.Context, d *db.DB, framework, version string) string {
	res, err := Pins(ctx, d, query.ResolveRequest{Requirements: []string{framework + "==" + version}, Platform: "linux"}, "apt", PinOptions{})
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(res.Content, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "libcudnn") {
			return l
		}
	}
	return ""
}
