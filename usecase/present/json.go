package present

import (
	"encoding/json"
	"io"
)

// JSON writes v as indented JSON with a trailing newline, HTML left
// unescaped (the JSON every door documents, docs/json.md).
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
