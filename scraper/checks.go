package scraper

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cudb/cudb/db"
)

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

// CheckOptions tune the checks a scrape must pass.
type CheckOptions struct {
	// AllowShrink accepts any drop in the number of rows.
	AllowShrink bool
	// MaxShrink is the largest accepted drop in rows versus the previous
	// snapshot, as a fraction (default 0.10).
	MaxShrink float64
	// MaxWarnings is the largest accepted fraction of newly refused rows
	// (warnings) per row (default 0.05); a handful on a tiny table is
	// allowed by MinWarnings.
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
// previous snapshot (prev, nil when there is none) and returns the
// source's facts and its warnings. The checks: rows were found, keys are
// unique, every field has its grammar (no control characters; versions,
// drivers and dates parse; no date in the future), the row count did not
// drop too far, the rows normalize, few rows are newly refused by
// Normalize (the warnings), and no canary fact the previous snapshot
// stated was lost.
func CheckSnapshot(src Source, recs []Record, prev *Snapshot, o CheckOptions) (*db.Facts, []string, error) {
	o = o.withDefaults()
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("found no rows (an empty scrape is an error, never an empty file)")
	}
	if err := CheckUnique(recs); err != nil {
		return nil, nil, err
	}
	if err := checkFields(src, recs, o.Now()); err != nil {
		return nil, nil, err
	}
	if prev != nil && !o.AllowShrink {
		old, cur := len(prev.Records), len(recs)
		if float64(cur) < float64(old)*(1-o.MaxShrink) {
			return nil, nil, fmt.Errorf("rows dropped from %d to %d (more than %.0f%%); if upstream really removed them, rerun with --allow-shrink",
				old, cur, 100*o.MaxShrink)
		}
	}
	facts, err := src.Normalize(recs)
	if err != nil {
		return nil, nil, fmt.Errorf("rows do not normalize: %w", err)
	}
	var prevFacts *db.Facts
	if prev != nil {
		// A previous file that no longer normalizes gives no baseline.
		prevFacts, _ = src.Normalize(prev.Records)
	}
	warnings := newRefusals(facts, prevFacts)
	if n := len(warnings); prev != nil && n > o.MinWarnings && float64(n) > o.MaxWarnings*float64(len(recs)) {
		return nil, nil, fmt.Errorf("%d malformed rows (refused, and not refused in the previous snapshot) against %d rows (more than %.0f%%): the page probably changed shape; first: %s",
			n, len(recs), 100*o.MaxWarnings, warnings[0])
	}
	if c, ok := src.(Canaried); ok {
		// A canary guards against losing a fact: it binds once the
		// previous snapshot states it (the committed data states every
		// canary; TestEverySourceHasCanariesThatHold checks).
		var missing []string
		for _, k := range c.Canaries() {
			if k.HeldBy(prevFacts) && !k.HeldBy(facts) {
				missing = append(missing, k.Fact)
			}
		}
		if len(missing) > 0 {
			return nil, nil, fmt.Errorf("canary facts missing (the scrape no longer states facts it must): %s", strings.Join(missing, "; "))
		}
	}
	return facts, warnings, nil
}

// newRefusals lists the rows Normalize refused in facts (db.Conflict with
// Field "refused") that it did not refuse in the previous snapshot's facts
// (prev), as "subject: reason". Without a previous snapshot every refusal
// is new.
func newRefusals(facts, prev *db.Facts) []string {
	before := map[string]bool{}
	if prev != nil {
		for _, c := range prev.Conflicts {
			if c.Field == "refused" {
				before[c.Subject] = true
			}
		}
	}
	out := []string{}
	for _, c := range facts.Conflicts {
		if c.Field == "refused" && !before[c.Subject] {
			w := c.Subject
			if c.Note != "" {
				w += ": " + c.Note
			}
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// PostBuildChecks run on the freshly built database before it replaces
// the previous one; any error aborts the refresh and keeps every previous
// file. Golden queries a caller wants besides these go in
// RefreshOptions.Golden.
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
