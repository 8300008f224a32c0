package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/internal/errs"
)

// DBEnv names the database commands read when --db is not given: a
// cudb.db file, or a data directory (`cudb refresh --data DIR`) for its
// cudb.db. Unset, they read the database embedded in the binary.
const DBEnv = "CUDB_DB"

// resolveDBPath settles which database the command reads: --db, else
// $CUDB_DB, else (empty) the embedded one. A folder stands for the
// cudb.db inside it, so the directory refresh wrote can be named as it is.
func (f *Factory) resolveDBPath() error {
	from := "--db"
	if f.DBPath == "" {
		if f.DBPath = f.IO.env(DBEnv); f.DBPath == "" {
			return nil
		}
		from = DBEnv
	}
	// A file, or a path that cannot be read, is opened as it is: DB
	// reports its error with the path.
	if !isDir(f.DBPath) {
		return nil
	}
	p := filepath.Join(f.DBPath, datadir.DBFile)
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return errs.Errorf(errs.CodeUsage, "%s %s is a folder without a %s", from, f.DBPath, datadir.DBFile).
			WithHint("cudb refresh --data %s writes one; or give the database file itself", f.DBPath)
	}
	f.DBPath = p
	return nil
}

// refreshWhere tells, after a refresh wrote, where the database is and
// how to read it: the binary keeps reading its embedded copy.
func refreshWhere(dataDir string) string {
	p := filepath.Join(absDir(dataDir), datadir.DBFile)
	return fmt.Sprintf("refresh: the database is %s; cudb keeps reading the copy built into its binary until told otherwise:\n"+
		"refresh:   cudb resolve torch --db %s   (or export %s=%s)\n"+
		"refresh:   or rebuild the binary from this checkout (make build) to embed it", p, shellArg(p), DBEnv, shellArg(p))
}

// shellArg quotes a path for a POSIX shell when it needs it.
func shellArg(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_' || r == ':') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// isDir reports whether path names a folder (false when it cannot be
// read: the caller opens it as a file and reports that error).
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
