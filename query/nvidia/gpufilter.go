package nvidia

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
)

// GPUFilter narrows `cudb matrix gpu`.
type GPUFilter struct {
	// CUDA judges every GPU against one toolkit ("13" or "13.0"; a major
	// alone means its first release, where support is dropped): which GPUs
	// it compiles for and which it drops.
	CUDA string
	// Arch keeps GPUs of one architecture ("Ampere"; case-insensitive).
	Arch string
	// Name keeps GPUs whose name or alias contains it ("4090", "a100").
	Name string
}

// CUDA support of a GPU in GPURow.CUDASupport.
const (
	CUDASupported   = "supported"
	CUDADropped     = "dropped"     // the previous toolkit compiled for it, this one does not
	CUDAUnsupported = "unsupported" // neither this toolkit nor the previous one compiled for it
)

// MatrixGPUFiltered lists GPUs by name, narrowed by f. With f.CUDA each
// row says whether that toolkit compiles for the GPU (JudgeToolkit, from
// the cuda_arch facts), and compared with the toolkit before it, whether
// it dropped it. A known CUDA release without architecture facts judges
// every GPU unknown.
func MatrixGPUFiltered(ctx context.Context, d *db.DB, f GPUFilter) ([]GPURow, error) {
	rows, err := MatrixGPU(ctx, d)
	if err != nil {
		return nil, err
	}
	if f.Name != "" {
		if err := ParseGPUName(f.Name); err != nil {
			return nil, err
		}
	}
	if f.Arch != "" {
		if err := knownArch(rows, f.Arch); err != nil {
			return nil, err
		}
	}
	var at *ArchTargets
	this, prev := -1, -1
	label := ""
	if f.CUDA != "" {
		if at, err = LoadArchTargets(ctx, d); err != nil {
			return nil, err
		}
		if this, err = toolkitArch(ctx, d, at, f.CUDA); err != nil {
			return nil, err
		}
		label = version.MinorText(f.CUDA)
		if this >= 0 {
			label, prev = at.rows[this].CUDA, this-1
		}
	}
	out := []GPURow{}
	for _, r := range rows {
		if f.Arch != "" && !strings.EqualFold(r.Architecture, f.Arch) {
			continue
		}
		if f.Name != "" && !gpuNameContains(r, f.Name) {
			continue
		}
		if at != nil {
			r.CUDA = label
			cc := -1
			if c, ok := version.ParseCC(r.ComputeCapability); ok {
				cc = c.Number()
			}
			switch {
			case this < 0:
				r.CUDASupport, r.CUDADetail = CUDAUnknown, fmt.Sprintf("no architecture facts for CUDA %s", label)
			case cc < 0:
				r.CUDASupport, r.CUDADetail = CUDAUnknown, "compute capability unknown"
			default:
				fit := at.fit(this, cc)
				r.CUDASupport, r.CUDADetail = fit.Support, fit.Reason
				if fit.Support == CUDAUnsupported && prev >= 0 && at.fit(prev, cc).Support == CUDASupported {
					r.CUDASupport = CUDADropped
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// knownArch refuses an architecture name no GPU has, listing those known.
func knownArch(rows []GPURow, arch string) error {
	var known []string
	for _, r := range rows {
		if strings.EqualFold(r.Architecture, arch) {
			return nil
		}
		if r.Architecture != "" && !slices.Contains(known, r.Architecture) {
			known = append(known, r.Architecture)
		}
	}
	sort.Strings(known)
	return errs.Usage("unknown architecture %q: known architectures are %s", arch, strings.Join(known, ", ")).
		WithHint("cudb matrix gpu --arch Ampere")
}

func gpuNameContains(r GPURow, q string) bool {
	q = normGPU(q)
	if strings.Contains(normGPU(r.Name), q) {
		return true
	}
	for _, a := range r.Aliases {
		if strings.Contains(normGPU(a), q) {
			return true
		}
	}
	return false
}

// toolkitArch finds the cuda_arch row of toolkit v (for a major, its
// first minor): -1 with no error when v is a known CUDA release the
// cuda_arch facts do not describe.
func toolkitArch(ctx context.Context, d *db.DB, at *ArchTargets, v string) (int, error) {
	if _, perr := version.ParseDotted(v); perr != nil {
		return -1, errs.Usage("invalid --cuda %q: expected a CUDA version (13 or 12.8)", v).WithHint("cudb matrix gpu --cuda 13")
	}
	var known []string
	for i := len(at.rows) - 1; i >= 0; i-- {
		known = append(known, at.rows[i].CUDA)
	}
	for i, r := range at.rows { // oldest first: for a major, its .0
		if r.CUDA == version.MinorText(v) || strings.HasPrefix(r.CUDA, v+".") {
			return i, nil
		}
	}
	rel, err := MatrixCUDA(ctx, d)
	if err != nil {
		return -1, err
	}
	for _, r := range rel {
		if r.CUDA == v || strings.HasPrefix(r.CUDA, v+".") {
			return -1, nil
		}
	}
	return -1, (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no CUDA %s in the toolkit/architecture matrix or the CUDA releases (the matrix has %s)", v, strings.Join(known, ", "))}).
		WithHint("cudb matrix arch")
}
