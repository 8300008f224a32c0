package db

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"modernc.org/sqlite/vfs"
)

// imageName is the name the image goes by inside its file system.
const imageName = "cudb.db"

// OpenImage opens a database from its file image in memory (the embedded
// database), in place: SQLite reads it through a read-only VFS over the
// bytes (modernc.org/sqlite/vfs), so only the pages a query touches are
// read, and nothing is copied up front, written to disk or fetched. The
// image is immutable (SQLite takes no locks and keeps its page cache), and
// image must not change while the handle is open.
func OpenImage(ctx context.Context, image []byte, origin string) (*DB, error) {
	if len(image) == 0 {
		return nil, errors.New("the database image is empty: run `make data` to build data/cudb.db")
	}
	name, fsys, err := vfs.New(imageFS{image})
	if err != nil {
		return nil, fmt.Errorf("failed to open the database image: %w", err)
	}
	conn, err := sql.Open("sqlite", "file:"+imageName+"?vfs="+name+"&mode=ro&immutable=1")
	if err != nil {
		fsys.Close()
		return nil, err
	}
	// One connection: a handle is one reader (the server opens one
	// handle per CPU), and each connection keeps its own page cache.
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	d := &DB{conn: conn, Origin: origin, closeFS: fsys.Close}
	if err := d.checkSchema(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// imageFS is a file system holding one file, the database image.
type imageFS struct{ image []byte }

func (f imageFS) Open(name string) (fs.File, error) {
	if name != imageName {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &imageFile{Reader: bytes.NewReader(f.image), size: int64(len(f.image))}, nil
}

// imageFile is the open image: reads and seeks go to the bytes in place.
type imageFile struct {
	*bytes.Reader
	size int64
}

func (f *imageFile) Stat() (fs.FileInfo, error) { return imageInfo{f.size}, nil }
func (f *imageFile) Close() error               { return nil }

type imageInfo struct{ size int64 }

func (i imageInfo) Name() string       { return imageName }
func (i imageInfo) Size() int64        { return i.size }
func (i imageInfo) Mode() fs.FileMode  { return 0o444 }
func (i imageInfo) ModTime() time.Time { return time.Time{} }
func (i imageInfo) IsDir() bool        { return false }
func (i imageInfo) Sys() any           { return nil }
