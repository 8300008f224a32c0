package present

import (
	"io"

	"github.com/cudb/cudb/query/check"
	"github.com/cudb/cudb/usecase"
)

// SARIF writes a check as a SARIF 2.1.0 log (code scanning); toolVersion
// is cudb's version.
func SARIF(w io.Writer, rep *usecase.CheckReport, toolVersion string) error {
	return JSON(w, check.ToSARIF(rep, toolVersion))
}
