package nvidia

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// ToolkitFit is whether a CUDA toolkit minor compiles for one compute
// capability: the one judgement behind `matrix gpu --cuda` and resolve's
// --gpu/--sm filter of CUDA releases and of builds without an arch list.
type ToolkitFit struct {
	// CUDA is the toolkit minor judged ("12.8").
	CUDA string
	// Support is CUDASupported, CUDAUnsupported or CUDAUnknown.
	Support string
	// Reason says why, from the cuda_arch facts ("CUDA 12.8 compiles up
	// to sm_120; sm_107 arrived in CUDA 13.4").
	Reason string
}

// CUDAUnknown is a GPU the data cannot judge against a toolkit.
const CUDAUnknown = "unknown"

// ArchTargets answers ToolkitFit questions from the cuda_arch table: the
// targets a toolkit compiles for are the SMs introduced up to it
// (newly_supported) minus those dropped up to it, above its floor. SMs
// older than anything the newly_supported column names predate it and
// are judged by the toolkit's sm_min..sm_max range.
type ArchTargets struct {
	rows       []db.CUDAArch  // oldest first
	introduced map[int]string // sm number -> first toolkit naming it
	dropped    map[int]string // sm number -> toolkit that dropped it
	firstNamed int            // lowest sm number newly_supported names
}

func LoadArchTargets(ctx context.Context, d *db.DB) (*ArchTargets, error) {
	rows, err := d.CUDAArchs(ctx) // newest first
	if err != nil {
		return nil, err
	}
	a := &ArchTargets{introduced: map[int]string{}, dropped: map[int]string{}, firstNamed: -1}
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		a.rows = append(a.rows, r)
		for _, n := range smTokens(r.Added) {
			if _, ok := a.introduced[n]; !ok {
				a.introduced[n] = r.CUDA
			}
			if a.firstNamed < 0 || n < a.firstNamed {
				a.firstNamed = n
			}
		}
		for _, n := range smTokens(r.Dropped) {
			if _, ok := a.dropped[n]; !ok {
				a.dropped[n] = r.CUDA
			}
		}
	}
	return a, nil
}

// smTokens reads the sm_ numbers a newly_supported or dropped cell names
// outside parentheses ("sm_110 (renamed from sm_101);sm_88" gives 110 and
// 88; "Maxwell;Pascal" gives none: architecture names are not mapped).
func smTokens(cell string) []int {
	var b strings.Builder
	depth := 0
	for _, r := range cell {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var out []int
	for _, f := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
		if !strings.HasPrefix(f, "sm_") {
			continue
		}
		if n, ok := version.ParseCC(f); ok {
			out = append(out, n.Number())
		}
	}
	return out
}

// index finds the row of toolkit minor cuda; -1 when the data has none.
func (a *ArchTargets) index(cuda string) int {
	mm := version.MinorText(cuda)
	for i, r := range a.rows {
		if r.CUDA == mm {
			return i
		}
	}
	return -1
}

// fit judges compute capability number cc (86 for 8.6) against row i.
func (a *ArchTargets) fit(i, cc int) ToolkitFit {
	r := a.rows[i]
	f := ToolkitFit{CUDA: r.CUDA}
	sm := fmt.Sprintf("sm_%d", cc)
	lo, okLo := version.ParseCC(r.SMMin)
	hi, okHi := version.ParseCC(r.SMMax)
	upTo := ""
	if okHi {
		upTo = fmt.Sprintf("CUDA %s compiles up to %s; ", r.CUDA, r.SMMax)
	}
	if okLo && cc < lo.Number() {
		f.Support, f.Reason = CUDAUnsupported, fmt.Sprintf("CUDA %s compiles for %s and newer%s", r.CUDA, r.SMMin, ArchRow{Dropped: r.Dropped}.DroppedText())
		return f
	}
	if at, ok := a.dropped[cc]; ok && version.CompareDottedText(at, r.CUDA) <= 0 {
		f.Support, f.Reason = CUDAUnsupported, fmt.Sprintf("CUDA %s dropped %s", at, sm)
		return f
	}
	if at, ok := a.introduced[cc]; ok {
		if version.CompareDottedText(at, r.CUDA) <= 0 {
			f.Support, f.Reason = CUDASupported, fmt.Sprintf("CUDA %s compiles for %s (new in CUDA %s)", r.CUDA, sm, at)
		} else {
			f.Support, f.Reason = CUDAUnsupported, fmt.Sprintf("%s%s arrived in CUDA %s", upTo, sm, at)
		}
		return f
	}
	switch {
	case okHi && cc > hi.Number():
		f.Support, f.Reason = CUDAUnsupported, fmt.Sprintf("CUDA %s compiles up to %s", r.CUDA, r.SMMax)
	case a.firstNamed >= 0 && cc >= a.firstNamed:
		f.Support, f.Reason = CUDAUnknown, fmt.Sprintf("the data does not say which CUDA release first compiles for %s", sm)
	case !okLo || !okHi:
		f.Support, f.Reason = CUDAUnknown, fmt.Sprintf("the data does not state the range of targets of CUDA %s", r.CUDA)
	default:
		f.Support, f.Reason = CUDASupported, fmt.Sprintf("CUDA %s compiles for %s..%s", r.CUDA, r.SMMin, r.SMMax)
	}
	return f
}

// JudgeToolkit says whether CUDA cuda (a minor or a release: "12.8",
// "12.8.1") compiles for compute capability cc ("10.7", "sm_107"). A
// toolkit or capability the data does not know answers CUDAUnknown with
// what is missing.
func JudgeToolkit(ctx context.Context, d *db.DB, cuda, cc string) (ToolkitFit, error) {
	a, err := LoadArchTargets(ctx, d)
	if err != nil {
		return ToolkitFit{}, err
	}
	return a.Judge(cuda, cc), nil
}

// Judge is JudgeToolkit over targets already loaded.
func (a *ArchTargets) Judge(cuda, cc string) ToolkitFit {
	i := a.index(cuda)
	if i < 0 {
		return ToolkitFit{CUDA: version.MinorText(cuda), Support: CUDAUnknown, Reason: fmt.Sprintf("no architecture facts for CUDA %s", version.MinorText(cuda))}
	}
	c, ok := version.ParseCC(cc)
	if !ok {
		return ToolkitFit{CUDA: a.rows[i].CUDA, Support: CUDAUnknown, Reason: fmt.Sprintf("unreadable compute capability %q", cc)}
	}
	return a.fit(i, c.Number())
}
