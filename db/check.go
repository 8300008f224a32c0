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
	conn, err := d.sqlHandle()
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, "PRAGMA integrity_check")
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
	rows, err = conn.QueryContext(ctx, "PRAGMA foreign_key_check")
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
	if rep.Conflicts, err = d.Conflicts(ctx); err != nil {
		return nil, err
	}
	return rep, nil
}
