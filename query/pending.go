package query

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/nvidia"
)

// pendingStatus marks a matrix row of a known release whose facts are
// pending.
const pendingStatus = nvidia.PendingStatus

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
	rels, err := d.ReleasesOf(ctx, component)
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
		if has[r.Version] {
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

// leadReleases lists the releases of component matching req that only a
// lead names (a companion's releases have no builds of their own, so
// having none does not make them pending).
func leadReleases(ctx context.Context, d *db.DB, component string, req version.Requirement, pre bool) []PendingRelease {
	var out []PendingRelease
	for _, p := range pendingReleases(ctx, d, component, req, pre) {
		if p.ReportedBy != "" {
			out = append(out, p)
		}
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
		WithHint("%s, or cudb refresh once the release is documented", pendingHint(component, pend))
}

// pendingHint names the command that lists component's pending releases.
func pendingHint(component string, pend []PendingRelease) string {
	if component == "cudnn" && len(pend) > 0 {
		// matrix cudnn holds support rows only; resolve lists the
		// releases of the major, those with facts among them.
		major, _, _ := strings.Cut(pend[len(pend)-1].Version, ".")
		return fmt.Sprintf("cudb resolve 'cudnn>=%s' (every cuDNN %s release known, with what is known of each)", major, major)
	}
	if fw, ok := frameworks.Get(component); !ok || fw.Name != component {
		// a companion (torchvision): its column lists the releases paired
		return "cudb matrix " + matrixName(component) + " (its " + component + " column lists the releases with facts)"
	}
	return "cudb matrix " + matrixName(component) + " (its rows marked pending)"
}

// matrixName is the `cudb matrix` table that lists component's releases.
func matrixName(component string) string {
	if fw, ok := frameworks.Get(component); ok && fw.Matrix != "" {
		return fw.Matrix
	}
	for _, fw := range frameworks.All {
		if slices.Contains(fw.Companions, component) {
			return fw.Matrix // torchvision: a column of matrix torch
		}
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
