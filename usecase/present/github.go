package present

import (
	"io"

	"github.com/cudb/cudb/query/check"
	"github.com/cudb/cudb/usecase"
)

// GitHub writes a check as GitHub Actions workflow commands (::error
// file=…,line=…::…), one annotation per finding.
func GitHub(w io.Writer, rep *usecase.CheckReport) error {
	_, err := io.WriteString(w, check.GitHub(rep))
	return err
}
