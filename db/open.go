package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cudb/cudb/internal/datadir"
)

// cacheSuffix ends the name of a column image kept beside a database
// file (OpenFileCached). It carries the image format's magic, so an image
// of another format is never read as this one.
const cacheSuffix = "." + colMagic + ".cache"

// OpenFile opens the database file at path read-only and converts it
// into a column image in memory; it writes nothing. A column image that
// OpenFileCached kept beside the file for this very content (the same
// sha256) is read instead of converting again.
func OpenFile(ctx context.Context, path string) (*DB, error) {
	return openFile(ctx, path, false)
}

// OpenFileCached is OpenFile for a file a user names (`--db FILE`): when
// no column image of the file's content is kept beside it, the one
// converted here is written there (atomically, under a dot-name holding
// the file's sha256 and the image format, which nothing but cudb
// writes), and images kept for earlier contents of the same file are
// removed. Opening the same file again then reads the image instead of
// running SQLite over every table. A folder that cannot be written only
// costs the conversion on each open: nothing is said.
//
// Neither call recovers a refresh commit pending beside the file (that
// would make a read write): DB.PendingCommit says one is there.
func OpenFileCached(ctx context.Context, path string) (*DB, error) {
	return openFile(ctx, path, true)
}

// PendingCommit is the commit journal of a refresh that is moving files
// into the folder of the database file, or was killed doing so; "" when
// none is pending (or the database is not a file). The file read is a
// whole database (each file is replaced by a rename), but it may be the
// old or the new one and the folder may hold a mix of old and new source
// files until the commit is recovered.
func (d *DB) PendingCommit() string { return d.pending }

func openFile(ctx context.Context, path string, keep bool) (*DB, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read the database %s: %w", path, err)
	}
	d := &DB{Origin: path, openSQL: func() (*sql.DB, func() error, error) { return openSQLFile(path) }}
	if dir := filepath.Dir(path); datadir.Pending(dir) {
		d.pending = datadir.JournalPath(dir)
	}
	if _, err := os.Lstat(path + "-wal"); err == nil {
		// Committed pages may sit in the write-ahead log, which the
		// bytes alone miss: read through SQLite, and keep nothing.
		conn, closeFS, err := openSQLFile(path)
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
	sum := sha256Of(b)
	if cols := builtColumns(path, sum); cols != nil && d.pending == "" {
		// A data directory that refresh or db build wrote holds the
		// column image of this very file: read it, keep nothing more.
		// (Not while a commit is pending: cudb.cols may be the other
		// set's until it is recovered.)
		if d.cols, err = openChecked(cols, path); err == nil {
			return d, nil
		}
	}
	cache := cachePath(path, sum)
	if cols, err := os.ReadFile(cache); err == nil {
		if d.cols, err = openChecked(cols, path); err == nil {
			return d, nil
		}
		// Damaged: convert again, and replace it below.
	}
	conn, closeFS, err := openSQLImage(b)
	if err != nil {
		return nil, err
	}
	cols, err := columnsOf(ctx, conn, path)
	conn.Close()
	closeFS()
	if err != nil {
		return nil, err
	}
	if d.cols, err = openChecked(cols, path); err != nil {
		return nil, err
	}
	if keep {
		keepColumns(path, cache, cols)
	}
	return d, nil
}

// openSQLFile opens a database file read-only through SQLite.
func openSQLFile(path string) (*sql.DB, func() error, error) {
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, nil, err
	}
	conn.SetMaxOpenConns(1)
	return conn, func() error { return nil }, nil
}

// builtColumns is the cudb.cols a build wrote beside the database file
// at path, when the folder's manifest.json names this content (sum) as
// its database; nil otherwise.
func builtColumns(path string, sum []byte) []byte {
	if filepath.Base(path) != datadir.DBFile {
		return nil // only a data directory's own database has a build's image
	}
	dir := filepath.Dir(path)
	mb, err := os.ReadFile(filepath.Join(dir, datadir.ManifestFile))
	if err != nil {
		return nil
	}
	var m struct {
		DBSHA256 string `json:"db_sha256"`
	}
	if json.Unmarshal(mb, &m) != nil || m.DBSHA256 != hex.EncodeToString(sum) {
		return nil
	}
	cols, err := os.ReadFile(filepath.Join(dir, datadir.ColumnsFile))
	if err != nil {
		return nil
	}
	return cols
}

// cachePath is where the column image of the database file at path,
// whose content has the given sha256, is kept.
func cachePath(path string, sum []byte) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(sum)+cacheSuffix)
}

// cacheName matches the name of a kept column image of the file base.
func cacheName(base string) *regexp.Regexp {
	return regexp.MustCompile(`^\.` + regexp.QuoteMeta(base) + `\.[0-9a-f]{64}` + regexp.QuoteMeta(cacheSuffix) + `$`)
}

// keepColumns writes cols to cache and removes the images kept for
// earlier contents of the file at path. Failing is not an error: the
// next open converts again.
func keepColumns(path, cache string, cols []byte) {
	if st, err := os.Lstat(cache); err == nil && !st.Mode().IsRegular() {
		return // not ours to replace
	}
	if err := datadir.WriteFileAtomic(cache, cols); err != nil {
		return
	}
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	same := cacheName(filepath.Base(path))
	for _, e := range ents {
		if n := e.Name(); n != filepath.Base(cache) && same.MatchString(n) && e.Type().IsRegular() {
			os.Remove(filepath.Join(filepath.Dir(path), n))
		}
	}
}

// IsKeptColumns reports whether name is the name of a column image
// OpenFileCached keeps beside a database file.
func IsKeptColumns(name string) bool {
	base, ok := strings.CutPrefix(name, ".")
	if !ok || !strings.HasSuffix(base, cacheSuffix) {
		return false
	}
	base = strings.TrimSuffix(base, cacheSuffix)
	i := strings.LastIndexByte(base, '.')
	return i > 0 && cacheName(base[:i]).MatchString(name)
}

func sha256Of(b []byte) []byte {
	sum := sha256.Sum256(b)
	return sum[:]
}
