package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
				if err := onlyListed(path, abs, opts); err != nil {
					return err
				}
			}
		}
	}
	parent := filepath.Dir(abs)
	// A mistyped path is not a folder to create: the parent must exist.
	if st, perr := os.Stat(parent); perr != nil || !st.IsDir() {
		return refused("folder %s does not exist: create it first, or check --out", parent)
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
	manifest, err := listFiles(tmp)
	if err != nil {
		return err
	}
	if err = os.WriteFile(filepath.Join(tmp, opts.Marker), []byte(opts.MarkerText+manifestHeader+strings.Join(manifest, "\n")+"\n"), 0o644); err != nil {
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

// manifestHeader starts the list of files in a marker: the folder is
// replaced (its files deleted) only when it holds nothing else.
const manifestHeader = "files:\n"

// listFiles lists the regular files under dir, slash-separated, sorted.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

// onlyListed refuses a folder whose marker is not a manifest Dir wrote,
// or which holds a file the manifest does not list (one added by hand
// since): replacing it would delete what is not ours.
func onlyListed(path, abs string, opts DirOptions) error {
	b, err := os.ReadFile(filepath.Join(abs, opts.Marker))
	text := string(b)
	if err != nil || !strings.HasPrefix(text, opts.MarkerText+manifestHeader) {
		return refused("%s holds a %s that is not the manifest cudb writes (it lists no files): --force replaces the folder", path, opts.Marker)
	}
	listed := map[string]bool{opts.Marker: true}
	for _, l := range strings.Split(strings.TrimPrefix(text, opts.MarkerText+manifestHeader), "\n") {
		if l != "" {
			listed[l] = true
		}
	}
	have, err := listFiles(abs)
	if err != nil {
		return err
	}
	var extra []string
	for _, f := range have {
		if !listed[f] {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		if len(extra) > 5 {
			extra = append(extra[:5], fmt.Sprintf("and %d more", len(extra)-5))
		}
		return refused("%s holds files cudb did not write (%s): replacing it would delete them; move them out, or --force replaces the folder", path, strings.Join(extra, ", "))
	}
	return nil
}
