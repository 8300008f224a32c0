// Command floor is bench-start's reference for what any SQLite-backed
// answer costs: it starts, opens the embedded database in place and reads
// one component's versions (one indexed query, tens of rows), and prints
// how many it found. cudb cannot start faster than this.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
)

func main() {
	ctx := context.Background()
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded database")
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	vs, err := d.Versions(ctx, frameworks.Torch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Println(len(vs))
}
