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

	"github.com/cudb/cudb/migrations"
	"modernc.org/sqlite"
)

// DB is an open cudb database.
type DB struct {
	conn *sql.DB
	// Origin says where the database came from: a file path or "embedded".
	Origin string

	cache cache
	// closeFS releases what the handle reads through (the image's VFS),
	// after the connection is closed; nil for a file.
	closeFS func() error
}

// Close releases the database.
func (d *DB) Close() error {
	err := d.conn.Close()
	if d.closeFS != nil {
		err = errors.Join(err, d.closeFS())
	}
	return err
}

// SchemaVersion is the number of the newest migration this binary knows
// (TestSchemaVersionIsNewestMigration keeps the two in step; a constant,
// so that no start-up reads the migrations). A database built by another
// schema is refused at open.
const SchemaVersion = 5

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

// OpenFile opens a database file read-only and checks its schema version.
func OpenFile(ctx context.Context, path string) (*DB, error) {
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(1)
	d := &DB{conn: conn, Origin: path}
	if err := d.checkSchema(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return d, nil
}

func (d *DB) checkSchema(ctx context.Context) error {
	var v int
	if err := d.conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		var se *sqlite.Error
		if errors.As(err, &se) {
			return fmt.Errorf("%s is not a cudb database: %w", d.Origin, err)
		}
		return fmt.Errorf("failed to read the schema version of %s: %w", d.Origin, err)
	}
	if v != SchemaVersion {
		return fmt.Errorf("%w: %s has schema version %d, this cudb reads schema version %d; rebuild it with `cudb db build` (or `make data`), or use a cudb release that matches it", ErrSchema, d.Origin, v, SchemaVersion)
	}
	return nil
}

// Meta returns the meta table as a map.
func (d *DB) Meta(ctx context.Context) (map[string]string, error) {
	rows, err := d.conn.QueryContext(ctx, "SELECT key, value FROM meta")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// Sources lists the sources the database was built from.
func (d *DB) Sources(ctx context.Context) ([]SourceInfo, error) {
	rows, err := d.conn.QueryContext(ctx, "SELECT name, url, fetched_at, sha256, rows FROM source ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SourceInfo
	for rows.Next() {
		var s SourceInfo
		if err := rows.Scan(&s.Name, &s.URL, &s.FetchedAt, &s.SHA256, &s.Rows); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
