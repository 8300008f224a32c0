package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query/findings"
)

// releaseBuilds returns the builds of component release ver. A report
// that names only a minor ("torch 2.8", "tf 2.16") names no patch: pip
// reads 2.8 as 2.8.0, so that release is judged when it exists, else the
// newest patch of the minor line the data holds (it has no TensorFlow
// 2.16.0), and
// read says which release was judged. A full version is matched exactly.
func (v *verifier) releaseBuilds(ctx context.Context, component, ver string) (judged string, bs []*db.BuildRow, read string, err error) {
	bs, err = v.d.Builds(ctx, component, func(s string) bool { return s == ver })
	if err != nil || len(bs) > 0 || strings.Count(ver, ".") != 1 {
		return ver, bs, "", err
	}
	line, err := v.d.Builds(ctx, component, func(s string) bool { return strings.HasPrefix(s, ver+".") })
	if err != nil || len(line) == 0 {
		return ver, nil, "", err
	}
	judged = ver + ".0"
	var best version.Version
	found := false
	for _, b := range line {
		if b.Version == judged {
			found = true
			break
		}
		if pv, perr := version.Parse(b.Version); perr == nil && (best.String() == "" || pv.Compare(best) > 0) {
			best = pv
		}
	}
	if !found {
		if best.String() == "" {
			return ver, nil, "", nil
		}
		judged = best.String()
	}
	for _, b := range line {
		if b.Version == judged {
			bs = append(bs, b)
		}
	}
	how := "pip reads " + ver + " as " + judged
	if !found {
		how = fmt.Sprintf("the newest %s release in the data, which holds no %s.0", ver, ver)
	}
	return judged, bs, fmt.Sprintf("%s %s names no patch release: judged as %s (%s)", component, ver, judged, how), nil
}

// shorthandNote says which release a minor-only version was judged as.
func (v *verifier) shorthandNote(read string) {
	if read == "" {
		return
	}
	v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevInfo, Message: read,
		Fix: "state the exact version (pip show <package>) for an exact judgement"})
}
