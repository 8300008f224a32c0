package all_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/gpus"
)

type mangledGPUs struct {
	*gpus.Source
	recs []scraper.Record
}

func (m mangledGPUs) Scrape(context.Context, scraper.Input) ([]scraper.Record, error) {
	return m.recs, nil
}

// TestRefreshRefusesCapabilityOutOfRange: a GPU row whose compute
// capability is 99.9 has the old grammar's shape (dotted) but not the
// range every command accepts (`cudb resolve --sm 99.9` exits 2), so the
// source fails naming the field and the value, and its previous file stays.
func TestRefreshRefusesCapabilityOutOfRange(t *testing.T) {
	snap := committed(t, gpus.Name)
	data := t.TempDir()
	b, err := snap.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := datadir.WriteFileAtomic(scraper.SnapshotPath(data, gpus.Name), b); err != nil {
		t.Fatal(err)
	}
	recs := make([]scraper.Record, len(snap.Records))
	changed := false
	for i, r := range snap.Records {
		r.Fields = cloneFields(r.Fields)
		if !changed && r.Fields["compute_capability"] == "8.6" {
			r.Fields["compute_capability"] = "99.9"
			changed = true
		}
		recs[i] = r
	}
	if !changed {
		t.Fatal("no compute capability 8.6 row in the committed gpus snapshot")
	}
	rep, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Snapshots: t.TempDir()}, DataDir: data,
		All: []scraper.Source{mangledGPUs{Source: gpus.New(), recs: recs}},
	})
	if err == nil || len(rep.Failed) != 1 {
		t.Fatalf("refresh accepted compute capability 99.9 (err %v)", err)
	}
	want := `field compute_capability: "99.9" is not a compute capability (1.0 to 19.9`
	if !strings.Contains(rep.Sources[0].Error, want) {
		t.Fatalf("error %q does not say %q", rep.Sources[0].Error, want)
	}
	if now, err := os.ReadFile(scraper.SnapshotPath(data, gpus.Name)); err != nil || !bytes.Equal(now, b) {
		t.Fatalf("the previous snapshot was not kept (%v)", err)
	}
}
