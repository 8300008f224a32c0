package nvidia

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
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

// SupportNotRead is the status of a release known from its manifest.
const SupportNotRead = "support matrix not read"

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
	rels, err := d.ReleasesOf(ctx, "cudnn")
	if err != nil {
		return nil, err
	}
	var out []CUDNNRelease
	for i := len(rels) - 1; i >= 0; i-- { // version order: newest last
		r := rels[i]
		if hasRow[r.Version] || (spec != nil && !spec.Matches(r.Version)) {
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
		c.Status = SupportNotRead
		if len(c.CUDAMajors) == 0 && c.Build == "" {
			c.Status = PendingStatus
		}
		c.Note = strings.TrimPrefix(c.Note, "pending: ")
		out = append(out, c)
	}
	pinned, err := pinnedCUDNN(ctx, d, hasRow, spec)
	if err != nil {
		return nil, err
	}
	for _, c := range pinned {
		i := slices.IndexFunc(out, func(o CUDNNRelease) bool { return o.CUDNN == c.CUDNN })
		switch {
		case i < 0:
			out = append(out, c)
		case out[i].Status == PendingStatus:
			// a lead's release that a wheel pins: the pin's facts, the
			// lead's date and evidence
			c.Released, c.ReportedBy = out[i].Released, out[i].ReportedBy
			out[i] = c
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return version.DottedKey(out[i].CUDNN) > version.DottedKey(out[j].CUDNN) })
	return out, nil
}

// pinnedCUDNN lists the cuDNN releases the frameworks' wheels pin
// (nvidia-cudnn-cu12==9.15.1.9 in torch 2.10.0's metadata) that neither a
// support row nor the release table names: a released artefact shows the
// release exists, and which CUDA major it was built for.
func pinnedCUDNN(ctx context.Context, d *db.DB, hasRow map[string]bool, spec *version.DottedSpec) ([]CUDNNRelease, error) {
	by := map[string]*CUDNNRelease{}
	for _, fw := range frameworks.All {
		builds, err := d.Builds(ctx, fw.Name, nil)
		if err != nil {
			return nil, err
		}
		for _, b := range builds {
			for _, r := range b.Reqs {
				// nvidia-cudnn-cu12==9.1.0.70 (a wheel's pin), or the
				// cuDNN a build bundles or was tested with, stated
				// exactly (9.15.1.9); never a range.
				major, isPin := strings.CutPrefix(r.Needs, "nvidia-cudnn-cu")
				build := strings.TrimPrefix(r.Spec, "==")
				switch {
				case isPin && r.Kind == "pin" && build != r.Spec:
				case r.Needs == "cudnn" && (r.Kind == "pin" || r.Kind == "bundled" || r.Kind == "tested"):
					major, _, _ = strings.Cut(b.CUDA, ".")
				default:
					continue
				}
				f := strings.Split(build, ".")
				if len(f) < 3 || !version.IsDottedNumber(build) {
					continue
				}
				v := strings.Join(f[:3], ".")
				if hasRow[v] || (spec != nil && !spec.Matches(v)) {
					continue
				}
				c := by[v]
				if c == nil {
					c = &CUDNNRelease{CUDNN: v, Build: build, CUDAMajors: []string{}, Status: SupportNotRead,
						Note:   fmt.Sprintf("known from %s %s %s's pin %s%s (wheel metadata); its support matrix was not read", b.Component, b.Version, b.Variant, r.Needs, r.Spec),
						Source: r.Source, URL: r.URL}
					by[v] = c
				}
				if major != "" && !slices.Contains(c.CUDAMajors, major) {
					c.CUDAMajors = append(c.CUDAMajors, major)
					sort.Strings(c.CUDAMajors)
				}
			}
		}
	}
	out := make([]CUDNNRelease, 0, len(by))
	for _, c := range by {
		out = append(out, *c)
	}
	return out, nil
}

// MatrixCUDNNReleases is `cudb matrix cudnn`: the support-matrix rows and,
// in version order among them, every cuDNN release known without one —
// a row per CUDA major its manifest or builds name (one row with no major
// where none is known), its status saying what is missing. The rows
// resolve's support judgement reads stay MatrixCUDNN's.
func MatrixCUDNNReleases(ctx context.Context, d *db.DB) ([]CUDNNRow, error) {
	support, err := MatrixCUDNN(ctx, d)
	if err != nil {
		return nil, err
	}
	known, err := CUDNNReleases(ctx, d, nil)
	if err != nil {
		return nil, err
	}
	var extra []CUDNNRow
	for _, k := range known {
		majors := k.CUDAMajors
		if len(majors) == 0 {
			majors = []string{""}
		}
		// newest major first, as the support rows list them
		majors = slices.Clone(majors)
		sort.Slice(majors, func(i, j int) bool { return version.DottedKey(majors[i]) > version.DottedKey(majors[j]) })
		for _, m := range majors {
			extra = append(extra, CUDNNRow{CUDNN: k.CUDNN, CUDAMajor: m, CUDAVersions: []string{}, ComputeCapabilities: []string{},
				Status: k.Status, Build: k.Build, Released: k.Released, ReportedBy: k.ReportedBy})
		}
	}
	out := make([]CUDNNRow, 0, len(support)+len(extra))
	i, j := 0, 0
	for i < len(support) || j < len(extra) {
		if j == len(extra) || (i < len(support) && version.DottedKey(support[i].CUDNN) >= version.DottedKey(extra[j].CUDNN)) {
			out = append(out, support[i])
			i++
			continue
		}
		out = append(out, extra[j])
		j++
	}
	return out, nil
}
