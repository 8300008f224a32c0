package scraper

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cudb/cudb/db"
)

// Warner is implemented by sources that skip or repair malformed rows:
// Warnings returns what the last Scrape noticed. Too many warnings fail
// the source (the page probably changed shape). Sources without it report
// nothing.
type Warner interface {
	Warnings() []string
}

// Canary is a row that must be present in a source's scrape: a fact so
// settled that its absence means the parser broke (e.g. cuDNN 8.9.2 in
// the cuDNN support table).
type Canary struct {
	Table string
	Key   string
}

// Accumulator is implemented by sources whose live pages show less
// history than their snapshot does (the current install page, not every
// release's): a live refresh keeps the previous rows it no longer sees,
// so facts about older releases are never lost. Sources without it are
// replaced whole, so a removal upstream shows as a removal in the diff.
type Accumulator interface {
	Accumulates() bool
}

// accumulate adds to recs the previous records it does not restate.
func accumulate(prev, recs []Record) []Record {
	seen := map[[2]string]bool{}
	for _, r := range recs {
		seen[[2]string{r.Table, r.Key}] = true
	}
	out := append([]Record(nil), recs...)
	for _, r := range prev {
		if !seen[[2]string{r.Table, r.Key}] {
			out = append(out, r)
		}
	}
	return out
}

// keepUnspoken adds to recs the previous records of tables recs has none
// of.
func keepUnspoken(prev, recs []Record) []Record {
	spoken := map[string]bool{}
	for _, r := range recs {
		spoken[r.Table] = true
	}
	out := recs
	for _, r := range prev {
		if !spoken[r.Table] {
			out = append(out, r)
		}
	}
	return out
}

// Canaried is implemented by sources that name canary rows.
type Canaried interface {
	Canaries() []Canary
}

// VersionFielder is implemented by sources that say which fields hold
// versions and dates, per table, instead of relying on field names
// (see IsVersionField and IsDateField). A table missing from either map
// has no such fields.
type VersionFielder interface {
	VersionFields() map[string][]string
	DateFields() map[string][]string
}

// CheckOptions tune the checks a scrape must pass.
type CheckOptions struct {
	// AllowShrink accepts any drop in the number of rows.
	AllowShrink bool
	// MaxShrink is the largest accepted drop in rows versus the previous
	// snapshot, as a fraction (default 0.10).
	MaxShrink float64
	// MaxWarnings is the largest accepted fraction of warnings per row
	// (default 0.05); a handful of warnings on a tiny table is allowed by
	// MinWarnings.
	MaxWarnings float64
	// MinWarnings is accepted whatever the row count (default 2).
	MinWarnings int
	// Now is the clock dates are checked against (default time.Now).
	Now func() time.Time
}

func (o CheckOptions) withDefaults() CheckOptions {
	if o.MaxShrink <= 0 {
		o.MaxShrink = 0.10
	}
	if o.MaxWarnings <= 0 {
		o.MaxWarnings = 0.05
	}
	if o.MinWarnings <= 0 {
		o.MinWarnings = 2
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// CheckSnapshot runs the per-source checks on a scrape (recs) against the
// previous snapshot (prev, nil when there is none): rows were found, keys
// are unique, warnings are few, version and date fields parse, dates are
// not in the future, the row count did not drop too far, and every
// canary is present.
func CheckSnapshot(src Source, recs []Record, warnings []string, prev *Snapshot, o CheckOptions) error {
	o = o.withDefaults()
	if len(recs) == 0 {
		return fmt.Errorf("found no rows (an empty scrape is an error, never an empty file)")
	}
	if err := CheckUnique(recs); err != nil {
		return err
	}
	if n := len(warnings); n > o.MinWarnings && float64(n) > o.MaxWarnings*float64(len(recs)) {
		return fmt.Errorf("%d malformed rows against %d good ones (more than %.0f%%): the page probably changed shape; first: %s",
			n, len(recs), 100*o.MaxWarnings, warnings[0])
	}
	if err := checkFields(src, recs, o.Now()); err != nil {
		return err
	}
	if prev != nil && !o.AllowShrink {
		old, cur := len(prev.Records), len(recs)
		if float64(cur) < float64(old)*(1-o.MaxShrink) {
			return fmt.Errorf("rows dropped from %d to %d (more than %.0f%%); if upstream really removed them, rerun with --allow-shrink",
				old, cur, 100*o.MaxShrink)
		}
	}
	if c, ok := src.(Canaried); ok {
		have := map[[2]string]bool{}
		for _, r := range recs {
			have[[2]string{r.Table, r.Key}] = true
		}
		var missing []string
		for _, k := range c.Canaries() {
			if !have[[2]string{k.Table, k.Key}] {
				missing = append(missing, k.Table+"/"+k.Key)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("canary rows missing (the parser no longer finds facts it must): %s", strings.Join(missing, ", "))
		}
	}
	return nil
}

// IsVersionField reports whether a field name holds a version by the
// naming convention: "version", or ending in "version" / "_ver".
func IsVersionField(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, "version") || strings.HasSuffix(n, "_ver")
}

// IsDateField reports whether a field name holds a date by the naming
// convention: "date", "*_date", "released_on", "*_on".
func IsDateField(name string) bool {
	n := strings.ToLower(name)
	return n == "date" || strings.HasSuffix(n, "_date") || strings.HasSuffix(n, "_on")
}

func checkFields(src Source, recs []Record, now time.Time) error {
	vf, explicit := src.(VersionFielder)
	var vers, dates map[string][]string
	if explicit {
		vers, dates = vf.VersionFields(), vf.DateFields()
	}
	for _, r := range recs {
		names := make([]string, 0, len(r.Fields))
		for k := range r.Fields {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := r.Fields[k]
			isVer, isDate := IsVersionField(k), IsDateField(k)
			if explicit {
				isVer, isDate = contains(vers[r.Table], k), contains(dates[r.Table], k)
			}
			if isVer && !VersionLike(v) {
				return fmt.Errorf("%s/%s: field %s: %q does not parse as a version", r.Table, r.Key, k, v)
			}
			if isDate {
				t, ok := ParseDate(v)
				if !ok {
					return fmt.Errorf("%s/%s: field %s: %q does not parse as a date", r.Table, r.Key, k, v)
				}
				if t.After(now) {
					return fmt.Errorf("%s/%s: field %s: date %s is in the future", r.Table, r.Key, k, v)
				}
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	placeholders = map[string]bool{"": true, "-": true, "—": true, "–": true, "n/a": true, "na": true, "none": true, "tbd": true, "unknown": true, "?": true}
	// branchWords stand where a version would on real pages ("master
	// (nightly snapshot)", "main").
	branchWords = map[string]bool{"master": true, "main": true, "nightly": true, "latest": true, "stable": true, "dev": true, "head": true, "trunk": true}
)

// VersionLike reports whether v could be a version field's value: empty,
// a placeholder (n/a, -), anything holding a digit (2.1.0+cu121, >=525.60,
// "1.24 dev (main)", cuda-aarch64), or a branch word (master, nightly). It
// is deliberately loose: it catches prose where a version belongs (a
// shifted column, "see notes"), not PEP 440 nits, which Normalize judges.
func VersionLike(v string) bool {
	v = strings.TrimSpace(v)
	if placeholders[strings.ToLower(v)] || strings.ContainsAny(v, "0123456789") {
		return true
	}
	first, _, _ := strings.Cut(strings.ToLower(v), " ")
	return branchWords[strings.Trim(first, "()[],;:")]
}

var dateLayouts = []string{
	"2006-01-02", "2006-01", "2006", "2006/01/02", "2006/1/2", "2006-01-02T15:04:05Z07:00",
	"January 2, 2006", "Jan 2, 2006", "January 2006", "Jan 2006", "2 January 2006", "2 Jan 2006",
	"January, 2006", "Jan. 2, 2006",
}

// ParseDate parses the date layouts upstream pages use. Empty values and
// placeholders parse as the zero time (never in the future).
func ParseDate(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if placeholders[strings.ToLower(v)] {
		return time.Time{}, true
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// PostBuildChecks run on the freshly built database before it replaces
// the previous one; any error aborts the refresh and keeps every previous
// file. Append golden queries here (e.g. "torch 2.1 resolves to cu121").
var PostBuildChecks = []func(ctx context.Context, d *db.DB) error{
	checkSound,
	checkSchemaVersion,
}

func checkSound(ctx context.Context, d *db.DB) error {
	rep, err := d.Check(ctx)
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("integrity %v, foreign keys %v", rep.Integrity, rep.ForeignKeys)
	}
	return nil
}

func checkSchemaVersion(ctx context.Context, d *db.DB) error {
	m, err := d.Meta(ctx)
	if err != nil {
		return err
	}
	if m["schema_version"] != fmt.Sprint(db.SchemaVersion) {
		return fmt.Errorf("meta schema_version %q, want %d", m["schema_version"], db.SchemaVersion)
	}
	return nil
}
