package pytorch

import (
	"context"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/sourcestest"
)

// snapshotFacts scrapes and normalizes src from the shared snapshots.
func snapshotFacts(t *testing.T, src scraper.Source) ([]scraper.Record, *db.Facts) {
	t.Helper()
	dir := sourcestest.Dir(t)
	recs, err := src.Scrape(context.Background(), scraper.Input{Snapshots: dir})
	if err != nil {
		t.Fatalf("%s: scrape: %v", src.Name(), err)
	}
	if err := scraper.CheckUnique(recs); err != nil {
		t.Fatal(err)
	}
	f, err := src.Normalize(recs)
	if err != nil {
		t.Fatalf("%s: normalize: %v", src.Name(), err)
	}
	return recs, f
}
