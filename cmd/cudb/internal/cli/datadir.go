package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/internal/errs"
)

// IsDataDir reports whether dir looks like a cudb data directory: it
// holds sources/ or manifest.json.
func IsDataDir(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, datadir.SourcesDir)); err == nil && st.IsDir() {
		return true
	}
	st, err := os.Stat(filepath.Join(dir, datadir.ManifestFile))
	return err == nil && st.Mode().IsRegular()
}

// openDataDir applies refresh's --data policy: an existing cudb data
// directory is used as it is; with init, a directory that does not exist
// (its parent must) is created, and an existing empty one is adopted;
// anything else is refused, so a typo never becomes a new folder nor a
// database built without overrides.yaml. created says the directory was
// made here (a failed refresh removes it again). A dry run creates
// nothing.
func openDataDir(dir string, init, dryRun bool) (created bool, err error) {
	hint := fmt.Sprintf("cudb refresh --data %s --init (to start a new, empty data directory)", dir)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !init {
			return false, errs.Errorf(errs.CodeUsage, "data directory %s does not exist", dir).WithHint("%s", hint)
		}
		parent := filepath.Dir(filepath.Clean(dir))
		if pst, perr := os.Stat(parent); perr != nil || !pst.IsDir() {
			return false, errs.Errorf(errs.CodeUsage, "cannot create data directory %s: %s does not exist", dir, parent).
				WithHint("create %s first, or choose another --data", parent)
		}
		if dryRun {
			return false, nil
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return false, fmt.Errorf("failed to create data directory %s: %w", dir, err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("failed to read data directory %s: %w", dir, err)
	case !st.IsDir():
		return false, errs.Errorf(errs.CodeUsage, "--data %s is not a directory", dir).WithHint("cudb refresh --data DIR")
	case IsDataDir(dir):
		return false, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("failed to read data directory %s: %w", dir, err)
	}
	if len(ents) > 0 && !onlyRefreshLeftovers(ents) {
		return false, errs.Errorf(errs.CodeUsage, "%s is not a cudb data directory (no sources/ or manifest.json) and is not empty", dir).
			WithHint("cudb refresh --data DIR (the folder holding sources/, or a new one with --init)")
	}
	if len(ents) > 0 && !init {
		// A `refresh --init` killed before its first commit leaves its
		// lock, staging folder or fetch cache: running it again resumes.
		return false, errs.Errorf(errs.CodeUsage, "data directory %s holds only what an interrupted `cudb refresh --init` left (%s)", dir, entryNames(ents)).
			WithHint("cudb refresh --data %s --init (resumes it: the leftovers are recovered or removed)", dir)
	}
	if !init {
		return false, errs.Errorf(errs.CodeUsage, "data directory %s is empty", dir).WithHint("%s", hint)
	}
	return false, nil
}

// onlyRefreshLeftovers reports whether every entry is one a refresh
// writes before its first commit (or a killed one leaves): the lock, the
// staging folder, the commit journal, the fetch cache, temporary files.
func onlyRefreshLeftovers(ents []os.DirEntry) bool {
	for _, e := range ents {
		n := e.Name()
		switch {
		case n == datadir.LockName, n == ".refresh-staging", n == ".refresh-commit.json", n == ".fetch-cache.json":
		case strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-"):
		case strings.HasPrefix(n, ".cudb-build-"):
		default:
			return false
		}
	}
	return true
}

func entryNames(ents []os.DirEntry) string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return strings.Join(out, ", ")
}
