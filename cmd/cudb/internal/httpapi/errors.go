package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/cudb/cudb/internal/errs"
)

// Codes the HTTP layer adds to query's.
const (
	codeMethod      errs.Code = "method_not_allowed"
	codeTooLarge    errs.Code = "too_large"
	codeUnavailable errs.Code = "unavailable"
	codeForbidden   errs.Code = "forbidden_origin"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[errs.Code]int{
	errs.CodeUsage:        http.StatusBadRequest,
	errs.CodeNotFound:     http.StatusNotFound,
	errs.CodeIncompatible: http.StatusConflict,
	errs.CodeInternal:     http.StatusInternalServerError,
	codeMethod:            http.StatusMethodNotAllowed,
	codeTooLarge:          http.StatusRequestEntityTooLarge,
	codeUnavailable:       http.StatusServiceUnavailable,
	codeForbidden:         http.StatusForbidden,
	errs.CodeLimit:        http.StatusUnprocessableEntity,
}

// asError turns any error into the *errs.Error the client sees.
// Errors that are not *errs.Error are internal: their text may name
// server internals, so the client gets a generic message and the log gets
// the real one.
func asError(err error) (*errs.Error, bool) {
	var qe *errs.Error
	if errors.As(err, &qe) {
		if _, ok := statusOf[qe.Code]; ok {
			return qe, false
		}
		return &errs.Error{Code: errs.CodeInternal, Message: qe.Message}, true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errs.Errorf(codeUnavailable, "the request was cancelled or timed out"), false
	}
	return errs.Errorf(errs.CodeInternal, "internal error"), true
}
