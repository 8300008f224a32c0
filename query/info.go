package query

import (
	"context"
	"fmt"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
)

// DataInfo describes the data behind every answer: what `GET /v1/meta`
// returns and what every page of the generated site shows.
type DataInfo struct {
	SchemaVersion int    `json:"schema_version"`
	BuiltFrom     string `json:"built_from"`
	// DataAsOf is the newest release date in the facts: how current the
	// data is (it carries no wall-clock build time, so builds reproduce).
	DataAsOf string            `json:"data_as_of,omitempty"`
	Meta     map[string]string `json:"meta"`
	Sources  []db.SourceInfo   `json:"sources"`
	Tables   []string          `json:"tables"`
}

// Info reads the database's meta table and sources.
func Info(ctx context.Context, d *db.DB) (*DataInfo, error) {
	meta, err := d.Meta(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the meta table: %w", err)
	}
	srcs, err := d.Sources(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the source table: %w", err)
	}
	if srcs == nil {
		srcs = []db.SourceInfo{}
	}
	return &DataInfo{SchemaVersion: db.SchemaVersion, BuiltFrom: meta["built_from"], DataAsOf: meta["data_as_of"], Meta: meta, Sources: srcs, Tables: MatrixNames()}, nil
}

// Newest is the newest release of one version line the data holds.
type Newest struct {
	// Line is a component ("torch", "cuda", "cudnn") or "driver-branch".
	Line       string `json:"line"`
	Version    string `json:"version"`
	ReleasedOn string `json:"released_on,omitempty"`
	Source     string `json:"source,omitempty"`
	URL        string `json:"url,omitempty"`
	// FactsPending marks a known release no source describes yet (a
	// lead); WithFacts is then the newest release answers come from.
	FactsPending bool   `json:"facts_pending,omitempty"`
	WithFacts    string `json:"newest_with_facts,omitempty"`
}

// NewestReleases lists the newest release of every line: each framework
// (the newest version it has builds for) and its companions, the CUDA
// toolkit, cuDNN and the driver branch. A line the data does not hold is
// left out.
func NewestReleases(ctx context.Context, d *db.DB) ([]Newest, error) {
	rels, err := d.Releases(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read releases: %w", err)
	}
	// Releases are ordered by component, then version: the last of each
	// component is its newest.
	newestRel := map[string]db.Release{}
	for _, r := range rels {
		// A line a lead names ("13.5") sorts level with the release it
		// stands for ("13.5.0"): the release, the more exact, is the newest
		// whatever order ties come in.
		if o, ok := newestRel[r.Component]; ok && version.DottedKey(o.Version) == version.DottedKey(r.Version) && len(o.Version) > len(r.Version) {
			continue
		}
		newestRel[r.Component] = r
	}
	out := []Newest{}
	for _, fw := range frameworks.All {
		for _, line := range append([]string{fw.Name}, fw.Companions...) {
			n := Newest{Line: line}
			if r, ok := newestRel[line]; ok {
				n.Version, n.ReleasedOn, n.Source, n.URL = r.Version, r.ReleasedOn, r.Source, r.URL
			}
			versions, err := d.Versions(ctx, line)
			if err != nil {
				return nil, err
			}
			if len(versions) > 0 && versions[0] != n.Version {
				built := Newest{Line: line, Version: versions[0]}
				if r, ok := releaseOf(rels, line, versions[0]); ok {
					built.ReleasedOn, built.Source, built.URL = r.ReleasedOn, r.Source, r.URL
				}
				// A known release newer than every build is the newest of
				// its line, its facts pending; answers come from the
				// newest with builds, which is named beside it.
				if n.Version != "" && version.DottedKey(n.Version) > version.DottedKey(built.Version) {
					n.FactsPending, n.WithFacts = true, built.Version
				} else {
					n = built
				}
			}
			if n.Version != "" {
				out = append(out, n)
			}
		}
	}
	drivers, err := d.CUDADrivers(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read CUDA releases: %w", err)
	}
	// The NVIDIA lines: the newest toolkit with a driver row or cuDNN
	// with a support row, unless the release table knows a newer one
	// (CUDA 13.4 has no published floor, cuDNN 9.27 only its manifest,
	// a lead's release its evidence): a known release is the newest of
	// its line, its facts pending or not.
	reportedBy := func(line, v string) bool {
		by, _, err := d.Attribute(ctx, line, v, "reported_by")
		return err == nil && by != ""
	}
	nvidia := func(line string, n Newest) {
		if r, ok := newestRel[line]; ok && (n.Version == "" || version.DottedKey(r.Version) > version.DottedKey(n.Version)) {
			withFacts := n.Version
			n = Newest{Line: line, Version: r.Version, ReleasedOn: r.ReleasedOn, Source: r.Source, URL: r.URL}
			// Known only from a lead: its facts are pending, and the
			// newest release a fact source describes is named beside it.
			if reportedBy(line, r.Version) {
				n.FactsPending = true
				for _, o := range rels {
					if o.Component == line && version.DottedKey(o.Version) > version.DottedKey(withFacts) && !reportedBy(line, o.Version) {
						withFacts = o.Version
					}
				}
				n.WithFacts = withFacts
			}
		}
		if n.Version != "" {
			out = append(out, n)
		}
	}
	cudaNewest := Newest{Line: "cuda"}
	for i := len(drivers) - 1; i >= 0; i-- {
		if c := drivers[i]; c.Kind == "toolkit" {
			cudaNewest = Newest{Line: "cuda", Version: c.CUDA, ReleasedOn: c.ReleasedOn, Source: c.Source, URL: c.URL}
			break
		}
	}
	nvidia("cuda", cudaNewest)
	cudnn, err := d.CUDNNSupport(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read cuDNN releases: %w", err)
	}
	cudnnNewest := Newest{Line: "cudnn"}
	if len(cudnn) > 0 {
		c := cudnn[0]
		cudnnNewest = Newest{Line: "cudnn", Version: c.CUDNN, ReleasedOn: c.ReleasedOn, Source: c.Source, URL: c.URL}
	}
	nvidia("cudnn", cudnnNewest)
	branches, err := d.DriverBranches(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read driver branches: %w", err)
	}
	if len(branches) > 0 {
		b := branches[0]
		out = append(out, Newest{Line: "driver-branch", Version: b.Branch, Source: b.Source, URL: b.URL})
	}
	return out, nil
}

func releaseOf(rels []db.Release, component, version string) (db.Release, bool) {
	for _, r := range rels {
		if r.Component == component && r.Version == version {
			return r, true
		}
	}
	return db.Release{}, false
}
