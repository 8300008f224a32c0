// Command docsfigures (make docs-figures) computes the figures the
// documentation states and writes them in: page weight and site size from a
// site generated from the embedded database, the schema version, and the
// test counts. With -check it writes nothing and exits 1 when a document
// states another value (TestDocsFiguresCurrent runs the same check).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cudb/cudb/cmd/cudb/internal/docsfigures/figures"
)

func main() {
	check := flag.Bool("check", false, "write nothing; exit 1 when a document states another value")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	figs, err := figures.Compute(context.Background(), *root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docs-figures:", err)
		os.Exit(1)
	}
	drift, err := figures.Update(*root, figs, !*check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docs-figures:", err)
		os.Exit(1)
	}
	for _, d := range drift {
		fmt.Println(d)
	}
	if *check && len(drift) > 0 {
		fmt.Fprintln(os.Stderr, "docs-figures: stale figures; run make docs-figures")
		os.Exit(1)
	}
	if !*check {
		fmt.Printf("docs-figures: %d figures, %d updated (%s)\n", len(figs), len(drift), filepath.Clean(*root))
	}
}
