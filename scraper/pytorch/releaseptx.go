package pytorch

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
)

// Release wheels and nightlies differ in one respect RELEASE.md's support
// matrix does not show: the release team strips "+PTX" from the CUDA arch
// list of release builds ("[release-only]" pull requests), while nightlies
// keep it. RELEASE.md writes the nightly form ("12.0+PTX … +PTX available
// on linux builds only"). The maintainers' pull requests saying which
// release lines ship without PTX are captured (captures/CAPTURES.md) and
// read before the support matrix, whose Linux x86-64 list of those lines
// then drops its compute_ entry. 2.13.0 shipped with PTX (#188914: the
// strip had silently stopped working), so 2.13 is not named: its list
// stays RELEASE.md's, which 2.13.1 and later (built after the fix) no
// longer match, a gap docs/data.md names.
var releasePTXDocs = []quotedDoc{
	{doc{capture: "release-ptx@pytorch-prs.md"}, "the release-only PTX statements", parseReleasePTX},
}

var reNoPTX = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^no-ptx:\s*(\d+\.\d+)\s*\|\s*((?:cu\d+\s*)+)$`)
})

// parseReleasePTX reads "## <pull request>" sections of quoted lines and
// "no-ptx: <minor> | <variants>" facts; a fact whose section quotes no line
// about PTX is refused (every fact must be traceable to its quote).
func parseReleasePTX(src []byte, ref string) ([]scraper.Record, error) {
	var recs []scraper.Record
	var where string
	var quotes []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			where, quotes = strings.TrimSpace(line[3:]), nil
		case strings.HasPrefix(line, ">"):
			quotes = append(quotes, line)
		case strings.HasPrefix(line, "no-ptx:"):
			m := reNoPTX().FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("line %d: want no-ptx: <minor> | <cuNNN> [<cuNNN>…]", n)
			}
			said := false
			for _, q := range quotes {
				said = said || strings.Contains(strings.ToLower(q), "ptx")
			}
			if where == "" || !said {
				return nil, fmt.Errorf("line %d: no quoted line of its section speaks of PTX", n)
			}
			for _, v := range strings.Fields(m[2]) {
				recs = append(recs, scraper.Record{Table: "release_ptx", Key: m[1] + "|" + v,
					Ref:    fmt.Sprintf("%s:%d (release builds without +PTX; %s)", ref, n, where),
					Fields: map[string]string{"minor": m[1], "variant": v, "evidence": where}})
			}
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no no-ptx fact")
	}
	return recs, nil
}

// stripPTX drops the compute_ (PTX) entries of an arch list.
func stripPTX(list string) string {
	var out []string
	for _, a := range strings.Fields(list) {
		if !strings.HasPrefix(a, "compute_") {
			out = append(out, a)
		}
	}
	return strings.Join(out, " ")
}
