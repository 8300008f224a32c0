package query

import (
	"context"
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
}

// MatrixCUDA lists every toolkit release with its driver floors, newest first.
func MatrixCUDA(ctx context.Context, d *db.DB) ([]CUDARow, error) {
	rows, err := d.SQL.QueryContext(ctx, `SELECT t.cuda, max(t.label), max(CASE WHEN t.os='linux' THEN t.min_driver END), max(CASE WHEN t.os='windows' THEN t.min_driver END),
		max(t.released_on), max(t.cuda_key)
		FROM cuda_driver t WHERE t.kind = 'toolkit' GROUP BY t.cuda ORDER BY max(t.cuda_key) DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []CUDARow{}
	for rows.Next() {
		var r CUDARow
		var lin, win *string
		var key string
		if err := rows.Scan(&r.CUDA, &r.Label, &lin, &win, &r.Released, &key); err != nil {
			return nil, err
		}
		if lin != nil {
			r.LinuxMinDriver = *lin
		}
		if win != nil {
			r.WindowsMinDriver = *win
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
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

// CUDNNRow is one row of `cudb matrix cudnn`.
type CUDNNRow struct {
	CUDNN               string   `json:"cudnn"`
	CUDAMajor           string   `json:"cuda_major"`
	CUDAVersions        []string `json:"cuda_versions"`
	LinuxMinDriver      string   `json:"linux_min_driver"`
	WindowsMinDriver    string   `json:"windows_min_driver"`
	ComputeCapabilities []string `json:"compute_capabilities"`
}

func split(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ";")
}

// MatrixCUDNN lists the cuDNN support-matrix rows, newest first.
func MatrixCUDNN(ctx context.Context, d *db.DB) ([]CUDNNRow, error) {
	rows, err := d.SQL.QueryContext(ctx, `SELECT cudnn, cuda_major, cuda_versions, min_driver_linux, min_driver_windows, cc_list FROM cudnn_support ORDER BY cudnn_key DESC, cuda_major DESC, cuda_versions DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []CUDNNRow{}
	for rows.Next() {
		var r CUDNNRow
		var vers, ccs string
		if err := rows.Scan(&r.CUDNN, &r.CUDAMajor, &vers, &r.LinuxMinDriver, &r.WindowsMinDriver, &ccs); err != nil {
			return nil, err
		}
		r.CUDAVersions, r.ComputeCapabilities = split(vers), split(ccs)
		out = append(out, r)
	}
	return out, rows.Err()
}

// GPURow is one row of `cudb matrix gpu`.
type GPURow struct {
	Name              string   `json:"name"`
	Aliases           []string `json:"aliases"`
	ComputeCapability string   `json:"compute_capability"`
	Architecture      string   `json:"architecture"`
}

// MatrixGPU lists GPUs by name.
func MatrixGPU(ctx context.Context, d *db.DB) ([]GPURow, error) {
	gs, err := allGPUs(ctx, d)
	if err != nil {
		return nil, err
	}
	out := []GPURow{}
	for _, g := range gs {
		a := g.Aliases
		if a == nil {
			a = []string{}
		}
		out = append(out, GPURow{g.Name, a, g.ComputeCapability, g.Architecture})
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
	rows, err := d.SQL.QueryContext(ctx, `SELECT cuda, sm_min, sm_max, dropped FROM cuda_arch ORDER BY cuda_key DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ArchRow{}
	for rows.Next() {
		var r ArchRow
		if err := rows.Scan(&r.CUDA, &r.SMMin, &r.SMMax, &r.Dropped); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// DriverRow is one row of `cudb matrix driver`.
type DriverRow struct {
	Branch     string `json:"branch"`
	MaxCUDA    string `json:"max_cuda"`
	BranchType string `json:"branch_type"`
	EndOfLife  string `json:"end_of_life"`
}

// MatrixDriver lists driver branches, newest first.
func MatrixDriver(ctx context.Context, d *db.DB) ([]DriverRow, error) {
	rows, err := d.SQL.QueryContext(ctx, `SELECT branch, max_cuda, branch_type, end_of_life FROM driver_branch ORDER BY branch_key DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DriverRow{}
	for rows.Next() {
		var r DriverRow
		if err := rows.Scan(&r.Branch, &r.MaxCUDA, &r.BranchType, &r.EndOfLife); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
