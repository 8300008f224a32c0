package nvidia

import (
	"context"
	"sort"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// CUDARow is one row of `cudb matrix cuda`.
type CUDARow struct {
	CUDA                        string `json:"cuda"`
	Label                       string `json:"label"`
	LinuxMinDriver              string `json:"linux_min_driver"`
	WindowsMinDriver            string `json:"windows_min_driver"`
	MinorCompatLinuxMinDriver   string `json:"minor_compat_linux_min_driver"`
	MinorCompatWindowsMinDriver string `json:"minor_compat_windows_min_driver"`
	Released                    string `json:"released"`
	// LinuxMinDriverNote and WindowsMinDriverNote say why a floor is
	// empty, where a source says so ("N/A in NVIDIA's table ...",
	// "unknown: no minimum driver published ..."): an empty floor is
	// unknown, never "no floor".
	LinuxMinDriverNote   string `json:"linux_min_driver_note,omitempty"`
	WindowsMinDriverNote string `json:"windows_min_driver_note,omitempty"`
	// Status is "facts pending" for a toolkit public evidence shows
	// (ReportedBy says where) that no fact source describes yet.
	Status     string `json:"status,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

// MatrixCUDA lists every toolkit release with its driver floors, newest first.
func MatrixCUDA(ctx context.Context, d *db.DB) ([]CUDARow, error) {
	table, err := d.CUDADrivers(ctx)
	if err != nil {
		return nil, err
	}
	out := []CUDARow{}
	byCUDA := map[string]int{}
	// The table is in CUDA version order; walk it backwards for newest first.
	for i := len(table) - 1; i >= 0; i-- {
		t := table[i]
		if t.Kind != "toolkit" {
			continue
		}
		k, ok := byCUDA[t.CUDA]
		if !ok {
			k = len(out)
			byCUDA[t.CUDA] = k
			out = append(out, CUDARow{CUDA: t.CUDA})
		}
		r := &out[k]
		r.Label, r.Released = max(r.Label, t.Label), max(r.Released, t.ReleasedOn)
		switch t.OS {
		case "linux":
			r.LinuxMinDriver = t.MinDriver
		case "windows":
			r.WindowsMinDriver = t.MinDriver
		}
	}
	// Known toolkit releases without a stated driver floor are rows too
	// (their floors blank: unknown, not "none").
	rels, err := d.Releases(ctx)
	if err != nil {
		return nil, err
	}
	added := false
	// A lead naming a line ("13.5") gives way to a release of that line
	// a fact source names ("13.5.0" from NVIDIA's manifest): one row.
	lines := map[string]bool{}
	for _, rel := range rels {
		if rel.Component == "cuda" && strings.Count(rel.Version, ".") == 2 {
			lines[rel.Version[:strings.LastIndexByte(rel.Version, '.')]] = true
		}
	}
	for _, rel := range rels {
		if rel.Component != "cuda" {
			continue
		}
		if _, ok := byCUDA[rel.Version]; ok {
			continue
		}
		if lines[rel.Version] {
			if by, _, err := d.Attribute(ctx, "cuda", rel.Version, "reported_by"); err != nil {
				return nil, err
			} else if by != "" {
				continue
			}
		}
		label, _, err := d.Attribute(ctx, "cuda", rel.Version, "label")
		if err != nil {
			return nil, err
		}
		byCUDA[rel.Version] = len(out)
		out = append(out, CUDARow{CUDA: rel.Version, Label: label, Released: rel.ReleasedOn})
		added = true
	}
	if added {
		sort.SliceStable(out, func(i, j int) bool { return version.DottedKey(out[i].CUDA) > version.DottedKey(out[j].CUDA) })
	}
	for i := range out {
		if err := floorNotes(ctx, d, &out[i]); err != nil {
			return nil, err
		}
		m := version.MajorText(out[i].CUDA)
		if out[i].MinorCompatLinuxMinDriver, err = MinDriver(ctx, d, m, "linux", "minor_compat"); err != nil {
			return nil, err
		}
		if out[i].MinorCompatWindowsMinDriver, err = MinDriver(ctx, d, m, "windows", "minor_compat"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// floorNotes explains the empty floors of r from the toolkit's
// attributes: min_driver (no floor on either OS), windows_min_driver (no
// Windows floor) and bundled_linux_driver (the manifest ships none).
func floorNotes(ctx context.Context, d *db.DB, r *CUDARow) error {
	if r.LinuxMinDriver != "" && r.WindowsMinDriver != "" {
		return nil
	}
	get := func(key string) (string, error) {
		v, _, err := d.Attribute(ctx, "cuda", r.CUDA, key)
		return v, err
	}
	both, err := get("min_driver")
	if err != nil {
		return err
	}
	if r.Label == "" && r.LinuxMinDriver == "" && r.WindowsMinDriver == "" {
		if r.ReportedBy, err = get("reported_by"); err != nil {
			return err
		}
		if r.ReportedBy != "" {
			r.Status = PendingStatus
		}
	}
	win, err := get("windows_min_driver")
	if err != nil {
		return err
	}
	bundled, err := get("bundled_linux_driver")
	if err != nil {
		return err
	}
	if r.LinuxMinDriver == "" {
		r.LinuxMinDriverNote = both
		if r.LinuxMinDriverNote == "" {
			r.LinuxMinDriverNote = "unknown: no source read states this toolkit's Linux driver"
		}
		if strings.HasPrefix(bundled, "none") {
			r.LinuxMinDriverNote += "; its redist manifest bundles no Linux driver"
		}
		if parts := strings.SplitN(r.CUDA, ".", 3); len(parts) >= 2 {
			branch, _, err := d.Attribute(ctx, "cuda", parts[0]+"."+parts[1], "driver_branch")
			if err != nil {
				return err
			}
			if b, _, _ := strings.Cut(branch, " ("); b != "" {
				r.LinuxMinDriverNote += "; its new features need " + b
			} else if drv, _, err := d.Attribute(ctx, "cuda", parts[0]+"."+parts[1], "compat_driver"); err != nil {
				return err
			} else if drv != "" {
				r.LinuxMinDriverNote += "; its forward-compatibility package ships with driver " + drv
			}
		}
	}
	if r.WindowsMinDriver == "" {
		switch {
		case win != "":
			r.WindowsMinDriverNote = win
		case both != "":
			r.WindowsMinDriverNote = both
		default:
			r.WindowsMinDriverNote = "unknown: no source read states this toolkit's Windows driver"
		}
	}
	for _, n := range []*string{&r.LinuxMinDriverNote, &r.WindowsMinDriverNote} {
		if *n != "" && !strings.HasPrefix(*n, "unknown") {
			*n = "unknown: " + *n
		}
	}
	return nil
}

// CUDNNRow is one row of `cudb matrix cudnn`.
type CUDNNRow struct {
	CUDNN        string   `json:"cudnn"`
	CUDAMajor    string   `json:"cuda_major"`
	CUDAVersions []string `json:"cuda_versions"`
	// CUDAMin/CUDAMax bound the CUDA versions (a range where the source
	// gives one instead of a list).
	CUDAMin             string   `json:"cuda_min,omitempty"`
	CUDAMax             string   `json:"cuda_max,omitempty"`
	LinuxMinDriver      string   `json:"linux_min_driver"`
	WindowsMinDriver    string   `json:"windows_min_driver"`
	ComputeCapabilities []string `json:"compute_capabilities"`
	// ComputeCapabilityMin is the floor older matrices state instead of
	// a list ("SM 3.5 and later"); compute_capabilities is then empty.
	ComputeCapabilityMin string `json:"compute_capability_min,omitempty"`
	// Status is set on the rows of `matrix cudnn` for releases known
	// without a support-matrix row: "support matrix not read" (a redist
	// manifest or an exact build names the release and its CUDA majors)
	// or "facts pending" (only a lead names it). Build, Released and
	// ReportedBy come with it.
	Status     string `json:"status,omitempty"`
	Build      string `json:"build,omitempty"`
	Released   string `json:"released,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

func split(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ";")
}

// MatrixCUDNN lists the cuDNN support-matrix rows, newest first.
func MatrixCUDNN(ctx context.Context, d *db.DB) ([]CUDNNRow, error) {
	rows, err := d.CUDNNSupport(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]CUDNNRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, CUDNNRow{CUDNN: r.CUDNN, CUDAMajor: r.CUDAMajor, CUDAVersions: split(r.CUDAVersions), CUDAMin: r.CUDAMin, CUDAMax: r.CUDAMax,
			LinuxMinDriver: r.MinDriverLinux, WindowsMinDriver: r.MinDriverWindows, ComputeCapabilities: split(r.CCList),
			ComputeCapabilityMin: r.CCMin})
	}
	return out, nil
}

// GPURow is one row of `cudb matrix gpu`.
type GPURow struct {
	Name              string   `json:"name"`
	Aliases           []string `json:"aliases"`
	ComputeCapability string   `json:"compute_capability"`
	Architecture      string   `json:"architecture"`
	// CUDA, CUDASupport and CUDADetail are set by `matrix gpu --cuda`:
	// the toolkit judged; supported, dropped, unsupported or unknown; and
	// why, from the cuda_arch facts.
	CUDA        string `json:"cuda,omitempty"`
	CUDASupport string `json:"cuda_support,omitempty"`
	CUDADetail  string `json:"cuda_detail,omitempty"`
}

// MatrixGPU lists GPUs by name.
func MatrixGPU(ctx context.Context, d *db.DB) ([]GPURow, error) {
	gs, err := d.GPUs(ctx)
	if err != nil {
		return nil, err
	}
	out := []GPURow{}
	for _, g := range gs {
		a := g.Aliases
		if a == nil {
			a = []string{}
		}
		out = append(out, GPURow{Name: g.Name, Aliases: a, ComputeCapability: g.ComputeCapability, Architecture: g.Architecture})
	}
	return out, nil
}

// ArchRow is one row of `cudb matrix arch`.
type ArchRow struct {
	CUDA    string `json:"cuda"`
	SMMin   string `json:"sm_min"`
	SMMax   string `json:"sm_max"`
	Dropped string `json:"dropped"`
}

// MatrixArch lists what each toolkit minor compiles for, newest first.
func MatrixArch(ctx context.Context, d *db.DB) ([]ArchRow, error) {
	rows, err := d.CUDAArchs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ArchRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, ArchRow{CUDA: r.CUDA, SMMin: r.SMMin, SMMax: r.SMMax, Dropped: r.Dropped})
	}
	return out, nil
}

// DriverRow is one row of `cudb matrix driver`.
type DriverRow struct {
	Branch     string `json:"branch"`
	MaxCUDA    string `json:"max_cuda"`
	BranchType string `json:"branch_type"`
	EndOfLife  string `json:"end_of_life"`
	// Released is the branch's first release date where a source states
	// it.
	Released string `json:"released,omitempty"`
	// Status is "facts pending" for a branch public evidence shows
	// (ReportedBy says where) that no fact source describes yet.
	Status     string `json:"status,omitempty"`
	ReportedBy string `json:"reported_by,omitempty"`
}

// MatrixDriver lists driver branches, newest first.
func MatrixDriver(ctx context.Context, d *db.DB) ([]DriverRow, error) {
	rows, err := d.DriverBranches(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]DriverRow, 0, len(rows))
	for _, r := range rows {
		row := DriverRow{Branch: r.Branch, MaxCUDA: r.MaxCUDA, BranchType: r.BranchType, EndOfLife: r.EndOfLife}
		if row.Released, _, err = d.Attribute(ctx, "driver", "R"+r.Branch, "released"); err != nil {
			return nil, err
		}
		if r.MaxCUDA == "" && r.BranchType == "" && r.EndOfLife == "" {
			if row.ReportedBy, _, err = d.Attribute(ctx, "driver", "R"+r.Branch, "reported_by"); err != nil {
				return nil, err
			}
			if row.ReportedBy != "" {
				row.Status = PendingStatus
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// DroppedText names what a toolkit dropped, for messages.
func (r ArchRow) DroppedText() string {
	if r.Dropped == "" {
		return ""
	}
	d, _, _ := strings.Cut(r.Dropped, " (")
	return "; it dropped " + strings.ReplaceAll(d, ";", ", ")
}
