// Package data ships cudb's facts inside the binary: the per-source
// snapshot files under sources/ are the reviewable input, cudb.db is the
// database built from them by `make data`, cudb.cols its column image
// (what queries read, in place) and manifest.json its description.
package data

import _ "embed"

// DB is the embedded database image (data/cudb.db).
//
//go:embed cudb.db
var DB []byte

// Columns is the column image of data/cudb.db (data/cudb.cols), written
// beside it by the same build: the typed reads answer from it without
// starting SQLite.
//
//go:embed cudb.cols
var Columns []byte

// Manifest is data/manifest.json.
//
//go:embed manifest.json
var Manifest []byte
