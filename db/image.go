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

// OpenImage opens the database whose SQLite file image is image and
// whose column image is cols (the embedded database: data/cudb.db and
// data/cudb.cols). Reads answer from the column image in place: opening
// it reads its directory only, and nothing is copied, parsed or written.
// SQLite opens the file image only when something needs it (Check),
// through a read-only VFS over the bytes (modernc.org/sqlite/vfs). With
// no column image, it is built from the file image at open. Neither
// slice may change while the handle is open.
func OpenImage(ctx context.Context, image, cols []byte, origin string) (*DB, error) {
	if len(image) == 0 {
		return nil, errors.New("the database image is empty: run `make data` to build data/cudb.db")
	}
	d := &DB{Origin: origin, openSQL: func() (*sql.DB, func() error, error) { return openSQLImage(image) }}
	if cols == nil {
		conn, closeFS, err := openSQLImage(image)
		if err != nil {
			return nil, err
		}
		d.conn, d.closeFS = conn, closeFS
		if err := d.fromSQL(ctx); err != nil {
			d.Close()
			return nil, err
		}
		return d, nil
	}
	var err error
	if d.cols, err = openChecked(cols, origin); err != nil {
		return nil, err
	}
	return d, nil
}

// openSQLImage opens a SQLite file image in place, read-only. The image
// is immutable (SQLite takes no locks and keeps its page cache).
func openSQLImage(image []byte) (*sql.DB, func() error, error) {
	name, fsys, err := vfs.New(imageFS{image})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to open the database image: %w", err)
	}
	conn, err := sql.Open("sqlite", "file:"+imageName+"?vfs="+name+"&mode=ro&immutable=1")
	if err != nil {
		fsys.Close()
		return nil, nil, err
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	return conn, fsys.Close, nil
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
