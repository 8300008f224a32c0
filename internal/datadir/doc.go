// Package datadir owns the files that coordinate a data directory (the
// one `cudb refresh --data` and `cudb db build` write): the refresh lock
// and the commit journal's format. It is a leaf, so a reader of a --db
// file learns whether a refresh is committing there without importing
// the scrapers, and without writing anything.
package datadir
