package query

import (
	"context"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// CUDNNRelease is a cuDNN release the data knows without a support-matrix
// row: known from NVIDIA's redist manifest (its build and the CUDA majors
// it ships for; drivers and GPUs not read), or only from a lead (its facts
// pending).
type CUDNNRelease struct {
	CUDNN string `json:"cudnn"`
	// Build is the four-part version the manifest names (9.27.0.42).
	Build      string   `json:"build,omitempty"`
	Released   string   `json:"released,omitempty"`
	CUDAMajors []string `json:"cuda_majors"`
	// Status says what is missing: "support matrix not read" (the
	// manifest's facts only) or "facts pending" (a lead).
	Status     string `json:"status"`
	Note       string `json:"note,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
	Source     string `json:"source"`
	URL        string `json:"url,omitempty"`
}

// supportNotRead is the status of a release known from its manifest.
const supportNotRead = "support matrix not read"

// CUDNNReleases lists, newest first, the cuDNN releases matching spec
// that have no support-matrix row (nil spec: all of them).
func CUDNNReleases(ctx context.Context, d *db.DB, spec *version.DottedSpec) ([]CUDNNRelease, error) {
	support, err := d.CUDNNSupport(ctx)
	if err != nil {
		return nil, err
	}
	hasRow := map[string]bool{}
	for _, r := range support {
		hasRow[r.CUDNN] = true
	}
	rels, err := d.Releases(ctx)
	if err != nil {
		return nil, err
	}
	var out []CUDNNRelease
	for i := len(rels) - 1; i >= 0; i-- { // version order: newest last
		r := rels[i]
		if r.Component != "cudnn" || hasRow[r.Version] || (spec != nil && !dottedOK(*spec, r.Version)) {
			continue
		}
		attr := func(key string) string {
			v, _, _ := d.Attribute(ctx, "cudnn", r.Version, key)
			return v
		}
		c := CUDNNRelease{CUDNN: r.Version, Build: attr("build_version"), Released: r.ReleasedOn, CUDAMajors: []string{},
			Note: attr("support"), ReportedBy: attr("reported_by"), Source: r.Source, URL: r.URL}
		for _, m := range split(attr("cuda_majors")) {
			c.CUDAMajors = append(c.CUDAMajors, strings.TrimSuffix(m, ".x"))
		}
		c.Status = supportNotRead
		if len(c.CUDAMajors) == 0 && c.Build == "" {
			c.Status = pendingStatus
		}
		c.Note = strings.TrimPrefix(c.Note, "pending: ")
		out = append(out, c)
	}
	return out, nil
}
