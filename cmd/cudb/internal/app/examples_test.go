package app

import (
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/spf13/cobra"
)

// Every example in every command's --help runs as written (on the
// embedded data): exit 0, or 3 where the example asks whether frameworks
// conflict. Examples that serve, refresh from the network, read a file
// the reader must supply or pipe through the shell are left out by rule.
func TestHelpExamplesRun(t *testing.T) {
	t.Chdir("../../../..") // examples name paths from the repository root (data/cudb.db)
	s, _, _ := cli.TestStreams("")
	root := cli.NewRootCmd(cli.NewFactory(s))
	skipCommand := map[string]bool{"serve": true, "mcp": true, "refresh": true, "build": true, "site": true, "probe": true, "verify": true, "completion": true}
	ran := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if skipCommand[c.Name()] {
			return
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if i := strings.Index(line, "  #"); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			if !strings.HasPrefix(line, "cudb ") || strings.ContainsAny(line, "|<>$`") ||
				strings.Contains(line, "--from") || strings.Contains(line, "--out") || strings.Contains(line, " -o ") ||
				strings.HasPrefix(line, "cudb db build") {
				continue
			}
			args, ok := shellWords(strings.TrimPrefix(line, "cudb "))
			if !ok || (c.Name() == "check" && len(args) > 1 && !strings.HasPrefix(args[1], "-")) {
				continue // a file the reader supplies
			}
			code, _, stderr := run(t, false, args...)
			ran++
			if code != 0 && !(code == 3 && strings.Contains(c.Example, "conflict") || code == 3 && c.Name() == "resolve") {
				t.Errorf("%s --help example %q: exit %d\n%s", c.CommandPath(), line, code, stderr)
			}
		}
	}
	walk(root)
	if ran < 20 {
		t.Errorf("only %d examples ran", ran)
	}
	t.Logf("%d help examples ran", ran)
}

// shellWords splits a command line as sh would for the quoting examples
// use ('…', "…"); ok is false for anything else.
func shellWords(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		out = append(out, cur.String())
	}
	return out, true
}

// The commands a no-match error's Try: line names run and answer (exit
// 0): a hint that fails, or names a flag that does not exist, sends the
// reader in a circle.
func TestNoMatchHintsRun(t *testing.T) {
	for _, args := range [][]string{
		{"resolve", "torchaudio==2.14.0"},
		{"resolve", "tensorflow", "--driver", "300.00"},
		{"resolve", "torch==2.1", "--python", "3.13"},
		{"resolve", "torch==2.1", "cudnn==7"},
		{"resolve", "torch==2.1", "--cuda", "13.0"},
	} {
		code, _, stderr := run(t, false, args...)
		if code != 4 {
			t.Errorf("%v: exit %d, want 4 (no match)\n%s", args, code, stderr)
			continue
		}
		_, hint, ok := strings.Cut(stderr, "Try: ")
		if !ok {
			t.Errorf("%v: no Try: line in %q", args, stderr)
			continue
		}
		cmds := 0
		for _, part := range strings.Split(strings.TrimSpace(hint), "cudb ")[1:] {
			for _, cut := range []string{" (", " without ", " for ", ";", ","} {
				part, _, _ = strings.Cut(part, cut)
			}
			words, ok := shellWords(strings.TrimSuffix(strings.TrimSpace(part), " or"))
			if !ok || len(words) == 0 || strings.HasPrefix(words[0], "-") {
				continue
			}
			cmds++
			if code, _, stderr := run(t, false, words...); code != 0 {
				t.Errorf("%v: hint command %q exits %d\n%s", args, strings.Join(words, " "), code, stderr)
			}
		}
		if cmds == 0 {
			t.Errorf("%v: no runnable command in hint %q", args, hint)
		}
	}
}

// --explain is honoured when piped: the citations follow the table as
// comment lines, and the TSV stays one table.
func TestExplainPiped(t *testing.T) {
	_, plain, _ := run(t, false, "resolve", "torch==2.1", "--cuda", "12.1")
	code, out, stderr := run(t, false, "resolve", "torch==2.1", "--cuda", "12.1", "--explain")
	if code != 0 || strings.Contains(plain, "# cite: ") || !strings.HasPrefix(out, plain) || !strings.Contains(out, "# cite: torch==2.1.0+cu121") {
		t.Fatalf("exit %d %s\nwithout --explain:\n%s\nwith:\n%s", code, stderr, plain, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(strings.TrimPrefix(out, plain)), "\n") {
		if !strings.HasPrefix(l, "# cite: ") || strings.Count(l, ": ") < 3 {
			t.Errorf("line %q is not a citation comment", l)
		}
	}
}
