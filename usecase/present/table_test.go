package present_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
	"github.com/cudb/cudb/usecase"
	"github.com/cudb/cudb/usecase/present"
)

// TestTableForPeopleAndPrograms: the same table is aligned, upper-cased,
// cut to the width and coloured on a terminal, and tab-separated under a
// snake_case header when piped.
func TestTableForPeopleAndPrograms(t *testing.T) {
	tbl := &present.Table{Header: []string{"driver (min)", "status", "note"},
		Status: map[int]func(string) present.Tone{1: present.StackTone}}
	tbl.Add("535.104.05", usecase.StatusOK, "")
	tbl.Add("", usecase.StatusUnknown, "no facts\tfor this release in the data")

	var piped bytes.Buffer
	if err := tbl.Render(present.Terminal{Out: &piped}); err != nil {
		t.Fatal(err)
	}
	if want := "driver_min\tstatus\tnote\n535.104.05\tok\t\n\tunknown\tno facts for this release in the data\n"; piped.String() != want {
		t.Errorf("piped:\n%q\nwant\n%q", piped.String(), want)
	}

	var tty bytes.Buffer
	if err := tbl.Render(present.Terminal{Out: &tty, TTY: true, Width: 40, Colour: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tty.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "DRIVER (MIN)") || !strings.HasPrefix(lines[2], "-") {
		t.Fatalf("terminal:\n%s", tty.String())
	}
	if !strings.Contains(lines[1], "\x1b[32mok\x1b[0m") || !strings.Contains(lines[2], "\x1b[33munknown\x1b[0m") {
		t.Errorf("want ok in green, unknown in yellow:\n%q", tty.String())
	}
	if !strings.HasSuffix(lines[2], "no facts for thi…") || strings.Contains(tty.String(), "\t") {
		t.Errorf("want the note cut to the width, no tab on a terminal:\n%q", tty.String())
	}
}

// TestResolutionText: a resolve's answer piped is one table followed by
// comment lines naming the best install command.
func TestResolutionText(t *testing.T) {
	d := querytest.Open(t)
	res, err := usecase.Resolve(context.Background(), d, usecase.ResolveOptions{ResolveRequest: usecase.ResolveRequest{Requirements: []string{"torch==2.1.0"}, CUDA: "12.1"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := present.ResolutionText(present.Terminal{Out: &out}, res, false, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "packages\tvariant\t") || !strings.Contains(out.String(), "torch==2.1.0") {
		t.Fatalf("table:\n%s", out.String())
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "# best: ") || !strings.Contains(last, res.Stacks[0].Install.Command) {
		t.Errorf("want the best install command last, got %q", last)
	}
}
