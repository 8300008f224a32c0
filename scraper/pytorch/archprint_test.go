package pytorch

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// The captured get_arch_list() printouts of released wheels become the
// arch lists of the Linux x86-64 wheel builds they name.
func TestPrintedArchListCapture(t *testing.T) {
	all, err := scrapeArchPrints(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var recs []scraper.Record // the issue thread's sessions (the table is TestArchListTableCapture's)
	for _, r := range all {
		if strings.HasPrefix(r.Ref, "get_arch_list@pytorch-issue-182250.md:") {
			recs = append(recs, r)
		}
	}
	if len(recs) != 3 {
		t.Fatalf("%d printed lists, want 3: %+v", len(recs), recs)
	}
	f := newFacts("pytorch-lockfiles")
	for _, r := range recs {
		if r.URL != "https://github.com/pytorch/pytorch/issues/182250" {
			t.Errorf("record cites %q", r.URL)
		}
		printedArchList(f, r, f.prov(r.URL, r.Ref))
	}
	want := map[db.BuildKey]string{
		{Component: "torch", Version: "2.11.0", Variant: "cu126", Platform: "linux"}: "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
		{Component: "torch", Version: "2.11.0", Variant: "cu128", Platform: "linux"}: "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
		{Component: "torch", Version: "2.10.0", Variant: "cu128", Platform: "linux"}: "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
	}
	res := f.result()
	if len(res.Builds) != len(want) {
		t.Fatalf("%d builds, want %d: %+v", len(res.Builds), len(want), res.Builds)
	}
	for _, b := range res.Builds {
		if w, ok := want[b.Key()]; !ok || b.ArchList != w || b.CUDA != cudaOfVariant(b.Variant) {
			t.Errorf("build %s arch %q cuda %q; want arch %q", b.Key(), b.ArchList, b.CUDA, w)
		}
		if b.Provenance.URL != "https://github.com/pytorch/pytorch/issues/182250" || b.Provenance.Ref == "" {
			t.Errorf("build %s provenance %+v", b.Key(), b.Provenance)
		}
	}
}

func TestParseArchPrintsSad(t *testing.T) {
	for name, src := range map[string]string{
		"no version printed": ">>> torch.cuda.get_arch_list()\n['sm_80']\n",
		"cpu build":          ">>> torch.__version__\n'2.11.0+cpu'\n>>> torch.cuda.get_arch_list()\n[]\n",
		"other session":      ">>> torch.__version__\n'2.11.0+cu128'\n$ python\n>>> torch.cuda.get_arch_list()\n['sm_80']\n",
		"not a list":         ">>> torch.__version__\n'2.11.0+cu128'\n>>> torch.cuda.get_arch_list()\nTraceback (most recent call last):\n",
		"empty":              "",
	} {
		if recs, err := parseArchPrints([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, records %+v", name, recs)
		}
	}
	// An aarch64-looking list (nothing below sm_80) is refused, not
	// guessed onto the x86-64 wheel.
	recs, err := parseArchPrints([]byte(">>> torch.__version__\n'2.11.0+cu128'\n>>> torch.cuda.get_arch_list()\n['sm_80', 'sm_90', 'compute_90']\n"), "x")
	if err != nil || len(recs) != 1 || recs[0].Fields["architectures"] != "sm_80 sm_90 compute_90" {
		t.Fatalf("recs %+v err %v", recs, err)
	}
	f := newFacts("t")
	printedArchList(f, recs[0], f.prov("u", "r"))
	if res := f.result(); len(res.Builds) != 0 || len(res.Conflicts) != 1 || res.Conflicts[0].Field != "refused" {
		t.Errorf("builds %+v conflicts %+v", res.Builds, res.Conflicts)
	}
}

func FuzzParseArchPrints(f *testing.F) {
	b, err := captures.ReadFile("captures/" + archPrintDocs[0].d.capture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(">>> torch.__version__\n'2.1.0+cu121'\n>>> torch.cuda.get_arch_list()\n['sm_50', 'compute_90']\n")
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseArchPrints([]byte(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Fields["torch_version"] == "" || r.Fields["architectures"] == "" {
				t.Fatalf("record without version or list: %+v", r)
			}
			if _, err := archList(r.Fields["architectures"]); err != nil {
				t.Fatalf("parsed list not an arch list: %v", err)
			}
		}
	})
}

// Both sides of the captured RELEASE.md edit are read: the old side is the
// matrix of 2.9 and 2.10, the new side that of 2.11; rows cite the
// capture's own lines.
func TestSupportDiffCapture(t *testing.T) {
	recs, err := scrapeSupportEdits(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Key] = r.Fields["architectures"] + " @ " + r.Ref
	}
	want := map[string]string{
		"x86_64|12.8.1|2.9;2.10": "Volta(7.0), Turing(7.5), Ampere(8.0, 8.6), Hopper(9.0), Blackwell(10.0, 12.0) @ RELEASE.md-diff@pytorch-pr-175253.md:10 (PyTorch CUDA Support Matrix, before the edit)",
		"x86_64|12.8.1|2.11":     "Turing(7.5), Ampere(8.0, 8.6), Hopper(9.0), Blackwell(10.0, 12.0) @ RELEASE.md-diff@pytorch-pr-175253.md:12 (PyTorch CUDA Support Matrix, after the edit)",
		"x86_64|13.0.0|2.9;2.10": "Turing(7.5), Ampere(8.0, 8.6), Hopper(9.0), Blackwell(10.0, 12.0+PTX) @ RELEASE.md-diff@pytorch-pr-175253.md:11 (PyTorch CUDA Support Matrix, before the edit)",
		"x86_64|13.0.2|2.11":     "Turing(7.5), Ampere(8.0, 8.6), Hopper(9.0), Blackwell(10.0, 12.0+PTX) @ RELEASE.md-diff@pytorch-pr-175253.md:13 (PyTorch CUDA Support Matrix, after the edit)",
	}
	if len(recs) != 6 {
		t.Errorf("%d rows, want 6 (3 per side): %v", len(recs), got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	f := newFacts("pytorch-release-md")
	for _, r := range recs {
		archRow(f, r, nil)
	}
	lists := map[string]string{}
	for _, b := range f.result().Builds {
		lists[b.Version+" "+b.Variant+" "+b.Platform] = b.ArchList
		if b.Provenance.URL != "https://github.com/pytorch/pytorch/pull/175253" {
			t.Errorf("%s cites %q", b.Key(), b.Provenance.URL)
		}
	}
	for k, w := range map[string]string{
		"2.10.* cu128 linux":   "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
		"2.10.* cu130 linux":   "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
		"2.10.* cu130 windows": "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
		"2.11.* cu128 linux":   "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
		"2.11.* cu130 linux":   "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
	} {
		if lists[k] != w {
			t.Errorf("%s arch list %q, want %q", k, lists[k], w)
		}
	}
}

func TestParseSupportDiffSad(t *testing.T) {
	for name, src := range map[string]string{
		"no heading":        " | CUDA | architectures supported for Linux x86 and Windows builds |\n | --- | --- |\n | 12.6.3 | Volta(7.0) |\n",
		"only the new side": "+For Release 2.11 PyTorch Supports following CUDA Architectures:\n+\n+| CUDA | architectures supported for Linux x86 and Windows builds |\n+| --- | --- |\n+| 12.6.3 | Volta(7.0) |\n",
		"empty":             "",
	} {
		if recs, err := parseSupportDiff([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, rows %+v", name, recs)
		}
	}
}

func FuzzParseSupportDiff(f *testing.F) {
	b, err := captures.ReadFile("captures/" + supportEdits[0].d.capture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseSupportDiff([]byte(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Fields["releases"] == "" || !strings.HasPrefix(r.Ref, "fuzz:") {
				t.Fatalf("row without releases or citation: %+v", r)
			}
		}
	})
}

// The table of printouts in nikopueringer/CorridorKey#141: the 2.7.1
// wheels' lists per CUDA variant and OS become the arch lists of the Linux
// and the Windows builds (Windows' cu128 list keeps Maxwell and Pascal,
// Linux's drops them); the 2.10 lists are refused, as "PyTorch 2.10" does
// not say which release was installed.
func TestArchListTableCapture(t *testing.T) {
	all, err := scrapeArchPrints(context.Background(), scraper.Input{Snapshots: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := newFacts("pytorch-lockfiles")
	n := 0
	for _, r := range all {
		if r.URL == "https://github.com/nikopueringer/CorridorKey/pull/141" {
			n++
			printedArchList(f, r, f.prov(r.URL, r.Ref))
		}
	}
	if n != 8 {
		t.Fatalf("%d lists from the table, want 8", n)
	}
	want := map[db.BuildKey]string{
		{Component: "torch", Version: "2.7.1", Variant: "cu126", Platform: "linux"}:   "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
		{Component: "torch", Version: "2.7.1", Variant: "cu126", Platform: "windows"}: "sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90",
		{Component: "torch", Version: "2.7.1", Variant: "cu128", Platform: "linux"}:   "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120",
		{Component: "torch", Version: "2.7.1", Variant: "cu128", Platform: "windows"}: "sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120",
	}
	res := f.result()
	if len(res.Builds) != len(want) {
		t.Fatalf("%d builds, want %d: %+v", len(res.Builds), len(want), res.Builds)
	}
	for _, b := range res.Builds {
		if w, ok := want[b.Key()]; !ok || b.ArchList != w {
			t.Errorf("build %s arch %q; want %q", b.Key(), b.ArchList, w)
		}
	}
	refusedMinor := 0
	for _, c := range res.Conflicts {
		if c.Field == "refused" && strings.Contains(c.Note, "names a minor (2.10)") {
			refusedMinor++
		}
	}
	if refusedMinor != 4 {
		t.Errorf("%d 2.10 lists refused, want 4: %+v", refusedMinor, res.Conflicts)
	}
}

func TestParseArchListTableSad(t *testing.T) {
	for name, src := range map[string]string{
		"no OS":      "### PyTorch 2.7.1\n#### CUDA 12.8\n['sm_80']\n",
		"no CUDA":    "### PyTorch 2.7.1\nLinux:\n['sm_80']\n",
		"no version": "#### CUDA 12.8\nLinux:\n['sm_80']\n",
		"empty":      "",
	} {
		if recs, err := parseArchListTable([]byte(src), "x"); err == nil {
			t.Errorf("%s: no error, records %+v", name, recs)
		}
	}
	// an OS label covers the one list after it
	recs, err := parseArchListTable([]byte("### PyTorch 2.7.1\n#### CUDA 12.8\nLinux:\n['sm_75']\n['sm_80']\n"), "x")
	if err != nil || len(recs) != 1 {
		t.Errorf("records %+v, err %v", recs, err)
	}
}

func FuzzParseArchListTable(f *testing.F) {
	f.Add(string(readCapture(f, "get_arch_list@CorridorKey-pr-141.md")))
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := parseArchListTable([]byte(src), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Fields["torch_version"] == "" || cudaOfVariant(r.Fields["cuda_variant"]) == "" || r.Fields["platform"] == "" {
				t.Fatalf("record %+v", r)
			}
			if _, err := archList(r.Fields["architectures"]); err != nil {
				t.Fatalf("parsed list not an arch list: %v", err)
			}
		}
	})
}
