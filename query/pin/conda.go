package pin

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

func notOnConda(ctx context.Context, d *db.DB, r query.ResolveRequest, err error) error {
	msg := err.Error()
	// Say where each framework's conda builds end in the data (the
	// pytorch channel's last torch, say), so the user knows what to ask
	// for instead.
	for _, raw := range r.Requirements {
		req, perr := version.ParseRequirement(raw)
		if perr != nil {
			continue
		}
		last := newestConda(ctx, d, query.FrameworkOf(req.Name))
		if last == "" {
			continue
		}
		// When the newest conda release itself matches, the release is on
		// conda and the variant is what is missing: the message says so.
		if v, err := version.Parse(last); err == nil && req.Specs.Check(v, true) {
			continue
		}
		msg += fmt.Sprintf("; %s releases with conda builds in the data go up to %s", req.Name, last)
	}
	return (&errs.Error{Code: errs.CodeNotFound,
		Message: fmt.Sprintf("%s was not published to the conda channels cudb knows (%s)", strings.Join(r.Requirements, " "), msg)}).
		WithHint("cudb pin %s --format requirements (pip wheels), or --format uv", strings.Join(r.Requirements, " "))
}

// newestConda is the newest release of framework that has a conda build
// in the data ("" when none or on a read error: it only adds to a
// message).
func newestConda(ctx context.Context, d *db.DB, framework string) string {
	if framework == "" {
		return ""
	}
	versions, err := d.Versions(ctx, framework)
	if err != nil {
		return ""
	}
	for _, v := range versions { // newest first
		bs, err := d.Builds(ctx, framework, func(x string) bool { return x == v })
		if err != nil {
			return ""
		}
		for _, b := range bs {
			if b.Channel == "conda" {
				return v
			}
		}
	}
	return ""
}
