// Command benchstart measures cudb's whole-process start-up against a
// trivial Go binary built in the same run: each case is run in pairs
// (trivial, cudb, trivial, cudb, …) so that whatever else the machine is
// doing weighs on both sides alike, and the median of the per-pair ratios
// is the figure docs/benchmarks.md records.
//
//	go run ./cmd/cudb/internal/benchstart            # make bench-start
//	go run ./cmd/cudb/internal/benchstart -pairs 31 -case resolve
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A Case is one cudb command line, with the exit statuses it may end with
// and the ratio to the trivial binary it should stay within.
type Case struct {
	Name   string
	Args   []string
	Exits  []int // accepted exit statuses
	Target float64
	// Floor runs the floor binary (./floor: open the embedded database,
	// one indexed read) instead of cudb: the reference for what any
	// SQLite-backed answer costs.
	Floor bool
}

// Cases are what `make bench-start` measures, in order. The report is a
// real collect_env paste from the report parsers' fixtures.
var Cases = []Case{
	{Name: "floor", Exits: []int{0}, Floor: true},
	{Name: "version", Args: []string{"version"}, Exits: []int{0}},
	{Name: "resolve", Args: []string{"resolve", "torch==2.1"}, Exits: []int{0}, Target: 3},
	{Name: "verify-from", Args: []string{"verify", "--from", "internal/host/report/testdata/collect_env_new.txt"}, Exits: []int{0, 3}, Target: 5},
	{Name: "pin", Args: []string{"pin", "torch==2.1"}, Exits: []int{0}},
}

const trivialSource = `package main

import "fmt"

func main() { fmt.Println("ok") }
`

// Result is one case's measurement.
type Result struct {
	Case                  Case
	Trivial, Cudb         []time.Duration // one per pair, in run order
	MedianTrivial, Median time.Duration
	Ratio                 float64 // median of the per-pair ratios
	RatioOfMedians        float64
}

func main() {
	pairs := flag.Int("pairs", 21, "alternating (trivial, cudb) pairs per case (at least 15)")
	bin := flag.String("cudb", "", "cudb binary to measure (default: build ./cmd/cudb into a temporary directory)")
	only := flag.String("case", "", "measure only these cases (comma-separated: "+caseNames()+")")
	flag.Parse()
	if err := run(os.Stdout, *pairs, *bin, *only); err != nil {
		fmt.Fprintln(os.Stderr, "benchstart:", err)
		os.Exit(1)
	}
}

func caseNames() string {
	var names []string
	for _, c := range Cases {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

func run(w io.Writer, pairs int, bin, only string) error {
	if pairs < 15 {
		return fmt.Errorf("-pairs %d: at least 15 pairs are needed for a stable median", pairs)
	}
	cases, err := pick(only)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "cudb-benchstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	trivial, err := buildTrivial(dir)
	if err != nil {
		return err
	}
	if bin == "" {
		bin = filepath.Join(dir, "cudb")
		if err := goBuild(bin, "./cmd/cudb"); err != nil {
			return err
		}
	}
	floor := filepath.Join(dir, "floor")
	if err := goBuild(floor, "./cmd/cudb/internal/benchstart/floor"); err != nil {
		return err
	}
	if fi, err := os.Stat(bin); err == nil {
		fmt.Fprintf(w, "cudb binary: %.1f MB; %d pairs per case\n\n", float64(fi.Size())/1e6, pairs)
	}
	fmt.Fprintf(w, "%-12s %10s %10s %14s %16s %s\n", "case", "trivial", "cudb", "median ratio", "ratio of medians", "target")
	failed := false
	for _, c := range cases {
		b := bin
		if c.Floor {
			b = floor
		}
		r, err := measure(c, trivial, b, pairs)
		if err != nil {
			return err
		}
		verdict := "-"
		if c.Target > 0 {
			verdict = fmt.Sprintf("≤ %.1f ok", c.Target)
			if r.Ratio > c.Target {
				verdict = fmt.Sprintf("≤ %.1f MISSED", c.Target)
				failed = true
			}
		}
		fmt.Fprintf(w, "%-12s %10s %10s %14.2f %16.2f %s\n", c.Name, ms(r.MedianTrivial), ms(r.Median), r.Ratio, r.RatioOfMedians, verdict)
	}
	fmt.Fprintln(w, "\nmedian ratio: the median over pairs of cudb/trivial, each pair run back to back.")
	fmt.Fprintln(w, "floor: a binary that only opens the embedded database and reads one component's versions.")
	if failed {
		return errors.New("a case missed its target")
	}
	return nil
}

func pick(only string) ([]Case, error) {
	if only == "" {
		return Cases, nil
	}
	var out []Case
	for _, name := range strings.Split(only, ",") {
		i := slices.IndexFunc(Cases, func(c Case) bool { return c.Name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("unknown case %q (cases: %s)", name, caseNames())
		}
		out = append(out, Cases[i])
	}
	return out, nil
}

// goBuild builds pkg as `make build` builds cudb: static (no cgo), like
// the trivial binary, so that neither side pays a dynamic loader.
func goBuild(out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("failed to build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

func buildTrivial(dir string) (string, error) {
	src := filepath.Join(dir, "trivial")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module trivial\n\ngo 1.22\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(trivialSource), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "trivial-bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("failed to build the trivial binary: %v\n%s", err, out)
	}
	return bin, nil
}

// measure runs one warm-up of each side, then the pairs.
func measure(c Case, trivial, bin string, pairs int) (Result, error) {
	r := Result{Case: c}
	for i := -1; i < pairs; i++ {
		t, err := timeRun(trivial, nil, []int{0})
		if err != nil {
			return r, err
		}
		d, err := timeRun(bin, c.Args, c.Exits)
		if err != nil {
			return r, fmt.Errorf("%s: %w", c.Name, err)
		}
		if i >= 0 {
			r.Trivial = append(r.Trivial, t)
			r.Cudb = append(r.Cudb, d)
		}
	}
	ratios := make([]float64, pairs)
	for i := range ratios {
		ratios[i] = float64(r.Cudb[i]) / float64(r.Trivial[i])
	}
	r.MedianTrivial, r.Median = median(r.Trivial), median(r.Cudb)
	r.Ratio = medianF(ratios)
	r.RatioOfMedians = float64(r.Median) / float64(r.MedianTrivial)
	return r, nil
}

func timeRun(bin string, args []string, exits []int) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run() // stdout is nil: /dev/null, as when piped away
	d := time.Since(start)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return 0, err
	}
	if !slices.Contains(exits, code) {
		return 0, fmt.Errorf("%s %s exited %d: %s", filepath.Base(bin), strings.Join(args, " "), code, stderr.String())
	}
	return d, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func medianF(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
