package db

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSelectRows: the one read pattern filters, then sorts stably by
// its terms in turn (descending where asked), then scans.
func TestSelectRows(t *testing.T) {
	ctx := context.Background()
	f := sampleFacts()
	p := Provenance{Source: "a"}
	f.GPUs = append(f.GPUs,
		GPU{Name: "A100", ComputeCapability: "8.0", Architecture: "Ampere", Provenance: p},
		GPU{Name: "RTX 3090", ComputeCapability: "8.6", Architecture: "Ampere", Provenance: p},
		GPU{Name: "H100", ComputeCapability: "9.0", Architecture: "Hopper", Provenance: p})
	d, err := OpenFile(ctx, write(t, f))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	name := func(t *colTable, r int, s *string) { *s = t.str(t.col("name"), r) }
	for _, c := range []struct {
		keep  func(t *colTable, r int) bool
		order []sortBy
		want  []string
	}{
		{nil, []sortBy{asc("name")}, []string{"A100", "H100", "RTX 3090", "Tesla T4"}},
		{nil, []sortBy{desc("name")}, []string{"Tesla T4", "RTX 3090", "H100", "A100"}},
		{is("architecture", "Ampere"), []sortBy{desc("compute_capability")}, []string{"RTX 3090", "A100"}},
		// ties keep the earlier sort term's order, then rowid order
		{nil, []sortBy{asc("architecture"), desc("name")}, []string{"Tesla T4", "RTX 3090", "A100", "H100"}},
		{is("architecture", "Volta"), []sortBy{asc("name")}, []string{}},
	} {
		got := selectRows(d, "gpu", c.keep, c.order, name)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("order %v (-want +got):\n%s", c.order, diff)
		}
	}
}

// TestOnceFor: a key's answer is loaded once and kept; other keys load
// their own; concurrent askers all get the whole answer.
func TestOnceFor(t *testing.T) {
	d := &DB{}
	var m map[string][]int
	loads := map[string]int{}
	load := func(k string, v []int) func() []int {
		return func() []int { loads[k]++; return v }
	}
	for i := 0; i < 3; i++ {
		if got := onceFor(d, &m, "a", load("a", []int{1, 2})); !cmp.Equal(got, []int{1, 2}) {
			t.Fatalf("a: %v", got)
		}
	}
	if got := onceFor(d, &m, "b", load("b", nil)); got != nil {
		t.Fatalf("b: %v", got)
	}
	onceFor(d, &m, "b", load("b", []int{9})) // an empty answer is an answer
	if loads["a"] != 1 || loads["b"] != 1 {
		t.Errorf("loads %v, want each key once", loads)
	}
	var wg sync.WaitGroup
	var cm map[int]int
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := onceFor(d, &cm, 7, func() int { return 49 }); v != 49 {
				t.Errorf("concurrent: %d", v)
			}
		}()
	}
	wg.Wait()
}
