// Command summary reads `go test -json` on standard input and prints what
// plain `go test` prints (a line per package, the output of failed tests),
// then one line saying which tests were left out because the shared folder
// (../shared) is absent, and how many slow tests `make test-slow` runs.
// It exits 1 when a test or a build failed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/cudb/cudb/internal/testenv"
)

// event is the part of test2json's record this reads.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

type key struct{ pkg, test string }

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	outputs := map[key][]string{}
	var shared, slow []string
	failed := false
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// go test writes a build failure's compiler output as text.
			fmt.Fprintln(out, string(line))
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			failed = true
		case "output":
			outputs[k] = append(outputs[k], e.Output)
			if e.Test == "" && e.Output != "PASS\n" {
				// Package-level lines: ok, FAIL, no test files, and
				// what a package's TestMain prints.
				fmt.Fprint(out, e.Output)
			}
		case "skip":
			if e.Test == "" {
				break
			}
			text := strings.Join(outputs[k], "")
			switch {
			case strings.Contains(text, testenv.SharedMarker):
				shared = append(shared, short(e.Package)+"."+e.Test)
			case strings.Contains(text, testenv.SlowMarker):
				slow = append(slow, short(e.Package)+"."+e.Test)
			}
			delete(outputs, k)
		case "pass":
			delete(outputs, k)
		case "fail":
			if e.Test != "" {
				failed = true
				fmt.Fprint(out, strings.Join(outputs[k], ""))
			} else {
				failed = true
			}
			delete(outputs, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "summary: reading go test -json:", err)
		failed = true
	}
	fmt.Fprintln(out, sharedLine(shared))
	if len(slow) > 0 {
		fmt.Fprintf(out, "slow suites: %d tests left to `make test-slow`\n", len(slow))
	}
	if failed {
		return 1
	}
	return 0
}

// sharedLine is the one line about ../shared.
func sharedLine(skipped []string) string {
	if len(skipped) == 0 {
		return "../shared: every test that reads it ran"
	}
	sort.Strings(skipped)
	names := skipped
	if len(names) > 6 {
		names = append(append([]string{}, names[:6]...), fmt.Sprintf("and %d more", len(skipped)-6))
	}
	return fmt.Sprintf("../shared: %d tests skipped because it is absent (%s)", len(skipped), strings.Join(names, ", "))
}

func short(pkg string) string {
	return strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/cudb/cudb"), "/")
}
