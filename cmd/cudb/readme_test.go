package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update", false, "rewrite the README's command examples from the real binary")

// exampleRE finds a README example: a fenced block whose first line is
// "$ cudb ARGS" and whose rest is what the command prints.
var exampleRE = regexp.MustCompile("(?s)```\n\\$ cudb ([^\n]*)\n(.*?)```")

// TestREADMEExamples runs every `$ cudb ...` example of the README through
// the real binary on the embedded data and fails when the README shows
// something else (run with -update to rewrite them).
func TestREADMEExamples(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	readme := string(b)
	n := 0
	out := exampleRE.ReplaceAllStringFunc(readme, func(block string) string {
		m := exampleRE.FindStringSubmatch(block)
		args := strings.Fields(m[1])
		n++
		got, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Errorf("cudb %s: %v", m[1], err)
			return block
		}
		if string(got) != m[2] && !*updateREADME {
			t.Errorf("README example `cudb %s` is stale (go test ./cmd/cudb -run TestREADMEExamples -update)", m[1])
		}
		return "```\n$ cudb " + m[1] + "\n" + string(got) + "```"
	})
	if n < 8 {
		t.Errorf("found %d README examples, want one per pin format at least", n)
	}
	if *updateREADME && out != readme {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
