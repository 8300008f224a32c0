package scraper

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// RecordID names a record: its table and key.
type RecordID struct {
	Table string `json:"table"`
	Key   string `json:"key"`
}

func (r RecordID) String() string { return r.Table + "/" + r.Key }

// FieldChange is one field whose value differs. Only Fields are compared:
// Ref and URL are provenance (a line number shifts whenever a row above
// it is added), so a change there alone would bury the real changes; the
// snapshot file still records them.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// RecordChange is a record present in both snapshots with different
// fields.
type RecordChange struct {
	RecordID
	Fields []FieldChange `json:"fields"`
}

// SourceDiff is what changed in one source between two snapshots.
type SourceDiff struct {
	Source  string         `json:"source"`
	Added   []RecordID     `json:"added"`
	Removed []RecordID     `json:"removed"`
	Changed []RecordChange `json:"changed"`
}

// Empty reports whether nothing changed.
func (d *SourceDiff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// Diff compares two snapshots of one source by (Table, Key); old may be
// nil (a source's first snapshot: every record is added).
func Diff(old, cur *Snapshot) *SourceDiff {
	d := &SourceDiff{Added: []RecordID{}, Removed: []RecordID{}, Changed: []RecordChange{}}
	if cur != nil {
		d.Source = cur.Source
	} else if old != nil {
		d.Source = old.Source
	}
	index := func(s *Snapshot) map[RecordID]Record {
		m := map[RecordID]Record{}
		if s != nil {
			for _, r := range s.Records {
				m[RecordID{r.Table, r.Key}] = r
			}
		}
		return m
	}
	om, nm := index(old), index(cur)
	for id, n := range nm {
		o, ok := om[id]
		if !ok {
			d.Added = append(d.Added, id)
			continue
		}
		if fc := fieldChanges(o, n); len(fc) > 0 {
			d.Changed = append(d.Changed, RecordChange{RecordID: id, Fields: fc})
		}
	}
	for id := range om {
		if _, ok := nm[id]; !ok {
			d.Removed = append(d.Removed, id)
		}
	}
	less := func(a, b RecordID) bool {
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		return a.Key < b.Key
	}
	sort.Slice(d.Added, func(i, j int) bool { return less(d.Added[i], d.Added[j]) })
	sort.Slice(d.Removed, func(i, j int) bool { return less(d.Removed[i], d.Removed[j]) })
	sort.Slice(d.Changed, func(i, j int) bool { return less(d.Changed[i].RecordID, d.Changed[j].RecordID) })
	return d
}

func fieldChanges(o, n Record) []FieldChange {
	var out []FieldChange
	names := map[string]bool{}
	for k := range o.Fields {
		names[k] = true
	}
	for k := range n.Fields {
		names[k] = true
	}
	sorted := make([]string, 0, len(names))
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if o.Fields[k] != n.Fields[k] {
			out = append(out, FieldChange{k, o.Fields[k], n.Fields[k]})
		}
	}
	return out
}

// WriteText renders diffs for a terminal or a log.
func WriteText(w io.Writer, diffs []*SourceDiff) error {
	var b strings.Builder
	for _, d := range diffs {
		if d.Empty() {
			fmt.Fprintf(&b, "%s: no changes\n", d.Source)
			continue
		}
		fmt.Fprintf(&b, "%s: %d added, %d removed, %d changed\n", d.Source, len(d.Added), len(d.Removed), len(d.Changed))
		for _, id := range d.Added {
			fmt.Fprintf(&b, "  + %s\n", id)
		}
		for _, id := range d.Removed {
			fmt.Fprintf(&b, "  - %s\n", id)
		}
		for _, c := range d.Changed {
			fmt.Fprintf(&b, "  ~ %s\n", c.RecordID)
			for _, f := range c.Fields {
				fmt.Fprintf(&b, "      %s: %q -> %q\n", f.Field, f.Old, f.New)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes a value for a markdown table cell.
func mdCell(s string) string {
	if s == "" {
		return "∅"
	}
	s = strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
	return "`" + s + "`"
}

// WriteMarkdown renders diffs as a pull-request body. failed lists the
// sources that kept their previous data, with the reason.
func WriteMarkdown(w io.Writer, diffs []*SourceDiff, failed map[string]string) error {
	var b strings.Builder
	b.WriteString("## cudb data refresh\n\n")
	changed := 0
	for _, d := range diffs {
		if !d.Empty() {
			changed++
		}
	}
	if changed == 0 {
		b.WriteString("No source changed.\n")
	}
	if len(failed) > 0 {
		names := make([]string, 0, len(failed))
		for n := range failed {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("\n### Failed sources (previous data kept)\n\n")
		for _, n := range names {
			fmt.Fprintf(&b, "- **%s**: %s\n", n, strings.ReplaceAll(failed[n], "\n", " "))
		}
	}
	for _, d := range diffs {
		if d.Empty() {
			continue
		}
		fmt.Fprintf(&b, "\n### %s: %d added, %d removed, %d changed\n\n", d.Source, len(d.Added), len(d.Removed), len(d.Changed))
		if len(d.Added)+len(d.Removed) > 0 {
			b.WriteString("| | table | key |\n|---|---|---|\n")
			for _, id := range d.Added {
				fmt.Fprintf(&b, "| added | %s | %s |\n", mdCell(id.Table), mdCell(id.Key))
			}
			for _, id := range d.Removed {
				fmt.Fprintf(&b, "| removed | %s | %s |\n", mdCell(id.Table), mdCell(id.Key))
			}
			b.WriteString("\n")
		}
		if len(d.Changed) > 0 {
			b.WriteString("| table | key | field | old | new |\n|---|---|---|---|---|\n")
			for _, c := range d.Changed {
				for _, f := range c.Fields {
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(c.Table), mdCell(c.Key), mdCell(f.Field), mdCell(f.Old), mdCell(f.New))
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
