package verify

import (
	"context"
	"fmt"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// This file applies query's policy for releases whose facts are pending:
// the nearest earlier release of the same minor line stands in, every
// finding it gives is labelled as inferred and stays a warning of status
// unknown, and no fix is a downgrade to the release it was inferred from.

// inferredPython says what the Python range of the nearest earlier
// release's build of the same variant gives for py, or "".
func (v *verifier) inferredPython(ctx context.Context, fw *framework, py version.Dotted) string {
	if fw.build == nil {
		return ""
	}
	from := query.InferredFrom(ctx, v.d, fw.name, fw.version)
	if from == "" {
		return ""
	}
	bs, err := v.d.Builds(ctx, fw.name, func(s string) bool { return s == from })
	if err != nil {
		return ""
	}
	b := pickBuild(bs, fw.build.Variant, false)
	if b == nil || (b.PythonMin == "" && b.PythonMax == "") {
		return ""
	}
	rng := query.Range{Min: b.PythonMin, Max: b.PythonMax}
	verdict := "which includes"
	if !rng.HasPython(py) {
		verdict = "which does not include"
	}
	return fmt.Sprintf("%s: Python %s-%s, %s %s", query.InferredText(fw.name, fw.version, from), b.PythonMin, b.PythonMax, verdict, py)
}

// inferredFindings turns the findings a framework judged by another
// release's facts gave into what the policy allows: warnings of status
// unknown, labelled with the release they were inferred from, with no
// fix of their own (the fix of a missing fact is the data, not a
// downgrade).
func (v *verifier) inferredFindings(fw *framework, from int) {
	for i := from; i < len(v.out); i++ {
		f := &v.out[i]
		if f.Category == findings.CatUnknownVersion {
			continue
		}
		label := query.InferredText(fw.name, fw.version, fw.inferred)
		f.Message = label + ": " + f.Message
		if f.Severity == findings.SevError {
			f.Severity = findings.SevWarning
		}
		f.Status = query.StatusUnknown
		f.Unknown = append(f.Unknown, fmt.Sprintf("%s %s: facts pending", fw.name, fw.version))
		f.Fix = v.pendingFix(fw)
	}
}

func (v *verifier) pendingFix(fw *framework) string {
	return fmt.Sprintf("cudb refresh (once %s %s is documented), or cudb matrix %s", fw.name, fw.version, matrixOf(fw.name))
}

func matrixOf(name string) string {
	if f, ok := frameworks.Get(name); ok && f.Matrix != "" {
		return f.Matrix
	}
	return name
}

// inferBuilds returns the builds of the nearest earlier release of fw's
// minor line and records it in fw.inferred, or nil when there is none.
func (v *verifier) inferBuilds(ctx context.Context, fw *framework) ([]*db.BuildRow, error) {
	from := query.InferredFrom(ctx, v.d, fw.name, fw.version)
	if from == "" {
		return nil, nil
	}
	bs, err := v.d.Builds(ctx, fw.name, func(s string) bool { return s == from })
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	fw.inferred = from
	return bs, nil
}

// judged lists the frameworks judged by their own facts: one judged by
// an earlier release's stands in no pair and shadows nothing.
func judged(fws []*framework) []*framework {
	var out []*framework
	for _, fw := range fws {
		if fw.inferred == "" {
			out = append(out, fw)
		}
	}
	return out
}
