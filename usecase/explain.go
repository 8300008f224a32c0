package usecase

import (
	"context"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/verify"
)

// MaxExplainedLines is how many distinct error lines one input explains.
const MaxExplainedLines = verify.MaxExplainedLines

// ExplainOptions is the error text to explain: one message or a log.
type ExplainOptions struct {
	Text string
	// Frameworks is the framework table whose log markers name a line's
	// framework (nil: cudb's).
	Frameworks frameworks.Table
}

// Explain names the cause of each error line and its fix.
func Explain(ctx context.Context, d *DB, o ExplainOptions) (*ExplainResult, error) {
	if len(o.Text) > report.MaxSize {
		return nil, &errs.Error{Code: errs.CodeUsage, Message: "the text is larger than 4 MiB"}
	}
	x, err := verify.ExplainWith(ctx, d, o.Text, o.Frameworks)
	if err != nil {
		return nil, err
	}
	return &ExplainResult{Findings: x.Findings, Lines: x.Lines, Skipped: x.Skipped}, nil
}
