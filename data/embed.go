// Package data ships cudb's facts inside the binary: the per-source
// snapshot files under sources/ are the reviewable input, cudb.db is the
// database built from them by `make data`, manifest.json its description.
package data

import _ "embed"

// DB is the embedded database image (data/cudb.db).
//
//go:embed cudb.db
var DB []byte

// Manifest is data/manifest.json.
//
//go:embed manifest.json
var Manifest []byte
