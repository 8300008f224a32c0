// Package input holds what every reader of user-supplied text shares: the
// bounds a parser works within (one budget for the CLI, HTTP and MCP) and
// the decoding of a file's bytes into text (byte-order marks, UTF-16,
// refusal of binary input). Past a bound the answer is an error that
// names it, never a truncated judgement.
package input

import (
	"github.com/cudb/cudb/internal/errs"
)

// The bounds of a project file (docs/check.md, "Limits"). Real files sit
// far below each: the largest published uv.lock we know of is about 2 MiB
// and 1,500 packages, real Dockerfiles have a few hundred instructions and
// nest nothing deeper than a handful of tables.
const (
	// MaxFileSize is the bytes of one file, before decoding.
	MaxFileSize = 8 << 20
	// MaxLineLength is the bytes of one physical line.
	MaxLineLength = 1 << 20
	// MaxLogicalLine is the bytes of one line after continuations are
	// joined (a Dockerfile instruction with its heredocs, a requirement
	// with its backslash-continued options).
	MaxLogicalLine = 4 << 20
	// MaxExpandedValue is the bytes of one Dockerfile ARG or ENV value, or
	// of one word, after $VAR expansion.
	MaxExpandedValue = 64 << 10
	// MaxExpandedTotal is the bytes all $VAR expansions of one file may
	// produce together.
	MaxExpandedTotal = 16 << 20
	// MaxDepth is the nesting of TOML tables, arrays and inline tables
	// (each part of a dotted key or table header nests one table), of
	// YAML flow collections and indentation levels.
	MaxDepth = 64
	// MaxItems is the instructions, requirements or locked packages of one
	// file.
	MaxItems = 100_000
	// MaxIncludes is the files followed from one file (-r/-c includes,
	// COPY'd dependency files, a compose service's Dockerfile), counted
	// through every level.
	MaxIncludes = 256
)

// Limit is the coded error for input over a bound: exit 2, HTTP 422, an
// MCP tool error. what names the input, bound the limit by name.
func Limit(what, bound string, got, max int) *errs.Error {
	return errs.Errorf(errs.CodeLimit, "%s: %s is %d, over the limit of %d", what, bound, got, max).
		WithHint("every bound is listed in docs/check.md (Limits); real project files stay far below them")
}
