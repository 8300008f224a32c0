package pin

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/frameworks"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/querytest"
)

// TestPinsEqualWheelMetadata walks every release × variant × platform in
// the embedded data whose wheel's Requires-Dist pins the data holds (from
// lock files, PyPI metadata or release-branch scripts) and checks that the
// requirements file `cudb pin` writes for it carries exactly those
// versions and environment markers, and no other version of those
// packages.
func TestPinsEqualWheelMetadata(t *testing.T) {
	ctx := context.Background()
	d := querytest.Embedded(t)
	checked := 0
	for _, fw := range frameworks.All {
		builds, err := d.Builds(ctx, fw.Name, func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range builds {
			if b.Channel != "" {
				continue
			}
			pins := wheelPins(b, fw)
			if len(pins) == 0 {
				continue
			}
			name := fw.Name
			if b.Package != "" {
				name = b.Package
			}
			spec := name + "==" + b.Version
			// Each platform's file is judged against that platform's wheel.
			for _, plat := range []string{b.Platform} {
				if plat == "" {
					plat = "linux"
				}
				req := query.ResolveRequest{Requirements: []string{spec}, Variant: b.Variant, Platform: plat}
				res, err := Pins(ctx, d, req, "requirements", PinOptions{AllowUnknown: true})
				if err != nil {
					t.Errorf("%s %s %s: %v", spec, b.Variant, plat, err)
					continue
				}
				checked++
				lines := strings.Split(res.Content, "\n")
				for _, r := range pins {
					want := r.Needs + r.Spec
					marker := r.Marker
					// `extra == "and-cuda"`: the pin comes with the extra, so
					// the file must ask for it; the rest of the marker stays.
					var clauses []string
					for _, c := range strings.Split(marker, " and ") {
						if e, ok := strings.CutPrefix(strings.ReplaceAll(c, " ", ""), "extra=="); ok {
							if !asksExtra(lines, strings.Trim(e, `"'`)) {
								t.Errorf("%s %s on %s: the file does not ask for extra %s that %s comes with", spec, b.Variant, plat, e, r.Needs)
							}
							continue
						}
						clauses = append(clauses, c)
					}
					if marker = strings.Join(clauses, " and "); marker != "" {
						want += "; " + marker
					}
					if !slices.Contains(lines, want) {
						t.Errorf("%s %s on %s: the file lacks the wheel's pin %q (%s %s)\n%s", spec, b.Variant, plat, want, r.Source, r.Ref, res.Content)
						continue
					}
					for _, l := range lines {
						if l != want && pkgOf(l) == pkgOf(r.Needs) && specOf(l) != specOf(want) {
							t.Errorf("%s %s on %s: %q beside the wheel's %q", spec, b.Variant, plat, l, want)
						}
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d release × variant × platform files checked", checked)
	}
	t.Logf("%d pin files compared with their wheels' pins", checked)
}

// wheelPins are the build's Requires-Dist pins on other pip packages.
func wheelPins(b *db.BuildRow, fw frameworks.Framework) []db.Requirement {
	var out []db.Requirement
	for _, r := range b.Reqs {
		if r.Kind != db.KindPin || slices.Contains(fw.Companions, r.Needs) || !strings.ContainsAny(r.Needs, "-_") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// asksExtra reports a requirement line that asks for extra e
// (onnxruntime-gpu[cuda,cudnn]==1.21.0 asks for cuda and cudnn).
func asksExtra(lines []string, e string) bool {
	for _, l := range lines {
		if i, j := strings.Index(l, "["), strings.Index(l, "]=="); i >= 0 && j > i && slices.Contains(strings.Split(l[i+1:j], ","), e) {
			return true
		}
	}
	return false
}

// specOf is a requirement line's version specifier.
func specOf(line string) string {
	line, _, _ = strings.Cut(line, ";")
	if i := strings.IndexAny(line, "=<>!~"); i >= 0 {
		return strings.TrimSpace(line[i:])
	}
	return ""
}

// pkgOf is the normalized package name a requirement line starts with.
func pkgOf(line string) string {
	end := strings.IndexAny(line, "=<>!~;[ ")
	if end < 0 {
		end = len(line)
	}
	return version.NormalizeName(line[:end])
}
