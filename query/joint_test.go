package query

import (
	"context"
	"slices"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query/querytest"
)

// checkCombinations checks that walking Combinations as combine does
// (the merged stacks in walk order, known-good first; else the first
// combination's conflicts) gives Resolve's answer, and that a merged
// stack's gaps and notes are its parts', in order: the install
// selector's page relies on both when it drops builds for a driver or GPU.
func checkCombinations(t *testing.T, d *db.DB, req ResolveRequest) (merged, conflicting int) {
	t.Helper()
	ctx := context.Background()
	res, rerr := Resolve(ctx, d, req)
	j, err := Combinations(ctx, d, req)
	if (rerr == nil) != (err == nil) {
		t.Fatalf("%v: Resolve says %v, Combinations %v", req.Requirements, rerr, err)
	}
	if err != nil {
		return 0, 0
	}
	var ok, other []Stack
	var first []Incompatibility
	for _, c := range j.Combinations {
		if c.Stack == nil {
			conflicting++
			if first == nil {
				first = c.Conflicts
			}
			continue
		}
		merged++
		s := *c.Stack
		var unknown, notes []string
		for i, k := range c.Parts {
			part := j.Stacks[i][k]
			if s.Parts[i].Variant != part.Variant {
				t.Errorf("%v: part %d is %s, Stacks says %s", req.Requirements, i, s.Parts[i].Variant, part.Variant)
			}
			for _, u := range part.Unknown {
				if !slices.Contains(unknown, u) {
					unknown = append(unknown, u)
				}
			}
			notes = append(notes, part.Notes...)
		}
		if !slices.Equal(s.Unknown, append([]string{}, unknown...)) || !slices.Equal(s.Notes, notes) {
			t.Errorf("%v %s: merged gaps %q notes %q, its parts' %q %q", req.Requirements, s.Variant, s.Unknown, s.Notes, unknown, notes)
		}
		if (s.Status == StatusUnknown) != (len(unknown) > 0) {
			t.Errorf("%v %s: status %s with gaps %q", req.Requirements, s.Variant, s.Status, unknown)
		}
		if s.Status == StatusOK {
			ok = append(ok, s)
		} else {
			other = append(other, s)
		}
	}
	want := append(ok, other...)
	if len(want) != len(res.Stacks) {
		t.Fatalf("%v: %d merged stacks, Resolve gives %d", req.Requirements, len(want), len(res.Stacks))
	}
	for i := range want {
		if want[i].Variant != res.Stacks[i].Variant || want[i].Status != res.Stacks[i].Status || want[i].Install != res.Stacks[i].Install {
			t.Errorf("%v: stack %d is %s (%s), Resolve's %s (%s)", req.Requirements, i, want[i].Variant, want[i].Status, res.Stacks[i].Variant, res.Stacks[i].Status)
		}
	}
	if len(want) == 0 && !slices.EqualFunc(first, res.Conflicts, func(a, b Incompatibility) bool { return a.Message == b.Message }) {
		t.Errorf("%v: first conflicts %v, Resolve's %v", req.Requirements, first, res.Conflicts)
	}
	return merged, conflicting
}

func TestCombinationsFixture(t *testing.T) {
	d := fixtureDB(t)
	merged, conflicting := 0, 0
	for _, tv := range []string{"2.1.0", "2.1.2", "2.3.1", "2.4.0", "1.13.1"} {
		for _, tf := range []string{"2.14.0", "2.15.0", "2.16.1", "2.17.0"} {
			for _, os := range []string{"linux", "windows", ""} {
				m, c := checkCombinations(t, d, ResolveRequest{Requirements: []string{"torch==" + tv, "tensorflow==" + tf}, Platform: os})
				merged, conflicting = merged+m, conflicting+c
			}
		}
	}
	if merged == 0 || conflicting == 0 {
		t.Errorf("%d merged, %d conflicting: the check needs both", merged, conflicting)
	}
	for _, req := range []ResolveRequest{{Requirements: []string{"torch==2.1"}}, {Requirements: []string{"torch", "tensorflow"}, Driver: "535"}} {
		if _, err := Combinations(context.Background(), d, req); err == nil {
			t.Errorf("%v: Combinations should refuse one framework or a driver", req)
		}
	}
}

// TestCombinationsShipped walks every pair of the newest releases of each
// two frameworks in the shipped data, on Linux and Windows.
func TestCombinationsShipped(t *testing.T) {
	d := querytest.Embedded(t)
	ctx := context.Background()
	newest := map[string][]string{}
	for _, f := range frameworks.All {
		vs, err := d.Versions(ctx, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		newest[f.Name] = vs[:min(4, len(vs))]
	}
	merged, conflicting := 0, 0
	for i, a := range frameworks.All {
		for _, b := range frameworks.All[i+1:] {
			for _, va := range newest[a.Name] {
				for _, vb := range newest[b.Name] {
					for _, os := range []string{"linux", "windows"} {
						m, c := checkCombinations(t, d, ResolveRequest{Requirements: []string{a.Name + "==" + va, b.Name + "==" + vb}, Platform: os})
						merged, conflicting = merged+m, conflicting+c
					}
				}
			}
		}
	}
	t.Logf("%d merged, %d conflicting combinations checked", merged, conflicting)
	if merged == 0 || conflicting == 0 {
		t.Errorf("%d merged, %d conflicting: the check needs both", merged, conflicting)
	}
}
