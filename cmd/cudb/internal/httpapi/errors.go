package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/cudb/cudb/query"
)

// Codes the HTTP layer adds to query's.
const (
	codeMethod        query.Code = "method_not_allowed"
	codeTooLarge      query.Code = "too_large"
	codeUnimplemented query.Code = "unimplemented"
	codeUnavailable   query.Code = "unavailable"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[query.Code]int{
	query.CodeUsage:        http.StatusBadRequest,
	query.CodeNotFound:     http.StatusNotFound,
	query.CodeIncompatible: http.StatusConflict,
	query.CodeInternal:     http.StatusInternalServerError,
	codeMethod:             http.StatusMethodNotAllowed,
	codeTooLarge:           http.StatusRequestEntityTooLarge,
	codeUnimplemented:      http.StatusNotImplemented,
	codeUnavailable:        http.StatusServiceUnavailable,
}

// asError turns any error into the *query.Error the client sees.
// Errors that are not *query.Error are internal: their text may name
// server internals, so the client gets a generic message and the log gets
// the real one.
func asError(err error) (*query.Error, bool) {
	var qe *query.Error
	if errors.As(err, &qe) {
		if _, ok := statusOf[qe.Code]; ok {
			return qe, false
		}
		return &query.Error{Code: query.CodeInternal, Message: qe.Message}, true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return query.Errorf(codeUnavailable, "the request was cancelled or timed out"), false
	}
	return query.Errorf(query.CodeInternal, "internal error"), true
}
