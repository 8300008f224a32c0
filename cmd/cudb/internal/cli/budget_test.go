package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/query/querytest"
)

// A command that answers from the database runs under a work budget and
// says so when it runs out; refresh, serve and probe are bounded
// otherwise.
func TestCommandBudget(t *testing.T) {
	path := querytest.Path(t)
	for _, args := range [][]string{
		{"resolve", "torch==2.3.1", "tensorflow==2.14.0"},
		{"explain", "The NVIDIA driver on your system is too old (found version 11040)"},
		{"matrix", "torch"},
	} {
		s, _, _ := TestStreams("")
		f := NewFactory(s)
		f.Budget = time.Nanosecond
		root := NewRootCmd(f)
		root.SetArgs(append(args, "--db", path))
		err := f.Finish(root.Execute())
		if err == nil || !strings.Contains(err.Error(), "work budget of 1ns") {
			t.Errorf("%v: %v", args, err)
		}
	}
	// With the default budget the same commands answer.
	s, out, _ := TestStreams("")
	f := NewFactory(s)
	root := NewRootCmd(f)
	root.SetArgs([]string{"resolve", "torch==2.1", "--db", path})
	if err := f.Finish(root.Execute()); err != nil || !strings.Contains(out.String(), "cu121") {
		t.Errorf("default budget: %v %s", err, out)
	}
	c, _, err := NewRootCmd(NewFactory(s)).Find([]string{"refresh"})
	if err != nil || !unbudgeted(c) {
		t.Errorf("refresh is budgeted: %v", err)
	}
}
