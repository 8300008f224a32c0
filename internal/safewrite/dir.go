package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DirOptions say when Dir may replace an existing folder.
type DirOptions struct {
	// Marker is the file Dir writes into every folder it makes; a
	// non-empty folder without it is someone else's and is refused.
	Marker string
	// MarkerText is the marker's content.
	MarkerText string
	// Force replaces a non-empty folder without the marker.
	Force bool
}

// Dir makes path a folder holding exactly what fill writes. fill gets a
// new temporary folder beside path; when it succeeds, the marker is
// added and the folder renamed into place (an old one is moved aside
// first and removed after). When fill fails (a full disk, a cancelled
// build), the temporary folder is removed and path is left as it was:
// there is never a partial tree at path.
//
// Refused: the file-system root, the current folder or one holding it,
// a path that is a symbolic link or not a folder, and a non-empty folder
// without the marker unless opts.Force.
func Dir(path string, opts DirOptions, fill func(tmp string) error) (err error) {
	if opts.Marker == "" {
		return errors.New("safewrite.Dir needs a marker name")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if filepath.Dir(abs) == abs {
		return refused("refusing to replace %s: it is the root of the file system", path)
	}
	if wd, werr := os.Getwd(); werr == nil {
		if rel, rerr := filepath.Rel(abs, wd); rerr == nil && (rel == "." || !startsWithDotDot(rel)) {
			return refused("refusing to replace %s: it is the current folder or holds it", path)
		}
	}
	exists := false
	switch st, lerr := os.Lstat(abs); {
	case errors.Is(lerr, fs.ErrNotExist):
	case lerr != nil:
		return lerr
	case st.Mode()&fs.ModeSymlink != 0:
		return refused("%s is a symbolic link: give the folder it points to", path)
	case !st.IsDir():
		return refused("%s exists and is a %s, not a folder", path, kind(st.Mode()))
	default:
		exists = true
		if !opts.Force {
			entries, rerr := os.ReadDir(abs)
			if rerr != nil {
				return rerr
			}
			if len(entries) > 0 {
				if _, merr := os.Lstat(filepath.Join(abs, opts.Marker)); merr != nil {
					return refused("%s is not empty and was not made by cudb (it holds no %s): --force replaces it", path, opts.Marker)
				}
			}
		}
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = os.WriteFile(filepath.Join(tmp, opts.Marker), []byte(opts.MarkerText), 0o644); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if !exists {
		return os.Rename(tmp, abs)
	}
	old := tmp + ".old"
	if err = os.Rename(abs, old); err != nil {
		return err
	}
	if err = os.Rename(tmp, abs); err != nil {
		if rerr := os.Rename(old, abs); rerr != nil {
			return fmt.Errorf("%w (and the old folder stays at %s: %v)", err, old, rerr)
		}
		return err
	}
	return os.RemoveAll(old)
}

// RefusedError is Dir refusing its target (before writing anything).
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

func refused(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

func startsWithDotDot(rel string) bool {
	return rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator)
}
