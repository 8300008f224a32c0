package db

import (
	"context"
	"fmt"
)

// CheckResult is the result of Check.
type CheckResult struct {
	Integrity   []string   `json:"integrity"`    // "ok" when sound
	ForeignKeys []string   `json:"foreign_keys"` // violations, empty when none
	Conflicts   []Conflict `json:"conflicts"`
}

// OK reports whether the database is sound (conflicts are information,
// not failures).
func (r *CheckResult) OK() bool {
	return len(r.Integrity) == 1 && r.Integrity[0] == "ok" && len(r.ForeignKeys) == 0
}

// Check runs SQLite's integrity and foreign-key checks and lists the
// recorded conflicts between sources.
func (d *DB) Check(ctx context.Context) (*CheckResult, error) {
	rep := &CheckResult{ForeignKeys: []string{}, Conflicts: []Conflict{}}
	rows, err := d.conn.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		rep.Integrity = append(rep.Integrity, s)
	}
	rows.Close()
	rows, err = d.conn.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var table, parent string
		var rowid, fkid any
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			rows.Close()
			return nil, err
		}
		rep.ForeignKeys = append(rep.ForeignKeys, fmt.Sprintf("%s row %v references a missing %s", table, rowid, parent))
	}
	rows.Close()
	rows, err = d.conn.QueryContext(ctx, "SELECT subject, field, kept, kept_source, other, other_source, note FROM conflict ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c Conflict
		if err := rows.Scan(&c.Subject, &c.Field, &c.Kept, &c.KeptSource, &c.Other, &c.OtherSource, &c.Note); err != nil {
			return nil, err
		}
		rep.Conflicts = append(rep.Conflicts, c)
	}
	return rep, rows.Err()
}
