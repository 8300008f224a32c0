// Package errs holds the one coded error type that crosses layers: query
// returns it, the CLI maps its code to an exit status and the HTTP API to
// a status code, each in one table.
package errs

import (
	"errors"
	"fmt"
)

// Code classifies an error for the CLI (exit status) and the HTTP API
// (status code). One table each maps codes, in cmd/cudb/internal/app and
// cmd/cudb/internal/httpapi.
type Code string

const (
	CodeInternal     Code = "internal"     // exit 1, HTTP 500
	CodeUsage        Code = "usage"        // exit 2, HTTP 400
	CodeIncompatible Code = "incompatible" // exit 3, HTTP 409
	CodeNotFound     Code = "not_found"    // exit 4, HTTP 404
	// CodeLimit: the input is well-formed but over a stated bound (error
	// lines, environments, field length); the message names the bound.
	CodeLimit Code = "limit" // exit 2, HTTP 422
)

// Error is the one error type that crosses from query (and the other layers) to the CLI and the
// HTTP API. Message is lowercase and says what was wrong; Hint, when set,
// is a command or input to try instead.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"error"`
	Hint    string `json:"hint,omitempty"`
	// Detail carries a machine-readable payload (e.g. the variants that
	// exist) for --json consumers.
	Detail any `json:"detail,omitempty"`
	// Reported means the command already explained the outcome on its
	// output (verify's findings, resolve's conflicts): the error only
	// carries the exit status, and nothing more is printed.
	Reported bool `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with a hint attached.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// CodeOf extracts the code of err; errors that are not *Error are
// internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Reported is an outcome the command has already printed: it sets the
// exit status through code and prints nothing more.
func Reported(code Code, what string) *Error {
	return &Error{Code: code, Message: what, Reported: true}
}

// Usage builds a usage error (exit 2, HTTP 400).
func Usage(format string, args ...any) *Error {
	return Errorf(CodeUsage, format, args...)
}
