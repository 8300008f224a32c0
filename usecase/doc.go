// Package usecase is the one door behind every front door: one typed
// function per use case (Resolve, Matrix, Pin, Verify, Check, Explain),
// each taking one options struct and returning one result type. The CLI,
// the HTTP API, the MCP server and the site generator call these
// functions, the presenters of usecase/present and internal leaves, and
// nothing below them (internal/layout tests it), so the same request gets
// the same answer whatever door it came through.
//
// The result types are the JSON every door documents (docs/json.md);
// presenters (text, JSON, Prometheus, SARIF, GitHub annotations) format
// them and never judge. The aliases in types.go name the result types a
// front door needs to spell, so it never imports the query packages.
package usecase
