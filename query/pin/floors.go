package pin

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
)

// driverFloor is the newest of the stack's driver floors: resolve's when
// the NVIDIA facts gave one, else the builds' own minimums, else the
// CUDA toolkit table's floor for the stack's CUDA minor.
func driverFloor(ctx context.Context, d *db.DB, s *query.Stack, parts []pinPart) (string, error) {
	if s.Driver != nil && s.Driver.LinuxMin != "" {
		t := ">= " + s.Driver.LinuxMin + " (Linux)"
		if s.Driver.WindowsMin != "" {
			t += ", >= " + s.Driver.WindowsMin + " (Windows)"
		}
		if s.Driver.MinorCompatLinuxMin != "" && s.Driver.MinorCompatLinuxMin != s.Driver.LinuxMin {
			t += "; >= " + s.Driver.MinorCompatLinuxMin + " under minor-version compatibility"
		}
		return t, nil
	}
	best := ""
	for _, pt := range parts {
		for _, b := range pt.stack.Builds() {
			for _, r := range b.Reqs {
				if r.Needs == "driver" && r.Kind == db.KindMinimum {
					v := strings.TrimLeft(r.Spec, ">=~ ")
					if best == "" || version.DottedKey(v) > version.DottedKey(best) {
						best = v
					}
				}
			}
		}
	}
	if best != "" {
		return ">= " + best + " (Linux, from the framework's documented minimum)", nil
	}
	if s.CUDA == "" {
		return "none (no CUDA)", nil
	}
	table, err := d.CUDADrivers(ctx)
	if err != nil {
		return "", fmt.Errorf("failed to read CUDA driver floors: %w", err)
	}
	floor := ""
	for _, t := range table {
		if t.Kind != "toolkit" || t.OS != "linux" || t.MinDriver == "" {
			continue
		}
		if sameMinor(t.CUDA, s.CUDA) && (floor == "" || version.DottedKey(t.MinDriver) < version.DottedKey(floor)) {
			floor = t.MinDriver
		}
	}
	if floor == "" {
		return "unknown (the database holds no driver floor for CUDA " + s.CUDA + ")", nil
	}
	return ">= " + floor + " (Linux, the CUDA " + version.PaddedMinor(s.CUDA) + " toolkit floor)", nil
}

// cudaFull is the newest released toolkit of the stack's CUDA minor in
// the CUDA facts (12.1 → 12.1.1), which is what image tags name.
func cudaFull(ctx context.Context, d *db.DB, cuda string) (full, rule string, err error) {
	table, err := d.CUDADrivers(ctx)
	if err != nil {
		return "", "", fmt.Errorf("failed to read CUDA releases: %w", err)
	}
	for i := len(table) - 1; i >= 0; i-- { // newest first
		c, label := table[i].CUDA, table[i].Label
		// Previews and releases NVIDIA's table does not list have no
		// images.
		if table[i].Kind != "toolkit" || !sameMinor(c, cuda) || label == "" || strings.Contains(strings.ToLower(label), "preview") {
			continue
		}
		if len(strings.Split(c, ".")) >= 3 {
			return c, "the newest CUDA " + version.PaddedMinor(cuda) + " release in the CUDA facts (" + label + ")", nil
		}
	}
	return version.PaddedMinor(cuda) + ".0", "no CUDA " + version.PaddedMinor(cuda) + " release in the CUDA facts: assumed the GA release", nil
}

func sameMinor(a, b string) bool { return version.PaddedMinor(a) == version.PaddedMinor(b) }
