package verify

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// MaxExplainedLines bounds the distinct error lines one input gets
// explained; the others are counted in Explanation.Skipped.
const MaxExplainedLines = 50

// maxLineLen bounds the part of one line the signatures look at: error
// messages are short, a pasted minified blob is not.
const maxLineLen = 4096

// Explanation is what ExplainAll found in a text.
type Explanation struct {
	Findings []findings.Finding `json:"findings"`
	// Lines is the number of distinct lines that matched a signature.
	Lines int `json:"lines"`
	// Skipped counts the distinct matching lines beyond
	// MaxExplainedLines, left unexplained.
	Skipped int `json:"skipped"`
}

// ExplainAll explains every distinct error line of text (at most
// MaxExplainedLines of them) in one pass over its lines: the cost is
// linear in the text, each (signature, values) pair is explained once per
// call (its database lookups memoised), and ctx cancellation stops it.
func ExplainAll(ctx context.Context, d *db.DB, text string) (*Explanation, error) {
	return ExplainWith(ctx, d, text, nil)
}

// ExplainWith is ExplainAll with the framework table whose log markers
// name the framework of a line (nil: cudb's, frameworks.All).
func ExplainWith(ctx context.Context, d *db.DB, text string, table frameworks.Table) (*Explanation, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errs.Usage("nothing to explain: give an error message").WithHint(`cudb explain "no kernel image is available for execution on the device"`)
	}
	lines := strings.Split(normalizeMessage(text), "\n")
	lower := make([]string, len(lines))
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if len(l) > maxLineLen {
			l = l[:maxLineLen]
		}
		lines[i] = l
		lower[i] = strings.ToLower(l)
	}
	e := &explainCtx{d: d, lines: lines, table: table.Or()}
	x := &Explanation{Findings: []findings.Finding{}}
	memo := map[string]bool{}    // signature + values already explained
	seenMsg := map[string]bool{} // category + message already given
	seenLine := map[string]bool{}
	sigs := signatures()
	for i, l := range lines {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("explain interrupted: %w", err)
			}
		}
		if l == "" || seenLine[l] {
			continue
		}
		seenLine[l] = true
		counted := false
		for si := range sigs {
			s := &sigs[si]
			if !strings.Contains(lower[i], s.Key) {
				continue
			}
			subject := l
			if s.Span > 1 {
				end := min(i+s.Span, len(lines))
				subject = strings.Join(lines[i:end], "\n")
			}
			loc := s.re.FindStringSubmatchIndex(subject)
			if loc == nil {
				continue
			}
			if !counted && !s.Harmless {
				counted = true
				x.Lines++
				if x.Lines > MaxExplainedLines {
					x.Skipped++
					break
				}
			}
			m := make([]string, len(loc)/2)
			for k := range m {
				if loc[2*k] >= 0 {
					m[k] = subject[loc[2*k]:loc[2*k+1]]
				}
			}
			key := s.ID + "\x00" + strings.Join(m[1:], "\x00")
			if memo[key] {
				continue
			}
			memo[key] = true
			e.at = i
			f, err := s.fn(e, ctx, m)
			if err != nil {
				return nil, err
			}
			if f.Category == "" {
				continue
			}
			mk := f.Category + "\x00" + f.Message
			if seenMsg[mk] {
				continue
			}
			seenMsg[mk] = true
			if f.Evidence == nil {
				f.Evidence = []string{}
			}
			if f.Sources == nil {
				f.Sources = []query.SourceRef{}
			}
			f.Evidence = append([]string{"message: " + evidenceLine(subject[loc[0]:])}, f.Evidence...)
			if fw := lineFramework(e.table, l); fw != "" {
				f.Evidence = append(f.Evidence, frameworkEvidence+fw+" (its log line)")
			}
			x.Findings = append(x.Findings, f)
		}
	}
	if x.Lines > MaxExplainedLines {
		x.Lines = MaxExplainedLines
	}
	if len(x.Findings) == 0 {
		return nil, errs.Errorf(errs.CodeNotFound, "no known cause matches this message").
			WithHint("cudb verify (judges the whole host), or paste the full traceback")
	}
	x.Findings = preferSpecific(x.Findings)
	return x, nil
}

// evidenceLine is the matched message up to the end of its line.
func evidenceLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// preferSpecific drops general findings that a more specific one in the
// same text already states: "no kernel image" under an sm_ message, a
// cuDNN status code under a named cuDNN version problem.
func preferSpecific(out []findings.Finding) []findings.Finding {
	if len(out) < 2 {
		return out
	}
	has := map[string]bool{}
	for _, f := range out {
		if f.Severity == findings.SevError {
			has[f.Category] = true
		}
		if f.Category == findings.CatArchUnsupported && strings.Contains(f.Message, "(sm_") {
			has["sm"] = true
		}
	}
	var keep []findings.Finding
	for _, f := range out {
		switch {
		case has["sm"] && f.Category == findings.CatArchUnsupported && strings.HasPrefix(f.Message, "the GPU has no kernel"):
			continue
		case f.Severity != findings.SevError && has[f.Category]:
			// a hedged reading of a status code beside a clear one
			continue
		}
		keep = append(keep, f)
	}
	return keep
}

// normalizeMessage undoes what pastes do to messages: typographic quotes,
// non-breaking spaces, ANSI colours, CRLF.
func normalizeMessage(s string) string {
	if strings.Contains(s, "\x1b[") {
		s = ansi().ReplaceAllString(s, "")
	}
	return quoteFixer.Replace(s)
}

var quoteFixer = strings.NewReplacer(
	"\r\n", "\n", "\r", "\n",
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u00b4", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`,
	"\u00a0", " ", "\u2009", " ", "\u202f", " ",
	"\u2013", "-", "\u2014", "-",
)

var ansi = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`) })
