// Package datadir owns the on-disk protocol of a cudb data directory that
// refresh and `cudb db build` write and that `--db FILE` reads: the
// refresh lock (.refresh.lock), the staging directory and the commit
// journal (.refresh-commit.json) that make a commit all-or-nothing, the
// recovery of a commit that was killed, and atomic file replacement.
// It is a leaf, so the code that opens a database file can ask whether a
// commit is pending without importing the scrapers.
package datadir
