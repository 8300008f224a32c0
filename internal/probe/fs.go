package probe

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// fsys reads the host's files under a root. Paths are host paths
// ("/usr/local/cuda/version.json"); symbolic links are followed inside the
// root, so an absolute link in a copied tree or a mounted image points
// into that tree, not into the machine running cudb.
type fsys struct{ root string }

func (f fsys) isOS() bool { return f.root == "" || f.root == "/" }

func (f fsys) real(p string) string {
	if f.isOS() {
		return p
	}
	return filepath.Join(f.root, filepath.FromSlash(p))
}

var errLinkLoop = errors.New("too many levels of symbolic links")

// resolve follows every symbolic link in p within the root and returns
// the host path it names.
func (f fsys) resolve(p string) (string, error) {
	p = path.Clean("/" + p)
	if f.isOS() {
		r, err := filepath.EvalSymlinks(p)
		return filepath.ToSlash(r), err
	}
	done := "/"
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, c)
		fi, err := os.Lstat(f.real(next))
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if hops++; hops > 40 {
			return "", errLinkLoop
		}
		target, err := os.Readlink(f.real(next))
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(filepath.ToSlash(target), "/"), rest...)
	}
	return done, nil
}

// open returns the real path to read for host path p.
func (f fsys) open(p string) (string, error) {
	if f.isOS() {
		return p, nil
	}
	r, err := f.resolve(p)
	if err != nil {
		return "", err
	}
	return f.real(r), nil
}

// maxFile bounds a single read: the files read are small text files and
// the loader cache; anything bigger is not what we are looking for.
const maxFile = 16 << 20

func (f fsys) read(p string) ([]byte, error) {
	r, err := f.open(p)
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(r)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errors.New("is a directory")
	}
	if fi.Size() > maxFile {
		return nil, errors.New("file too large")
	}
	buf := make([]byte, 0, fi.Size()+512)
	for {
		n, err := fh.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil || len(buf) >= maxFile {
			break
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	return buf, nil
}

func (f fsys) readDir(p string) ([]os.DirEntry, error) {
	r, err := f.open(p)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(r)
}

func (f fsys) exists(p string) bool {
	r, err := f.open(p)
	if err != nil {
		return false
	}
	_, err = os.Stat(r)
	return err == nil
}

func (f fsys) isDir(p string) bool {
	r, err := f.open(p)
	if err != nil {
		return false
	}
	fi, err := os.Stat(r)
	return err == nil && fi.IsDir()
}

// glob lists the entries of dir whose names match pattern, sorted.
func (f fsys) glob(dir, pattern string) []string {
	ents, err := f.readDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if ok, _ := path.Match(pattern, e.Name()); ok {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}
