package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/errs"
)

const checkFixture = "../../../../query/check/testdata/peer/Dockerfile.valid"

// TestCheckCmdUsage: bad flags and inputs are usage errors (exit 2)
// with a Try line, before anything is judged.
func TestCheckCmdUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check"},
		{"check", checkFixture, "--format", "xml"},
		{"check", checkFixture, "--driver", "banana"},
		{"check", checkFixture, "--sm", "99.9"},
		{"check", checkFixture, "--platform", "plan9"},
		{"check", checkFixture, "--build-arg", "NOVALUE"},
		{"check", checkFixture, "--host", "--host-from", "x.txt"},
		{"check", "no/such/Dockerfile"},
		{"check", "-", "-"},
	} {
		s, _, _ := TestStreams("FROM python:3.11\n")
		root := NewRootCmd(NewFactory(s))
		root.SetArgs(args)
		err := root.Execute()
		if errs.CodeOf(err) != errs.CodeUsage && errs.CodeOf(err) != errs.CodeNotFound {
			t.Errorf("%v: err %v (code %q), want a usage error", args, err, errs.CodeOf(err))
			continue
		}
		var e *errs.Error
		if errs.CodeOf(err) == errs.CodeUsage && (!errors.As(err, &e) || e.Hint == "") {
			t.Errorf("%v: usage error without a Try hint: %v", args, err)
		}
	}
}

// TestCheckCmdStdin reads a Dockerfile from standard input and writes the
// text report.
func TestCheckCmdStdin(t *testing.T) {
	s, out, _ := TestStreams("FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu121\n")
	root := NewRootCmd(NewFactory(s))
	root.SetArgs([]string{"check", "-", "--driver", "535.104.05"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"read standard input (dockerfile) image nvidia/cuda:12.1.0-runtime-ubuntu22.04", "healthy: 0 error(s)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
