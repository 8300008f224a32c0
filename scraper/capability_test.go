package scraper

import (
	"testing"

	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/nvidia"
)

// TestCapabilityGrammarIsTheCLIs: refresh accepts a compute capability
// exactly when --sm does (issue 29: refresh took 99.9).
func TestCapabilityGrammarIsTheCLIs(t *testing.T) {
	for _, v := range []string{"1.0", "3.5", "8.6", "9.0", "10.0", "12.1", "19.9", "99.9", "0.5", "20.0", "8.10", "8", "8.", ".6", "abc", "8.6.1", "1e3"} {
		_, cliErr := nvidia.ParseSM(v)
		if got, want := Capability.Valid(v), cliErr == nil; got != want {
			t.Errorf("%q: refresh accepts it: %v, --sm accepts it: %v", v, got, want)
		}
	}
	if !Capability.Valid("5.x") {
		t.Error("a family (5.x) is a capability in the sources")
	}
}

// TestPythonGrammarIsTheCLIs: refresh accepts a Python version exactly
// when --python does.
func TestPythonGrammarIsTheCLIs(t *testing.T) {
	for _, v := range []string{"3.12", "3.12.3", "2.7", "3", "9", "abc", "1e309", "3.100", "4.0", "3.12.3.1", ""} {
		_, cliErr := query.ParsePython(v)
		if got, want := Python.Valid(v), cliErr == nil; got != want {
			t.Errorf("%q: refresh accepts it: %v, --python accepts it: %v", v, got, want)
		}
	}
}
