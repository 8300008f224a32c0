package query

import (
	"context"
	"fmt"
	"strconv"
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
// row says whether that toolkit compiles for the GPU (from NVIDIA's
// toolkit/architecture matrix), and compared with the toolkit before it,
// whether it dropped it.
func MatrixGPUFiltered(ctx context.Context, d *db.DB, f GPUFilter) ([]GPURow, error) {
	rows, err := MatrixGPU(ctx, d)
	if err != nil {
		return nil, err
	}
	var this, prev *db.CUDAArch
	if f.CUDA != "" {
		if this, prev, err = toolkitArch(ctx, d, f.CUDA); err != nil {
			return nil, err
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
		if this != nil {
			r.CUDA = this.CUDA
			cc := ccNumber(r.ComputeCapability)
			switch {
			case cc < 0:
				// Unknown capability: unknown is an answer, not a verdict.
			case archCovers(this, cc):
				r.CUDASupport = CUDASupported
			case prev != nil && archCovers(prev, cc):
				r.CUDASupport = CUDADropped
			default:
				r.CUDASupport = CUDAUnsupported
			}
		}
		out = append(out, r)
	}
	return out, nil
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

// toolkitArch finds the cuda_arch row of toolkit v and the row of the
// toolkit before it.
func toolkitArch(ctx context.Context, d *db.DB, v string) (this, prev *db.CUDAArch, err error) {
	if _, perr := version.ParseDotted(v); perr != nil {
		return nil, nil, errs.Usage("invalid --cuda %q: expected a CUDA version (13 or 12.8)", v).WithHint("cudb matrix gpu --cuda 13")
	}
	archs, err := d.CUDAArchs(ctx) // newest first
	if err != nil {
		return nil, nil, err
	}
	var known []string
	for i := range archs {
		a := &archs[i]
		known = append(known, a.CUDA)
		match := a.CUDA == v || strings.HasPrefix(a.CUDA, v+".")
		if !match {
			continue
		}
		// The oldest release that matches: for a major, its .0.
		this = a
		prev = nil
		if i+1 < len(archs) {
			prev = &archs[i+1]
		}
	}
	if this == nil {
		return nil, nil, (&errs.Error{Code: errs.CodeNotFound, Message: fmt.Sprintf("no CUDA %s in the toolkit/architecture matrix (it has %s)", v, strings.Join(known, ", "))}).
			WithHint("cudb matrix arch")
	}
	return this, prev, nil
}

// ccNumber turns "8.6" into 86 and "12.1" into 121; -1 when unreadable.
func ccNumber(cc string) int {
	maj, min, ok := strings.Cut(cc, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || b > 9 {
		return -1
	}
	return a*10 + b
}

func archCovers(a *db.CUDAArch, cc int) bool {
	lo, ok1 := smNumber(a.SMMin)
	hi, ok2 := smNumber(a.SMMax)
	return ok1 && ok2 && cc >= lo && cc <= hi
}
