// Package layout has no code: its tests keep the project's shape (import
// rules, SQL only in db, file length, package docs, one framework table).
package layout
