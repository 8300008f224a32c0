package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
)

// runTTY drives cudb as if on a terminal of width columns with env.
func runTTY(t *testing.T, width int, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	s, out, errOut := cli.TestStreams("")
	s.TTY, s.Width = true, width
	s.Getenv = func(k string) string { return env[k] }
	code := Main(args, s)
	return code, out.String(), errOut.String()
}

// TestConflictSummary: one line per pair of builds naming the first
// component they disagree on; --explain prints every conflict.
func TestConflictSummary(t *testing.T) {
	args := []string{"resolve", "torch==2.3.1", "tensorflow==2.16.1"}
	_, js, _ := run(t, false, append(args, "--json")...)
	var res struct {
		Conflicts []struct {
			Between []string `json:"between"`
			Message string   `json:"message"`
			Package string   `json:"package"`
		} `json:"conflicts"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil || len(res.Conflicts) < 2 {
		t.Fatalf("want several conflicts in the embedded data: %v %s", err, js)
	}
	pairs := map[string]bool{}
	for _, k := range res.Conflicts {
		pairs[strings.Join(k.Between, "|")] = true
	}
	count := func(out string) int { return strings.Count(out, "conflict (") }
	// The pair's line names the cuDNN disagreement when there is one.
	shown := res.Conflicts[0].Message
	for _, k := range res.Conflicts {
		if strings.Contains(k.Package, "cudnn") {
			shown = k.Message
			break
		}
	}
	code, out, _ := run(t, true, args...)
	if code != 3 || count(out) != len(pairs) || !strings.Contains(out, shown) || !strings.Contains(out, "more: ") {
		t.Errorf("summary (exit %d) has %d conflict lines for %d pairs:\n%s", code, count(out), len(pairs), out)
	}
	code, out, _ = run(t, true, append(args, "--explain")...)
	if code != 3 || count(out) != len(res.Conflicts) {
		t.Errorf("--explain (exit %d) has %d conflict lines for %d conflicts", code, count(out), len(res.Conflicts))
	}
}

// TestSupportWordsAndColour: tables say what the GPU support tokens mean
// (JSON keeps the tokens), and colour them on a terminal unless NO_COLOR.
func TestSupportWordsAndColour(t *testing.T) {
	_, out, _ := runTTY(t, 0, nil, "resolve", "torch==2.1", "--sm", "8.9")
	if !strings.Contains(out, "binary-compatible") || strings.Contains(out, "sass_compatible") || !strings.Contains(out, "\x1b[33mbinary-compatible\x1b[0m") {
		t.Errorf("tty:\n%q", out)
	}
	_, out, _ = runTTY(t, 0, map[string]string{"NO_COLOR": "1"}, "resolve", "torch==2.1", "--sm", "9.0")
	if !strings.Contains(out, "runs natively") || strings.Contains(out, "\x1b[") {
		t.Errorf("NO_COLOR:\n%q", out)
	}
	_, out, _ = run(t, false, "resolve", "torch==2.1", "--sm", "9.0")
	if !strings.Contains(out, "\truns natively\n") || strings.Contains(out, "\x1b[") {
		t.Errorf("piped:\n%q", out)
	}
	_, out, _ = run(t, false, "resolve", "torch==2.1", "--sm", "9.0", "--json")
	if !strings.Contains(out, `"support": "sass"`) {
		t.Errorf("JSON lost the token:\n%s", out)
	}
	// verify's summary and headings are coloured too.
	report := "../../../../internal/host/report/testdata/sm120_error.txt"
	_, out, _ = runTTY(t, 0, nil, "verify", "--from", report)
	if !strings.Contains(out, "\x1b[31mproblems found") || !strings.Contains(out, "\x1b[31mErrors (") {
		t.Errorf("verify on a terminal:\n%q", out)
	}
	_, out, _ = runTTY(t, 0, map[string]string{"NO_COLOR": "x"}, "verify", "--from", report)
	if strings.Contains(out, "\x1b[") {
		t.Errorf("verify with NO_COLOR:\n%q", out)
	}
}

// TestTableFitsTerminal: db check's long notes are cut to the terminal's
// width; piped, nothing is cut.
func TestTableFitsTerminal(t *testing.T) {
	_, out, _ := runTTY(t, 100, nil, "db", "check")
	long := 0
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Fatalf("line of %d columns on a 100-column terminal: %q", n, line)
		}
		if strings.Contains(line, "…") {
			long++
		}
	}
	if long == 0 {
		t.Errorf("no cell was cut:\n%s", out)
	}
	_, piped, _ := run(t, false, "db", "check")
	if !strings.Contains(piped, "subject\tfield\tkept") || strings.Contains(piped, "…") {
		t.Errorf("piped db check was cut or lacks its header")
	}
}

// resolve's status column is coloured on a terminal like verify's
// summary (ok green, unknown yellow), plain under NO_COLOR and piped.
func TestResolveStatusColour(t *testing.T) {
	args := []string{"resolve", "torch", "--json"}
	_, js, _ := run(t, false, args...)
	if !strings.Contains(js, `"status": "unknown"`) {
		t.Skip("no unknown stack among torch's")
	}
	_, out, _ := runTTY(t, 0, nil, "resolve", "torch")
	if !strings.Contains(out, "\x1b[33munknown\x1b[0m") || !strings.Contains(out, "\x1b[32mok\x1b[0m") {
		t.Errorf("tty status not coloured:\n%.600q", out)
	}
	_, out, _ = runTTY(t, 0, map[string]string{"NO_COLOR": "1"}, "resolve", "torch")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("NO_COLOR:\n%.300q", out)
	}
}
