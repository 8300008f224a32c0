package site

import (
	"context"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
)

// The install selector judges kernels per OS with the shared judgement
// (query.StackGPUFit), shipped database: a Pascal GPU (6.1) gets "none"
// from torch 2.8.0+cu128 on Linux, "unknown" on Windows (no Windows list
// of 2.8 is known) and native SASS from 2.1.0+cu121 on Windows (builder's
// windows/cuda121.bat keeps sm_61).
func TestSelectorKernelsPerOS(t *testing.T) {
	ctx := context.Background()
	d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sel, err := BuildSelector(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	support := func(ver, os, variant string) string {
		a := sel.Answers[AnswerKey("torch", ver, os, "pip")]
		if a == nil {
			t.Fatalf("no answer for torch %s %s", ver, os)
		}
		for _, s := range a.Stacks {
			if s.Variant == variant {
				i, ok := sel.Fits[s.Fit]["6.1"]
				if !ok {
					t.Fatalf("torch %s %s %s: no judgement for 6.1", ver, os, variant)
				}
				return sel.Picks[i].Support
			}
		}
		t.Fatalf("torch %s %s: no %s stack", ver, os, variant)
		return ""
	}
	for _, c := range []struct{ ver, os, variant, want string }{
		{"2.8.0", "linux", "cu128", "none"},
		{"2.8.0", "windows", "cu128", "unknown"},
		{"2.1.0", "windows", "cu121", "sass"},
		{"2.1.0", "linux", "cu121", "sass_compatible"},
	} {
		if got := support(c.ver, c.os, c.variant); got != c.want {
			t.Errorf("torch %s %s %s on compute capability 6.1: %s, want %s", c.ver, c.os, c.variant, got, c.want)
		}
	}
}
