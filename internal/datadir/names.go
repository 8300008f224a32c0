package datadir

// The names of what a data directory holds, written once: the database a
// build writes, its column image and its manifest, and the folder of
// per-source snapshot files.
const (
	DBFile       = "cudb.db"
	ColumnsFile  = "cudb.cols"
	ManifestFile = "manifest.json"
	SourcesDir   = "sources"
)
