package report

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/host"
	"github.com/cudb/cudb/internal/version"
)

// SourceReportKey is the Source of a framework read from a labelled line.
const SourceReportKey = "report key"

// indexFrameworks indexes each environment's frameworks by the table,
// then reads the table's report keys: "<key>: <version>" on a line of its
// own names the version of a framework no package list named, in every
// environment the report describes (a report describes one).
func indexFrameworks(f *host.Snapshot, text []byte, table frameworks.Table) {
	for i := range f.Pythons {
		f.Pythons[i].IndexFrameworks(f.Pythons[i].Source, table)
	}
	if len(f.Pythons) == 0 {
		return
	}
	keyed := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), MaxSize)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimLeft(sc.Text(), "#- "))
		for _, fw := range table {
			for _, key := range fw.ReportKeys {
				rest, ok := strings.CutPrefix(line, key+":")
				if !ok {
					continue
				}
				v := strings.Fields(rest)
				if len(v) == 0 {
					continue
				}
				if _, err := version.Parse(v[0]); err == nil && keyed[fw.Name] == "" {
					keyed[fw.Name] = v[0]
				}
			}
		}
	}
	for name, v := range keyed {
		for i := range f.Pythons {
			py := &f.Pythons[i]
			if _, ok := py.Frameworks[name]; ok {
				continue
			}
			if py.Frameworks == nil {
				py.Frameworks = map[string]*host.Installed{}
			}
			py.Frameworks[name] = &host.Installed{Name: name, Version: v, Source: SourceReportKey}
		}
	}
}
