package usecase

import (
	"context"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/query"
)

// ResolveOptions is a resolve: requirements, host constraints and how
// many stacks to keep.
type ResolveOptions struct {
	ResolveRequest
	// Limit keeps at most this many stacks (0 = all).
	Limit int
}

// Resolve finds the stacks that satisfy the requirements, best first. A
// conflict between frameworks is an answer (Resolution.Conflicts), not an
// error: the door prints it, then reports exit 3 (ResolveOutcome).
func Resolve(ctx context.Context, d *DB, o ResolveOptions) (*Resolution, error) {
	if o.Limit < 0 {
		return nil, errs.Usage("limit must be 0 or more").WithHint("cudb resolve torch==2.1 --limit 5")
	}
	res, err := query.Resolve(ctx, d, o.ResolveRequest)
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && len(res.Stacks) > o.Limit {
		res.Stacks = res.Stacks[:o.Limit]
	}
	return res, nil
}

// ResolveOutcome is the coded outcome of a resolution the door has
// already printed: exit 3 when the frameworks cannot share one
// environment, nil otherwise.
func ResolveOutcome(res *Resolution) error {
	if res != nil && len(res.Conflicts) > 0 {
		return errs.Reported(errs.CodeIncompatible, "the frameworks cannot share one environment")
	}
	return nil
}

// ConflictLines words a resolution's conflicts, one line each (with
// their citations when explain).
func ConflictLines(cs []Incompatibility, explain bool) []string {
	return query.ConflictLines(cs, explain)
}
