package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/findings"
)

// shared judges every two frameworks installed in one environment with
// query.Share, the judgement resolve uses: pins that pip cannot satisfy
// together, one libcudnn.so.N that cannot serve both, or a fact the data
// lacks (reported as unknown, never as agreement).
func (v *verifier) shared(ctx context.Context, fws []*framework) {
	for i, a := range fws {
		for _, b := range fws[i+1:] {
			if a.build == nil || b.build == nil || a.py == nil || b.py == nil || a.py.Prefix != b.py.Prefix || a.name == b.name {
				continue
			}
			j := query.Share(v.side(ctx, a), v.side(ctx, b))
			ev := []string{fmt.Sprintf("%s and %s in %s", a.label, b.label, envName(a.py))}
			fix := fmt.Sprintf("cudb resolve %s==%s %s==%s (the versions that share one environment), or give each its own environment", a.name, a.version, b.name, b.version)
			switch j.Status {
			case query.StatusIncompatible:
				var msgs []string
				for _, c := range j.Conflicts {
					msgs = append(msgs, c.Message)
					ev = append(ev, c.Specs...)
				}
				v.add(findings.Finding{Category: findings.CatMultipleCUDALibs, Severity: findings.SevError,
					Message:  fmt.Sprintf("%s and %s cannot share one environment: %s", a.label, b.label, strings.Join(msgs, "; ")),
					Evidence: ev, Fix: fix, Sources: append(a.sources(), b.sources()...)})
			case query.StatusUnknown:
				v.add(findings.Finding{Category: findings.CatUnknownVersion, Severity: findings.SevWarning, Status: query.StatusUnknown, Unknown: j.Unknown,
					Message:  fmt.Sprintf("cudb cannot tell whether %s and %s can share one environment: %s", a.label, b.label, strings.Join(j.Unknown, "; ")),
					Evidence: ev, Fix: fix, Sources: append(a.sources(), b.sources()...)})
			}
		}
	}
}

func (v *verifier) side(ctx context.Context, fw *framework) query.Side {
	var companions []string
	if f, ok := frameworks.Get(fw.name); ok {
		companions = f.Companions
	}
	label := fw.label
	name := fw.name + " " + fw.version + " " + fw.build.Variant
	release, _ := v.d.Builds(ctx, fw.name, func(s string) bool { return s == fw.build.Version })
	return query.SideOf(label, name, fw.build, companions, release)
}
