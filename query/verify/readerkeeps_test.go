package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host/report"
	"github.com/cudb/cudb/query/querytest"
)

// TestReaderKeepsEverySignature: every signature's real message, pasted
// as a report, reaches explain through verify --from's reader (a
// signature the reader drops is a cause verify never names).
func TestReaderKeepsEverySignature(t *testing.T) {
	d := querytest.Embedded(t)
	cases := map[string]string{}
	for id, text := range signatureCases {
		cases[id] = text
	}
	// the other wordings of a signature's message that real reports use
	for id, text := range signatureVariants {
		cases[id+" (variant)"] = text
	}
	for key, text := range cases {
		id := strings.TrimSuffix(key, " (variant)")
		facts, _, err := report.Parse([]byte(text))
		if err != nil {
			t.Errorf("%s: the reader refuses %q: %v", id, text, err)
			continue
		}
		x, err := ExplainAll(context.Background(), d, strings.Join(facts.Errors, "\n"))
		if err != nil {
			t.Errorf("%s: the reader kept %q, which explains nothing: %v", id, facts.Errors, err)
			continue
		}
		want := ""
		for _, s := range signatures() {
			if s.ID == id {
				want = s.Category
			}
		}
		// a variant may name a more specific cause (a cuDNN DLL is
		// cudnn_missing): it must be explained, by this signature's words
		found := key != id && len(x.Findings) > 0
		for _, f := range x.Findings {
			found = found || f.Category == want
		}
		if !found {
			t.Errorf("%s: kept %q gave %+v, want a %s finding", id, facts.Errors, x.Findings, want)
		}
	}
}

// signatureVariants are other real wordings of a signature's message, which
// the reader must keep as well.
var signatureVariants = map[string]string{
	// m-bain/whisperX#899 (ctranslate2 on Windows)
	"windows_dll_not_found": "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
}
