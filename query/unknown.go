package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// This file is the one wording of "unknown" for installed or required
// releases: verify, check, the HTTP API and MCP all say a missing fact
// with these sentences (docs/verify.md, "Unknown is an answer"). A
// missing fact is a warning, never an error, and never the reason for a
// downgrade; where a release's facts are pending, the nearest earlier
// release of its minor line may stand in for it, labelled as inferred,
// and the answer stays unknown.

// InferredFrom is the nearest release before ver in ver's minor line
// (same major.minor: 0.11.0 for 0.11.2) that has builds in the data, or
// "" when there is none. Its facts may be shown for ver, labelled as
// inferred; they never make ver's status ok.
func InferredFrom(ctx context.Context, d *db.DB, component, ver string) string {
	want, err := version.Parse(ver)
	if err != nil {
		return ""
	}
	built, err := d.Versions(ctx, component)
	if err != nil {
		return ""
	}
	var best version.Version
	found := ""
	for _, s := range built {
		v, err := version.Parse(s)
		if err != nil || !sameMinor(v, want) || v.Compare(want) >= 0 {
			continue
		}
		if found == "" || v.Compare(best) > 0 {
			best, found = v, s
		}
	}
	return found
}

func sameMinor(a, b version.Version) bool {
	ar, br := a.Release(), b.Release()
	return len(ar) >= 2 && len(br) >= 2 && ar[0] == br[0] && ar[1] == br[1]
}

// ReleaseUnknownText says that component ver has no facts: a known
// release whose facts are pending (a lead names it), or one the data
// does not hold at all. label names the installed build ("torch
// 2.15.0+cu130"); skipped says what is not judged.
func ReleaseUnknownText(ctx context.Context, d *db.DB, component, ver, label, skipped string) string {
	public, _, _ := strings.Cut(ver, "+")
	if by, _, err := d.Attribute(ctx, component, public, "reported_by"); err == nil && by != "" {
		return fmt.Sprintf("%s is a known release whose facts are pending (reported by %s): %s", label, by, skipped)
	}
	return fmt.Sprintf("%s is not in the database: %s", label, skipped)
}

// InferredText labels what the facts of release from say about ver.
func InferredText(component, ver, from string) string {
	return fmt.Sprintf("inferred from %s %s (the nearest earlier release of its minor line with facts; the status of %s stays unknown)", component, from, ver)
}

// PythonRangeUnknownText says that a build's Python range is missing;
// inferred, when not "", is what the nearest earlier release's range
// says (InferredText's words plus the range).
func PythonRangeUnknownText(label, python, inferred string) string {
	s := fmt.Sprintf("the database records no Python range for %s: whether it runs on Python %s is not judged", label, python)
	if inferred != "" {
		s += "; " + inferred
	}
	return s
}

// UnparsedText says that a value read for label does not parse as what it
// should be, so what depends on it is not judged: silence would read as a
// pass.
func UnparsedText(label, what, value, skipped string) string {
	return fmt.Sprintf("%s: the %s %q does not parse: %s is not judged", label, what, value, skipped)
}
