package db

import (
	"context"
	"sort"
)

// LineNewest is the newest release of one line (a component, or the
// driver branches) the data holds.
type LineNewest struct {
	Line       string `json:"line"`
	Version    string `json:"version"`
	ReleasedOn string `json:"released_on,omitempty"`
	Source     string `json:"source"`
}

// NewestReleases lists, per component of the release table and for the
// driver branches, the newest release in the data, in line order.
func (d *DB) NewestReleases(ctx context.Context) ([]LineNewest, error) {
	rels, err := d.Releases(ctx) // ordered by component, version_key
	if err != nil {
		return nil, err
	}
	by := map[string]LineNewest{}
	for _, r := range rels {
		by[r.Component] = LineNewest{Line: r.Component, Version: r.Version, ReleasedOn: r.ReleasedOn, Source: r.Source}
	}
	brs, err := d.DriverBranches(ctx) // newest branch first
	if err != nil {
		return nil, err
	}
	if len(brs) > 0 {
		by["driver"] = LineNewest{Line: "driver", Version: "R" + brs[0].Branch, Source: brs[0].Source}
	}
	out := make([]LineNewest, 0, len(by))
	for _, l := range by {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out, nil
}
