// Package present holds the presenters of the use cases' results: text,
// JSON, Prometheus, SARIF and GitHub annotations, each in its own file. A
// presenter formats a result and never judges: a new format never
// touches a judgement, and every door (CLI, HTTP, MCP, site) formats the
// same result the same way.
package present
