package all_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/datadir"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/cudadriver"
	"github.com/cudb/cudb/scraper/sourcestest"
)

func committed(t *testing.T, name string) *scraper.Snapshot {
	t.Helper()
	snap, err := scraper.ReadSnapshot(filepath.Join(sourcestest.RepoRoot(t), "data"), name)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestEverySourceHasCanariesThatHold: each real source names at least two
// canary facts, and its committed snapshot passes every check, canaries
// and field grammars included.
func TestEverySourceHasCanariesThatHold(t *testing.T) {
	for _, src := range all.Sources() {
		c, ok := src.(scraper.Canaried)
		if !ok || len(c.Canaries()) < 2 {
			t.Errorf("%s names fewer than two canary facts (implement scraper.Canaried)", src.Name())
			continue
		}
		snap := committed(t, src.Name())
		facts, _, err := scraper.CheckSnapshot(src, snap.Records, snap, scraper.CheckOptions{})
		if err != nil {
			t.Errorf("%s: the committed snapshot fails its checks: %v", src.Name(), err)
			continue
		}
		for _, k := range c.Canaries() {
			if !k.HeldBy(facts) {
				t.Errorf("%s: canary %q does not hold on the committed data", src.Name(), k.Fact)
			}
		}
	}
}

// mangled is the real cudadriver source whose scrape returns the committed
// rows after edit: a page that changed under the parser.
type mangled struct {
	*cudadriver.Source
	recs []scraper.Record
}

func (m mangled) Scrape(context.Context, scraper.Input) ([]scraper.Record, error) { return m.recs, nil }

// refreshMangled refreshes cudadriver over a data directory holding its
// committed snapshot, with edit applied to a copy of the rows, and checks
// that the source failed with want and its file was kept.
func refreshMangled(t *testing.T, edit func([]scraper.Record) []scraper.Record, want string) {
	t.Helper()
	snap := committed(t, cudadriver.Name)
	data := t.TempDir()
	b, err := snap.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := datadir.WriteFileAtomic(scraper.SnapshotPath(data, cudadriver.Name), b); err != nil {
		t.Fatal(err)
	}
	recs := make([]scraper.Record, len(snap.Records))
	for i, r := range snap.Records {
		r.Fields = cloneFields(r.Fields)
		recs[i] = r
	}
	src := mangled{Source: cudadriver.New(), recs: edit(recs)}
	rep, err := scraper.Refresh(context.Background(), scraper.RefreshOptions{
		Input: scraper.Input{Snapshots: t.TempDir()}, DataDir: data, All: []scraper.Source{src},
	})
	if err == nil || len(rep.Failed) != 1 {
		t.Fatalf("refresh accepted the mangled page (err %v)", err)
	}
	if !strings.Contains(rep.Sources[0].Error, want) {
		t.Fatalf("error %q does not say %q", rep.Sources[0].Error, want)
	}
	now, err := os.ReadFile(scraper.SnapshotPath(data, cudadriver.Name))
	if err != nil || !bytes.Equal(now, b) {
		t.Fatalf("the previous snapshot was not kept (%v)", err)
	}
	d, err := db.OpenFile(context.Background(), filepath.Join(data, "cudb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.CUDADrivers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	facts, err := cudadriver.New().Normalize(snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(facts.CUDADrivers) {
		t.Fatalf("the database holds %d CUDA driver rows, the previous snapshot states %d", len(rows), len(facts.CUDADrivers))
	}
}

func cloneFields(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestRefreshRefusesMalformedVersion: "13.x.1" where CUDA 13.3.1 belongs
// used to pass the version check and silently drop the row (129 CUDA
// driver rows became 128); the field's grammar now fails the source.
func TestRefreshRefusesMalformedVersion(t *testing.T) {
	refreshMangled(t, func(recs []scraper.Record) []scraper.Record {
		for _, r := range recs {
			if r.Fields["cuda_version"] == "13.3.1" {
				r.Fields["cuda_version"] = "13.x.1"
				return recs
			}
		}
		t.Fatal("no CUDA 13.3.1 row in the committed snapshot")
		return nil
	}, `field cuda_version: "13.x.1" does not parse as a version (want a dotted version or empty)`)
}

// TestRefreshRefusesControlCharacters: a NUL (or any control character
// but tab and newline) in a value, key or field name is refused.
func TestRefreshRefusesControlCharacters(t *testing.T) {
	for _, c := range []struct{ name, want string }{{"\x00", "U+0000"}, {"\x1b[31m", "U+001B"}, {"\r", "U+000D"}} {
		refreshMangled(t, func(recs []scraper.Record) []scraper.Record {
			recs[3].Fields["min_linux_driver"] += c.name
			return recs
		}, "holds the control character "+c.want)
	}
	refreshMangled(t, func(recs []scraper.Record) []scraper.Record {
		recs[5].Key += "\x00"
		return recs
	}, "the key holds the control character U+0000")
}

// TestRefreshLosingACanaryFailsTheSource: a page that no longer states
// CUDA 12.0 GA's driver floor fails cudadriver, its previous file kept.
// The snapshot's primary document is NVIDIA's release-notes text (the
// CSV only fills what it does not show), so its Table 3 row is mangled.
func TestRefreshLosingACanaryFailsTheSource(t *testing.T) {
	refreshMangled(t, func(recs []scraper.Record) []scraper.Record {
		// Every edition read prints the row; mangling an older one alone
		// is a conflict, the newest edition's floor kept.
		n := 0
		for _, r := range recs {
			if r.Table == "toolkit_driver" && r.Fields["row_text"] == "CUDA 12.0 GA" {
				r.Fields["linux"] = ">=525.60.14"
				n++
			}
		}
		if n > 0 {
			return recs
		}
		t.Fatal("no CUDA 12.0 GA row of Table 3 in the committed snapshot")
		return nil
	}, "canary facts missing (the scrape no longer states facts it must): CUDA 12.0.0 (toolkit) needs linux driver 525.60.13")
}
