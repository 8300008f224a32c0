package verify

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/querytest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated tables (corpus score, signatures) in docs/verify.md")

// corpusCase is one real report from a public tracker, with the cause its
// thread resolved it to.
type corpusCase struct {
	name, url, framework, platform, expect, fix string
	heldout                                     bool
	text                                        string
}

const (
	expectHealthy = "healthy"
	scoreStart    = "<!-- corpus-score:start -->"
	scoreEnd      = "<!-- corpus-score:end -->"
)

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var out []corpusCase
	urls := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, text, ok := strings.Cut(string(b), "\n---\n")
		if !ok {
			t.Fatalf("%s: no --- line between header and report", f)
		}
		c := corpusCase{name: strings.TrimSuffix(filepath.Base(f), ".txt"), text: text}
		for _, l := range strings.Split(head, "\n") {
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimSpace(v)
			switch strings.TrimSpace(k) {
			case "url":
				c.url = v
			case "framework":
				c.framework = v
			case "platform":
				c.platform = v
			case "expect":
				c.expect = v
			case "fix":
				c.fix = v
			case "heldout":
				c.heldout = v == "yes"
			}
		}
		if !strings.HasPrefix(c.url, "https://") || c.expect == "" || c.fix == "" || c.framework == "" || c.platform == "" {
			t.Fatalf("%s: header needs url, framework, platform, expect and fix", f)
		}
		if other, dup := urls[c.url]; dup {
			t.Fatalf("%s: %s is already in the corpus as %s", f, c.url, other)
		}
		urls[c.url] = c.name
		if m := personalPath().FindString(c.text); m != "" {
			t.Fatalf("%s: %q is not anonymised (use /home/user, C:\\Users\\user)", f, m)
		}
		if c.expect != expectHealthy && !contains(findings.Categories, c.expect) {
			t.Fatalf("%s: unknown expected category %q", f, c.expect)
		}
		out = append(out, c)
	}
	return out
}

// personalPath finds home directories that name a person.
var personalPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/home/(?:[^u/\s]|u[^s/]|us[^e/]|use[^r/]|user[^/\s])[^/\s]*|/Users/[^/\s]+|[A-Z]:\\Users\\(?:[^u\\\s>]|u[^s]|us[^e]|use[^r]|user[^\\>\s])[^\\\s>]*`)
})

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// judge runs a corpus report through the reader and verify: right when
// the expected cause is among the error or warning findings; for a
// healthy or not-a-version-problem report, right when no finding is an
// error (an error there is a false alarm).
func judge(t *testing.T, c corpusCase) (right, falseAlarm bool, got string) {
	facts, _, err := report.Parse([]byte(c.text))
	if err != nil {
		return false, false, "refused: " + err.Error()
	}
	r, err := Verify(context.Background(), querytest.Embedded(t), facts)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	var cats []string
	hasErr := false
	for _, f := range r.Findings {
		cats = append(cats, f.Severity+":"+f.Category)
		if f.Severity == findings.SevError {
			hasErr = true
		}
	}
	got = strings.Join(cats, " ")
	if got == "" {
		got = "no findings"
	}
	if c.expect == expectHealthy || c.expect == findings.CatNotVersion {
		return !hasErr, hasErr, got
	}
	for _, f := range r.Findings {
		if f.Category == c.expect && (f.Severity == findings.SevError || f.Severity == findings.SevWarning) {
			return true, false, got
		}
	}
	return false, false, got
}

// TestCorpusScore scores verify --from on real reports: at least 90%
// right causes and no false alarm on a healthy report.
func TestCorpusScore(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 120 {
		t.Errorf("corpus has %d reports, want >= 120", len(cases))
	}
	byCat := map[string]*tally{}
	frameworks := map[string]int{}
	platforms := map[string]int{}
	total, right, alarms := 0, 0, 0
	held, heldRight := 0, 0
	var misses []string
	for _, c := range cases {
		ok, alarm, got := judge(t, c)
		tl := byCat[c.expect]
		if tl == nil {
			tl = &tally{}
			byCat[c.expect] = tl
		}
		tl.n++
		total++
		if c.heldout {
			held++
			if ok {
				heldRight++
			}
		}
		if ok {
			tl.right++
			right++
		} else {
			t.Logf("MISS %s: expected %s, got %s (%s)", c.name, c.expect, got, c.url)
			misses = append(misses, fmt.Sprintf("- `%s` (%s): expected `%s`, got %s", c.name, c.url, c.expect, got))
		}
		if alarm {
			alarms++
			t.Errorf("false alarm on %s (%s): %s", c.name, c.expect, got)
		}
		frameworks[c.framework]++
		for _, p := range strings.Split(c.platform, ",") {
			platforms[strings.TrimSpace(p)]++
		}
	}
	table := scoreTable(byCat, total, right, alarms) +
		fmt.Sprintf("\nOf these, %d reports were added after the signatures were written (`heldout: yes`); %d of them are right now.\n", held, heldRight) +
		"\nReports by framework: " + countLine(frameworks) + ". By platform: " + countLine(platforms) + ".\n" +
		missLines(misses)
	t.Log("\n" + table)
	if float64(right) < 0.9*float64(total) {
		t.Errorf("corpus score %d/%d right causes, below 90%%", right, total)
	}
	healthy := byCat[expectHealthy].n + byCat[findings.CatNotVersion].n
	if healthy < 20 {
		t.Errorf("%d healthy or not-a-version-problem reports, want >= 20", healthy)
	}
	for _, fw := range []string{"torch", "tensorflow", "jax", "onnxruntime"} {
		if frameworks[fw] == 0 {
			t.Errorf("no report for %s", fw)
		}
	}
	for _, p := range []string{"windows", "wsl2", "conda", "docker"} {
		if platforms[p] == 0 {
			t.Errorf("no report from %s", p)
		}
	}
	checkDocBlock(t, scoreStart, scoreEnd, table)
}

type tally struct{ n, right int }

// missLines lists the reports judged wrong, for docs/verify.md.
func missLines(misses []string) string {
	if len(misses) == 0 {
		return "\nMisses: none.\n"
	}
	return "\nMisses:\n\n" + strings.Join(misses, "\n") + "\n"
}

func countLine(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func scoreTable(byCat map[string]*tally, total, right, alarms int) string {
	var cats []string
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var b strings.Builder
	b.WriteString("| expected cause | reports | right | accuracy |\n|---|---:|---:|---:|\n")
	for _, c := range cats {
		x := byCat[c]
		fmt.Fprintf(&b, "| `%s` | %d | %d | %.0f%% |\n", c, x.n, x.right, 100*float64(x.right)/float64(x.n))
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %.1f%% |\n", total, right, 100*float64(right)/float64(total))
	fmt.Fprintf(&b, "\nFalse alarms among healthy and not-a-version-problem reports: %d.\n", alarms)
	return b.String()
}

// checkDocBlock keeps a generated block of docs/verify.md (between start
// and end) equal to table (go test ./query/verify -update-docs rewrites
// it).
func checkDocBlock(t *testing.T, scoreStart, scoreEnd, table string) {
	path := filepath.Join("..", "..", "docs", "verify.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, scoreStart), strings.Index(doc, scoreEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/verify.md lacks the %s ... %s block", scoreStart, scoreEnd)
	}
	want := doc[:i] + scoreStart + "\n" + table + scoreEnd + doc[j+len(scoreEnd):]
	if want == doc {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/verify.md's %s block is stale: go test ./query/verify -update-docs", scoreStart)
}
