package query

import (
	"context"

	"github.com/cudb/cudb/db"
)

// constraints are the host-side limits of a request (driver, GPU) turned
// into filter steps over stacks.
type constraints struct{}

func newConstraints(ctx context.Context, d *db.DB, p *parsedRequest) (*constraints, error) {
	if p.Driver != "" || p.GPU != "" || p.SM != "" {
		return nil, usage("--driver, --gpu and --sm need the NVIDIA facts, which this database does not hold yet")
	}
	return &constraints{}, nil
}

func (c *constraints) steps(fr *frameworkReq) []step { return nil }

func componentAnswers(ctx context.Context, d *db.DB, p *parsedRequest) ([]ComponentAnswer, error) {
	return nil, Errorf(CodeNotFound, "component questions need the NVIDIA facts, which this database does not hold yet")
}
