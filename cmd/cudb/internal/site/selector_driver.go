package site

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/usecase"
)

// driverMaxText starts the words of nvidia.CheckDriverOS that name the
// newest CUDA a driver runs ("driver 418.39 supports CUDA up to 10.1; …").
const driverMaxText = "supports CUDA up to "

// FillDriverReason puts a row's words back into a shared driver verdict:
// the driver typed and the newest CUDA it runs (the page's verdict()).
func FillDriverReason(reason, driver, max string) string {
	return strings.ReplaceAll(strings.ReplaceAll(reason, "{max}", max), "{driver}", driver)
}

// drivers fills the driver table: for each OS, every value a driver is
// compared with (the toolkit and minor-version floors of every CUDA
// release, and the first driver of each branch and of the one after it,
// where the branch's newest CUDA changes) splits the drivers into ranges;
// the lowest driver of each range is judged against every CUDA version
// the stacks use with usecase.CheckDriver, and neighbouring ranges with
// the same verdicts merge.
func (b *selectorBuilder) drivers(ctx context.Context) error {
	t := &b.sel.Driver
	t.Pattern, t.MinMajor, t.MaxMajor = usecase.DriverPattern, usecase.DriverMajorMin, usecase.DriverMajorMax
	t.OS = map[string]DriverStep{}
	var cudas []string
	for c := range b.cudas {
		cudas = append(cudas, c)
	}
	// "10" and "10.0" compare equal: the text breaks the tie, so the
	// table is the same bytes on every run (cudas came from a map).
	slices.SortFunc(cudas, func(x, y string) int {
		if c := version.CompareDottedText(x, y); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	table, err := b.d.CUDADrivers(ctx)
	if err != nil {
		return err
	}
	branches, err := b.d.DriverBranches(ctx)
	if err != nil {
		return err
	}
	rows := map[string]int{}
	for _, os := range selectorOS {
		var breaks []string
		add := func(v string) {
			if _, err := usecase.ParseDriver(v); err == nil && !slices.ContainsFunc(breaks, func(x string) bool { return version.CompareDottedText(x, v) == 0 }) {
				breaks = append(breaks, v)
			}
		}
		for _, r := range table {
			if r.OS == os && r.MinDriver != "" {
				add(r.MinDriver)
			}
		}
		for _, br := range branches {
			if n, err := strconv.Atoi(version.MajorText(br.Branch)); err == nil {
				add(strconv.Itoa(n))
				add(strconv.Itoa(n + 1))
			}
		}
		slices.SortFunc(breaks, version.CompareDottedText)
		step := DriverStep{}
		for i := 0; i <= len(breaks); i++ {
			rep := strconv.Itoa(usecase.DriverMajorMin)
			if i > 0 {
				rep = breaks[i-1]
			}
			row, err := b.driverRow(ctx, rep, os, cudas, rows)
			if err != nil {
				return err
			}
			if i > 0 && step.Rows[len(step.Rows)-1] == row {
				continue // same verdicts as the range below: no break here
			}
			if i > 0 {
				step.Breaks = append(step.Breaks, breaks[i-1])
			}
			step.Rows = append(step.Rows, row)
		}
		t.OS[os] = step
	}
	return nil
}

// driverRow judges driver drv on os against every CUDA version and
// returns the index of that row of verdicts, with the driver's own
// version in the texts replaced by {driver}.
func (b *selectorBuilder) driverRow(ctx context.Context, drv, os string, cudas []string, rows map[string]int) (int, error) {
	m := map[string]int{}
	picks := make([]DriverPick, len(cudas))
	// The newest CUDA the driver runs, as the texts name it: the row's
	// own word, {max} in its picks, so that one pick serves every row.
	max := ""
	for j, c := range cudas {
		var p DriverPick
		v, err := usecase.CheckDriver(ctx, b.d, drv, c, os)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			p = DriverPick{Reason: err.Error()}
		} else {
			// With Unknown set (no floor to judge by) the page keeps the
			// stack as unknown, the way resolve does.
			p = DriverPick{OK: v.OK, Note: v.Note, Reason: v.Reason, Unknown: v.Unknown}
		}
		p.Reason = strings.ReplaceAll(p.Reason, "driver "+drv+" ", "driver {driver} ")
		if max == "" {
			if _, rest, ok := strings.Cut(p.Reason, driverMaxText); ok {
				max, _, _ = strings.Cut(rest, ";")
			}
		}
		picks[j] = p
	}
	key := strings.Builder{}
	key.WriteString(max + "|")
	for j, c := range cudas {
		p := picks[j]
		if max != "" {
			p.Reason = strings.ReplaceAll(p.Reason, driverMaxText+max+";", driverMaxText+"{max};")
		}
		i, ok := b.driverPicks[p]
		if !ok {
			i = len(b.sel.Driver.Picks)
			b.driverPicks[p] = i
			b.sel.Driver.Picks = append(b.sel.Driver.Picks, p)
		}
		m[c] = i
		fmt.Fprintf(&key, "%s=%d;", c, i)
	}
	if i, ok := rows[key.String()]; ok {
		return i, nil
	}
	rows[key.String()] = len(b.sel.Driver.Verdicts)
	b.sel.Driver.Verdicts = append(b.sel.Driver.Verdicts, m)
	b.sel.Driver.VerdictMax = append(b.sel.Driver.VerdictMax, max)
	return rows[key.String()], nil
}
