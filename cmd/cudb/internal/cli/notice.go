package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cudb/cudb/usecase"
)

// DataAgeLimit is how old the data may be before commands say so.
const DataAgeLimit = 60 * 24 * time.Hour

// NoDataAgeNoticeEnv turns the data-age notice off when set to a
// non-empty value other than "0".
const NoDataAgeNoticeEnv = "CUDB_NO_DATA_AGE_NOTICE"

// dataAgeNotice prints one line on standard error when the database's
// data_as_of is older than DataAgeLimit: answers know nothing released
// since. It is silent with --json, --quiet, the environment switch, no
// clock, or a database that does not state its date.
func (f *Factory) dataAgeNotice(ctx context.Context, d *usecase.DB) {
	if f.noticed || f.JSON || f.Quiet || f.IO.Now == nil {
		return
	}
	if v := f.IO.env(NoDataAgeNoticeEnv); v != "" && v != "0" {
		return
	}
	f.noticed = true
	meta, err := d.Meta(ctx)
	if err != nil {
		return // the command itself reports an unreadable database
	}
	line := DataAgeNotice(meta["data_as_of"], f.IO.Now())
	if line != "" {
		fmt.Fprintln(f.IO.ErrOut, line)
	}
}

// DataAgeNotice is the notice for data as of asOf (YYYY-MM-DD) read at
// now, or "" when the data is recent or the date unreadable.
func DataAgeNotice(asOf string, now time.Time) string {
	t, err := time.Parse(time.DateOnly, asOf)
	if err != nil {
		return ""
	}
	age := now.Sub(t)
	if age <= DataAgeLimit {
		return ""
	}
	return fmt.Sprintf("note: cudb's data is %d days old (newest fact %s): releases since then are unknown to it; "+
		"install a newer cudb, or run `cudb refresh` and pass --db (silence: --quiet or %s=1)", int(age.Hours()/24), asOf, NoDataAgeNoticeEnv)
}

// pendingNotice says on standard error, unless --quiet, that a refresh
// commit is pending beside the --db file, and names the command that
// recovers it: reading does not.
func (f *Factory) pendingNotice(d *usecase.DB) {
	j := d.PendingCommit()
	if j == "" || f.Quiet || f.journal.Dir != "" {
		return
	}
	fmt.Fprintf(f.IO.ErrOut, "note: a refresh is moving files into %s, or was killed doing so (%s is there): this reads %s as it is now, "+
		"which may be the old or the new database; `cudb db check --db %s` recovers an interrupted refresh\n",
		filepath.Dir(j), filepath.Base(j), f.DBPath, shellArg(f.DBPath))
}
