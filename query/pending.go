package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

// pendingStatus marks a matrix row of a known release whose facts are
// pending.
const pendingStatus = "facts pending"

// PendingRelease is a release the data knows exists (a lead: PyPI's
// release list, an NVIDIA manifest) but no source describes yet: its
// builds and requirements are unknown, so no answer about it is yes or no.
type PendingRelease struct {
	Component  string `json:"component"`
	Version    string `json:"version"`
	Released   string `json:"released,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

// pendingReleases lists the releases of component matching req that have
// no build in the data.
func pendingReleases(ctx context.Context, d *db.DB, component string, req version.Requirement, pre bool) []PendingRelease {
	rels, err := d.Releases(ctx)
	if err != nil {
		return nil
	}
	built, err := d.Versions(ctx, component)
	if err != nil {
		return nil
	}
	has := map[string]bool{}
	for _, v := range built {
		has[v] = true
	}
	var out []PendingRelease
	for _, r := range rels {
		if r.Component != component || has[r.Version] {
			continue
		}
		v, err := version.Parse(r.Version)
		if err != nil || !req.Specs.Check(v, pre) {
			continue
		}
		by, _, _ := d.Attribute(ctx, component, r.Version, "reported_by")
		out = append(out, PendingRelease{Component: component, Version: r.Version, Released: r.ReleasedOn, ReportedBy: by})
	}
	return out
}

// pendingError answers a question about releases whose facts are pending:
// unknown, not "no such release" and not "incompatible".
func pendingError(component string, pend []PendingRelease) *errs.Error {
	var vs []string
	for _, p := range pend {
		s := p.Version
		if p.ReportedBy != "" {
			s += " (reported by " + p.ReportedBy + ")"
		}
		vs = append(vs, s)
	}
	return (&errs.Error{Code: errs.CodeNotFound,
		Message: fmt.Sprintf("unknown: %s %s is a known release whose facts are pending (no source describes its builds yet), so cudb cannot say what it needs or whether it fits",
			component, strings.Join(vs, ", ")),
		Detail: map[string]any{"status": "facts_pending", "pending": pend}}).
		WithHint("cudb matrix %s (its rows marked pending), or cudb refresh once the release is documented", matrixName(component))
}

// matrixName is the `cudb matrix` table that lists component's releases.
func matrixName(component string) string {
	if fw, ok := frameworks.Get(component); ok && fw.Matrix != "" {
		return fw.Matrix
	}
	return component
}

// withPending puts a row made by mk for each release of component whose
// facts are pending among rows (newest first), at its place by version:
// `cudb matrix` lists every known release, the pending ones marked.
func withPending[R any](ctx context.Context, d *db.DB, component string, rows []R, versionOf func(R) string, mk func(PendingRelease) R) []R {
	every, _ := version.ParseRequirement(component)
	pend := pendingReleases(ctx, d, component, every, false)
	if len(pend) == 0 {
		return rows
	}
	for _, p := range pend {
		rows = append(rows, mk(p))
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, errA := version.Parse(versionOf(rows[i]))
		b, errB := version.Parse(versionOf(rows[j]))
		return errA == nil && errB == nil && a.Compare(b) > 0
	})
	return rows
}
