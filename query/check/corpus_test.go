package check

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/findings"

	"github.com/cudb/cudb/query/querytest"
)

// corpusThreshold is the share of corpus files check must judge right
// (docs/check.md); a false alarm on a good file fails the test whatever
// the score.
const corpusThreshold = 0.90

const corpusDir = "testdata/corpus"

// corpusTable prints the per-file table docs/check.md publishes.
var corpusTable = flag.Bool("corpus-table", false, "print the corpus table of docs/check.md")

type corpusEntry struct {
	file, verdict, want string
	args                []string
	source, evidence    string
}

func readCorpus(t *testing.T) []corpusEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, "corpus.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusEntry
	for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("corpus.tsv line %d: %d fields, want 6", i+1, len(f))
		}
		e := corpusEntry{file: f[0], verdict: f[1], want: f[2], source: f[4], evidence: f[5]}
		if f[3] != "-" {
			e.args = strings.Fields(f[3])
		}
		if e.verdict != "good" && e.verdict != "defect" || !strings.Contains(e.source, "/blob/") && !strings.Contains(e.source, "/issues/") || e.evidence == "" {
			t.Fatalf("corpus.tsv line %d: verdict %q, source %q: want good|defect, a URL at a commit (or the issue that published it) and evidence", i+1, e.verdict, e.source)
		}
		out = append(out, e)
	}
	return out
}

// target reads the corpus's target flags: --driver D, --gpu NAME (with _
// for spaces), --python X.
func corpusTarget(args []string) Target {
	var t Target
	for i := 0; i+1 < len(args); i += 2 {
		v := strings.ReplaceAll(args[i+1], "_", " ")
		switch args[i] {
		case "--driver":
			t.Driver = v
		case "--gpu":
			t.GPU = v
		case "--python":
			t.Python = v
		}
	}
	return t
}

// judgeCorpusFile checks one corpus file, following what it refers to
// inside the corpus folder it sits in.
func judgeCorpusFile(t *testing.T, e corpusEntry) (*Report, error) {
	d := querytest.Embedded(t)
	p := filepath.Join(corpusDir, e.file)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(p)
	read := func(name string) ([]byte, error) {
		full := filepath.Clean(filepath.Join(corpusDir, filepath.FromSlash(name)))
		if !strings.HasPrefix(full, root) {
			return nil, fmt.Errorf("outside the corpus folder")
		}
		return os.ReadFile(full)
	}
	return Check(context.Background(), d, []Input{{Name: e.file, Data: b}}, Options{JudgeHost: judgeWithVerify, Target: corpusTarget(e.args), Read: read})
}

// TestCorpusScore judges every file of the corpus (real project files,
// each with its URL and commit in corpus.tsv): a good file must give no
// error, a defective one an error of the category its own tracker or
// fix commit names. It fails below corpusThreshold or on any false
// alarm, and lists what it missed.
func TestCorpusScore(t *testing.T) {
	entries := readCorpus(t)
	var correct, good, defects, falseAlarms int
	var misses []string
	for _, e := range entries {
		rep, err := judgeCorpusFile(t, e)
		if err != nil {
			t.Errorf("%s: %v", e.file, err)
			continue
		}
		var errors []string
		hit := false
		for _, f := range rep.Findings {
			if f.Severity != findings.SevError {
				continue
			}
			errors = append(errors, fmt.Sprintf("%d:%s", f.Line, f.Category))
			cats, line, _ := strings.Cut(e.want, "@")
			if slices.Contains(strings.Split(cats, "|"), f.Category) && (line == "" || line == fmt.Sprint(f.Line)) {
				hit = true
			}
		}
		outcome := "correct"
		switch e.verdict {
		case "good":
			good++
			if len(errors) == 0 {
				correct++
			} else {
				falseAlarms++
				outcome = "false alarm"
				misses = append(misses, fmt.Sprintf("FALSE ALARM %s: %s", e.file, strings.Join(errors, ", ")))
			}
		case "defect":
			defects++
			if hit {
				correct++
			} else {
				outcome = "missed"
				misses = append(misses, fmt.Sprintf("missed %s: want %s, errors %v", e.file, e.want, errors))
			}
		}
		if *corpusTable {
			want := e.want
			if want == "-" {
				want = "no error"
			}
			fmt.Printf("| [%s](%s) | %s | %s | %s | %s |\n", strings.TrimPrefix(e.file, "../"), e.source, e.verdict, strings.ReplaceAll(want, "|", " or "), strings.Join(errors, ", "), outcome)
		}
	}
	score := float64(correct) / float64(len(entries))
	t.Logf("corpus: %d files (%d good, %d defective): %d correct, %d missed, %d false alarms: %.1f%%",
		len(entries), good, defects, correct, len(entries)-correct-falseAlarms, falseAlarms, 100*score)
	for _, m := range misses {
		t.Log(m)
	}
	// docs/check.md publishes the score: it must be this run's.
	doc, err := os.ReadFile("../../docs/check.md")
	if err != nil {
		t.Fatal(err)
	}
	total := fmt.Sprintf("| total | %d | %d (%.1f%%) | %d | %d |", len(entries), correct, 100*score, len(entries)-correct-falseAlarms, falseAlarms)
	if !strings.Contains(string(doc), total) {
		t.Errorf("docs/check.md does not publish this score: want the row %q (go test ./query/check/ -run TestCorpusScore -corpus-table -v prints the table)", total)
	}
	if falseAlarms > 0 || score < corpusThreshold {
		t.Errorf("corpus score %.1f%% (threshold %.0f%%), %d false alarms:\n%s", 100*score, 100*corpusThreshold, falseAlarms, strings.Join(misses, "\n"))
	}
}
