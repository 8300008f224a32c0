// Package db owns cudb's database: the fact model, the schema migrations
// runner, building a fresh database from facts, and opening one (a file,
// read-only or read-write, or the image embedded in the binary).
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cudb/cudb/migrations"
	"modernc.org/sqlite"
)

// DB is an open cudb database. Its typed reads answer from the
// database's column image (columns.go); SQLite itself is reached only
// for what needs the file (Check's integrity checks), and for the
// embedded database it is opened on that first need.
type DB struct {
	// Origin says where the database came from: a file path or "embedded".
	Origin string

	cols  *colImage
	cache cache
	// pending is the refresh commit journal beside a database file
	// (PendingCommit).
	pending string

	sqlOnce sync.Once
	conn    *sql.DB
	connErr error
	// openSQL opens the SQLite handle; closeFS releases what it reads
	// through (the image's VFS), after the connection is closed.
	openSQL func() (*sql.DB, func() error, error)
	closeFS func() error
}

// sqlHandle returns the SQLite handle, opening it on first use.
func (d *DB) sqlHandle() (*sql.DB, error) {
	d.sqlOnce.Do(func() {
		if d.conn == nil && d.openSQL != nil {
			d.conn, d.closeFS, d.connErr = d.openSQL()
		}
		if d.conn == nil && d.connErr == nil {
			d.connErr = errors.New("this database has no SQLite handle")
		}
	})
	return d.conn, d.connErr
}

// Close releases the database.
func (d *DB) Close() error {
	d.sqlOnce.Do(func() {}) // no handle is opened after Close
	var err error
	if d.conn != nil {
		err = d.conn.Close()
	}
	if d.closeFS != nil {
		err = errors.Join(err, d.closeFS())
	}
	return err
}

// SchemaVersion is the number of the newest migration this binary knows
// (TestSchemaVersionIsNewestMigration keeps the two in step; a constant,
// so that no start-up reads the migrations). A database built by another
// schema is refused at open.
const SchemaVersion = 6

// ErrSchema is returned (wrapped) when a database's schema version is not
// the one this binary was built for.
var ErrSchema = errors.New("schema version mismatch")

type migration struct {
	n    int
	name string
	sql  string
}

func loadMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %q: name must start with a number and an underscore", name)
		}
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{n, name, string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].n < ms[j].n })
	for i, m := range ms {
		if m.n != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d (numbers must be 1..N without gaps)", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies the migrations newer than the database's user_version,
// one transaction each.
func migrate(ctx context.Context, conn *sql.DB) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	var cur int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return err
	}
	for _, m := range ms {
		if m.n <= cur {
			continue
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.n)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// fromSQL checks the schema version of d's SQLite handle and builds the
// column image the reads answer from.
func (d *DB) fromSQL(ctx context.Context) error {
	b, err := columnsOf(ctx, d.conn, d.Origin)
	if err != nil {
		return err
	}
	d.cols, err = openChecked(b, d.Origin)
	return err
}

// columnsOf checks the schema version of the database conn reads and
// encodes its column image.
func columnsOf(ctx context.Context, conn *sql.DB, origin string) ([]byte, error) {
	var v int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		var se *sqlite.Error
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s is not a cudb database: %w", origin, err)
		}
		return nil, fmt.Errorf("failed to read the schema version of %s: %w", origin, err)
	}
	if v != SchemaVersion {
		return nil, schemaError(origin, v)
	}
	b, err := encodeColumns(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", origin, err)
	}
	return b, nil
}

// openChecked opens a column image and checks its schema version and
// tables.
func openChecked(b []byte, origin string) (*colImage, error) {
	img, err := openColumns(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	if img.version != SchemaVersion {
		return nil, schemaError(origin, img.version)
	}
	if err := img.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	return img, nil
}

func schemaError(origin string, v int) error {
	return fmt.Errorf("%w: %s has schema version %d, this cudb reads schema version %d; rebuild it with `cudb db build` (or `make data`), or use a cudb release that matches it", ErrSchema, origin, v, SchemaVersion)
}
