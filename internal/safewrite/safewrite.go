// Package safewrite owns how cudb writes what a user names with -o,
// --markdown or --out: a file is replaced whole (readers see the old
// bytes or the new ones) and what is not a regular file is never
// replaced. A character device or a FIFO (/dev/stdout, /dev/null, a
// named pipe) is written through, as a shell redirection would; anything
// else that is not a regular file is refused with an error saying what
// it is. A folder (gen site) is filled beside its target and renamed
// into place, so a failure leaves no partial tree.
package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File writes b to path.
//
//   - A missing path is created (0644) through a temporary file in the
//     same folder and a rename; the folder must exist.
//   - A regular file is replaced the same way, keeping its permissions.
//     A symbolic link to one replaces the file it points to; the link
//     stays.
//   - A character device or a FIFO (directly or through a link) is opened
//     for writing and written through; its write error (/dev/full: no
//     space left on device) is returned. It is never replaced.
//   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are the
//     process's own open files: written through (truncated, as a shell's
//     > would), whatever they are.
//   - Anything else (a folder, a socket, a block device) is refused.
func File(path string, b []byte) error { return FileWith(path, b, FileOptions{}) }

// FileOptions tune FileWith.
type FileOptions struct {
	// Force writes a regular file that has other hard links, or whose
	// owner cannot be kept, in place (truncated and rewritten: every link
	// sees the new bytes, its owner and mode stay) instead of refusing it.
	Force bool
}

// LinkedError is FileWith refusing a target that is not its own alone: a
// file with other hard links (a rename would split them), or one whose
// owner only root could give the new file.
type LinkedError struct{ Reason string }

func (e *LinkedError) Error() string { return e.Reason }

// FileWith is File; a regular file keeps its owner as well as its mode,
// and one with other hard links, or whose owner cannot be kept, is
// refused unless opts.Force, which writes it in place.
func FileWith(path string, b []byte, opts FileOptions) error {
	if isDescriptor(path) {
		// /dev/stdout, /dev/fd/N: the process's own open file, whatever
		// it is; written as a shell's > would, never renamed over.
		return through(path, b, os.O_TRUNC)
	}
	st, err := os.Stat(path) // follows links: the kind of the final target
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link to nothing: refusing to replace the link", path)
		}
		dir := filepath.Dir(path)
		if dst, derr := os.Stat(dir); derr != nil || !dst.IsDir() {
			return fmt.Errorf("folder %s does not exist", dir)
		}
		return replace(path, b, nil)
	case err != nil:
		return err
	}
	mode := st.Mode()
	switch {
	case mode.IsRegular():
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("cannot resolve %s: %w", path, err)
		}
		if _, _, links, _ := fileOwner(st); links > 1 {
			if !opts.Force {
				return &LinkedError{fmt.Sprintf("%s has %d hard links: replacing it would split them (--force writes it in place)", path, links)}
			}
			return through(target, b, os.O_TRUNC)
		}
		err = replace(target, b, st)
		var le *LinkedError
		if errors.As(err, &le) && opts.Force {
			return through(target, b, os.O_TRUNC)
		}
		return err
	case mode&fs.ModeCharDevice != 0 || mode&fs.ModeNamedPipe != 0:
		return through(path, b, 0)
	case mode.IsDir():
		return fmt.Errorf("%s is a folder", path)
	default:
		return fmt.Errorf("%s is not a regular file, a character device or a FIFO (%s): refusing to write to it", path, kind(mode))
	}
}

// isDescriptor reports whether path names one of the process's open
// files rather than a file of its own.
func isDescriptor(path string) bool {
	p := filepath.Clean(path)
	return p == "/dev/stdout" || p == "/dev/stderr" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// through writes b into an existing device, FIFO or open file. O_CREATE
// is not given: if the node vanished since Stat, nothing is created in
// its place.
func through(path string, b []byte, flags int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|flags, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return bare(err)
	}
	return bare(f.Close())
}

// bare drops the "write PATH:" a *fs.PathError adds: callers name the
// path themselves.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// replace writes b to a temporary file beside path and renames it over
// path: readers see the old file or the new one, and a failure leaves
// the old one as it was.
func replace(path string, b []byte, old fs.FileInfo) (err error) {
	perm := fs.FileMode(0o644)
	if old != nil {
		perm = old.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			os.Remove(name)
		}
	}()
	if _, err = tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(name, perm); err != nil {
		return err
	}
	if old != nil {
		if cerr := keepOwner(name, old); cerr != nil {
			err = &LinkedError{fmt.Sprintf("%s belongs to another user, and the new file could not be given to them (%v): --force writes it in place", path, bare(cerr))}
			return err
		}
	}
	// The target may have changed kind since Stat; never rename over
	// something that is not a regular file.
	if st, serr := os.Lstat(path); serr == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s changed into a %s while it was written: left alone", path, kind(st.Mode()))
	}
	return os.Rename(name, path)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return "block device"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}
