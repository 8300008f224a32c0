package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/querytest"
)

// Each case is one reproduction from the hardening issue: the command
// exits with the usage status, says what was wrong on one error line
// and ends with a Try: line.
func TestUsageErrorsAreNamed(t *testing.T) {
	dbPath := querytest.Path(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	huge := strings.Repeat("1", 5000)
	cases := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"empty --gpu", []string{"resolve", "torch", "--gpu", ""}, []string{"--gpu needs a value"}},
		{"blank --gpu", []string{"resolve", "torch", "--gpu", "   "}, []string{"--gpu needs a value"}},
		{"empty --cuda", []string{"resolve", "torch", "--cuda", ""}, []string{"--cuda needs a value"}},
		{"empty --driver", []string{"resolve", "torch", "--driver="}, []string{"--driver needs a value"}},
		{"empty --sm", []string{"pin", "torch", "--sm", ""}, []string{"--sm needs a value"}},
		{"empty --from", []string{"verify", "--from", ""}, []string{"--from needs a value"}},
		{"negative timeout", []string{"probe", "--timeout", "-5s"}, []string{"--timeout must be a positive duration"}},
		{"zero deep timeout", []string{"verify", "--deep-timeout", "0s"}, []string{"--deep-timeout must be a positive duration"}},
		{"verify --from a directory", []string{"verify", "--from", dir}, []string{"is a directory"}},
		{"verify --from a missing file", []string{"verify", "--from", filepath.Join(dir, "missing.txt")}, []string{"cannot read report"}},
		{"origin-only JSON", []string{"verify", "--from", write("origin.json", `{"origin":"x"}`)}, []string{"no known report format"}},
		{"host-only JSON", []string{"verify", "--from", write("host.json", `{"origin":"host"}`)}, []string{"states no facts"}},
		{"5,000-digit requirement", []string{"resolve", "torch==" + huge}, []string{"longer than 256 bytes", "(5007 bytes)"}},
		{"5,000-digit --cuda", []string{"resolve", "torch", "--cuda", huge}, []string{"longer than 128 bytes"}},
		{"5,000-digit --channel of matrix", []string{"matrix", "torch", "--channel", huge}, []string{"invalid --channel", "(5000 bytes)"}},
		{"5,000-digit version in a pip list", []string{"verify", "--from", write("pip.txt", "Package Version\n------- -------\ntorch "+huge+"\n")},
			[]string{"pythons[0].packages.torch is 5000 bytes long (at most 128)"}},
		{"unknown gen subcommand", []string{"gen", "page"}, []string{`unknown command "page" for "cudb gen"`, "Try: cudb gen --help"}},
		{"unknown db subcommand", []string{"db", "frob"}, []string{`unknown command "frob" for "cudb db"`}},
		{"unknown root flag before a command", []string{"--frob", "resolve", "torch"}, []string{"unknown flag: --frob"}},
		{"misspelt command", []string{"resolv", "torch"}, []string{`unknown command "resolv"`, "did you mean resolve?"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, false, append(tc.args, "--db", dbPath)...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d\n%s%s", code, ExitUsage, out, stderr)
			}
			for _, w := range append(tc.stderr, "\nTry: ") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
			if strings.Count(stderr, "error:") != 1 || len(stderr) > 600 {
				t.Errorf("want one bounded error line, got %d bytes: %s", len(stderr), stderr)
			}
			if out != "" {
				t.Errorf("stdout %q", out)
			}
		})
	}
}

// A group command alone still prints its help and exits 0.
func TestGroupHelp(t *testing.T) {
	for _, args := range [][]string{{"gen"}, {"db"}, {}} {
		code, out, stderr := run(t, false, args...)
		if code != 0 || !strings.Contains(out, "Available Commands") {
			t.Errorf("%v: exit %d: %s%s", args, code, out, stderr)
		}
	}
}

// More error lines than are judged is refused naming the bound (the
// HTTP API answers 422), before any of them is explained.
func TestVerifyErrorLineCap(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= report.MaxErrors; i++ {
		b.WriteString("RuntimeError: The NVIDIA driver on your system is too old (found version 1")
		b.WriteString(strings.Repeat("0", i%5))
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString(")\n")
		b.WriteString("error: line ")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString("\n")
	}
	p := filepath.Join(t.TempDir(), "log.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, false, "verify", "--from", p, "--db", querytest.Path(t))
	if code != ExitUsage || !strings.Contains(stderr, "at most 50 are judged") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	// --json keeps stdout empty on a usage error too.
	code, out, _ := run(t, false, "verify", "--from", p, "--json", "--db", querytest.Path(t))
	if code != ExitUsage || (out != "" && json.Valid([]byte(out))) {
		t.Errorf("json: exit %d %q", code, out)
	}
}
