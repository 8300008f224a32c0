package check

import (
	"context"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/verify"
)

// judgeWithVerify is the host judgement the package's own tests hand
// Check: verify's, as usecase.Check hands it in (without the pin plan's
// system cuDNN lines, which the use case adds).
func judgeWithVerify(ctx context.Context, d *db.DB, facts *host.Snapshot, table frameworks.Table) ([]findings.Finding, error) {
	r, err := verify.VerifyWith(ctx, d, facts, verify.Options{Frameworks: table})
	if err != nil {
		return nil, err
	}
	return r.Findings, nil
}
