// Package figures computes the numbers the documentation states and finds
// where the documents state them (internal/docfigures does the writing).
package figures

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/cmd/cudb/internal/site"
	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/docfigures"
)

// Rules place figures inside code blocks, where a marker would show.
var Rules = sync.OnceValue(func() []docfigures.Rule {
	return []docfigures.Rule{
		{File: "docs/http.md", Figure: "schema-version", Pattern: regexp.MustCompile(`"schema_version": "?(\d+)`)},
		{File: "docs/json.md", Figure: "schema-version", Pattern: regexp.MustCompile(`(?:"schema_version": "|\(schema )(\d+)`)},
		{File: "README.md", Figure: "make-help", Pattern: regexp.MustCompile("(?s)## make help\n\n```\n(.*?)```")},
	}
})

// Compute generates the site from the embedded database into a temporary
// folder and measures it, and counts the tests under root.
func Compute(ctx context.Context, root string) (map[string]string, error) {
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded database")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	dir, err := os.MkdirTemp("", "cudb-docs-figures-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := site.Generate(ctx, d, dir); err != nil {
		return nil, err
	}
	figs, err := site.Figures(dir)
	if err != nil {
		return nil, err
	}
	figs["schema-version"] = strconv.Itoa(db.SchemaVersion)
	// The README's copy of `make help`.
	help, err := exec.CommandContext(ctx, "make", "-s", "--no-print-directory", "-C", root, "help").Output()
	if err != nil {
		return nil, fmt.Errorf("make help: %w", err)
	}
	figs["make-help"] = string(help)
	counts, err := CountTests(root)
	if err != nil {
		return nil, err
	}
	for k, v := range counts {
		figs[k] = strconv.Itoa(v)
	}
	return figs, nil
}

var testFuncRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^func (Test|Fuzz|Benchmark)[A-Z0-9_]\w*\((t|f|b|tb) \*testing\.(T|F|B)\)`)
})

// CountTests counts the test, fuzz and benchmark functions in the Go test
// files under root, and the packages that have tests.
func CountTests(root string) (map[string]int, error) {
	counts := map[string]int{"tests": 0, "fuzz-targets": 0, "benchmarks": 0, "test-packages": 0}
	pkgs := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			m := testFuncRE().FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			switch m[1] {
			case "Test":
				if strings.HasPrefix(sc.Text(), "func TestMain(") {
					continue
				}
				counts["tests"]++
				pkgs[filepath.Dir(p)] = true
			case "Fuzz":
				counts["fuzz-targets"]++
			case "Benchmark":
				counts["benchmarks"]++
			}
		}
		return sc.Err()
	})
	counts["test-packages"] = len(pkgs)
	return counts, err
}

// Update applies figs to every document under root that states a figure
// (README.md and docs/*.md), writing them when write is set, and returns
// what differed.
func Update(root string, figs map[string]string, write bool) ([]docfigures.Drift, error) {
	names := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, p := range docs {
		names = append(names, filepath.ToSlash(filepath.Join("docs", filepath.Base(p))))
	}
	read := func(n string) (string, error) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(n)))
		return string(b), err
	}
	files, err := docfigures.Files(names, read, Rules())
	if err != nil {
		return nil, err
	}
	var all []docfigures.Drift
	for _, n := range files {
		text, err := read(n)
		if err != nil {
			return nil, err
		}
		out, drift, err := docfigures.Apply(n, text, figs, Rules())
		if err != nil {
			return nil, err
		}
		all = append(all, drift...)
		if write && out != text {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(n)), []byte(out), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return all, nil
}
