//go:build cudbtest

package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/fakesource"
)

// A binary built with -tags cudbtest knows two fake sources besides the
// real ones, and with CUDB_REFRESH_TEST_DELAY set announces each refresh
// step on stderr and sleeps there (only at CUDB_REFRESH_TEST_STEP when
// that is set), so the kill test can SIGKILL it between any two steps.
// Release builds contain none of this.
func init() {
	allSources = func() []scraper.Source {
		return append(scraper.Sources(), fakesource.New("fake-a"), fakesource.New("fake-b"))
	}
	if v := os.Getenv("CUDB_REFRESH_TEST_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "CUDB_REFRESH_TEST_DELAY: %v\n", err)
			os.Exit(2)
		}
		only := os.Getenv("CUDB_REFRESH_TEST_STEP")
		scraper.TestHook = func(step string) {
			fmt.Fprintf(os.Stderr, "testhook: %s\n", step)
			if only == "" || only == step {
				time.Sleep(d)
			}
		}
	}
}
