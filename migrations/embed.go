// Package migrations holds cudb's schema as numbered, forward-only SQL
// files. The runner in package db applies them in order, one transaction
// each, and records the schema version in the database it builds.
package migrations

import "embed"

// FS holds NNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
