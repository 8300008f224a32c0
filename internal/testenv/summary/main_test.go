package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummaryCountsSharedAndSlowSkips(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"github.com/cudb/cudb/data","Test":"TestDataIsFresh"}`,
		`{"Action":"output","Package":"github.com/cudb/cudb/data","Test":"TestDataIsFresh","Output":"    data_test.go:22: [needs ../shared] source snapshots not found\n"}`,
		`{"Action":"skip","Package":"github.com/cudb/cudb/data","Test":"TestDataIsFresh"}`,
		`{"Action":"output","Package":"github.com/cudb/cudb/cmd/wheel","Test":"TestWheel","Output":"[slow suite] make test-slow runs it\n"}`,
		`{"Action":"skip","Package":"github.com/cudb/cudb/cmd/wheel","Test":"TestWheel"}`,
		`{"Action":"output","Package":"github.com/cudb/cudb/data","Output":"ok  \tgithub.com/cudb/cudb/data\t0.1s\n"}`,
		`{"Action":"pass","Package":"github.com/cudb/cudb/data"}`,
	}, "\n")
	var out bytes.Buffer
	if rc := run(strings.NewReader(in), &out); rc != 0 {
		t.Fatalf("rc %d:\n%s", rc, out.String())
	}
	got := out.String()
	for _, want := range []string{"ok  \tgithub.com/cudb/cudb/data", "../shared: 1 tests skipped because it is absent (data.TestDataIsFresh)", "slow suites: 1 tests"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestSummaryFailsOnFailedTest(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"output","Package":"p","Test":"TestX","Output":"--- FAIL: TestX\n    boom\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestX"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	var out bytes.Buffer
	if rc := run(strings.NewReader(in), &out); rc != 1 {
		t.Fatalf("rc %d, want 1", rc)
	}
	if !strings.Contains(out.String(), "boom") || !strings.Contains(out.String(), "every test that reads it ran") {
		t.Errorf("output:\n%s", out.String())
	}
}
