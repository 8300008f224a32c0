package pytorch

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/scraper"
)

// PyPI's JSON API: the project document lists every release (with its
// files), the per-release document carries that upload's metadata.
const (
	pypiTorchURL     = "https://pypi.org/pypi/torch/json"
	pypiReleaseURLFt = "https://pypi.org/pypi/torch/%s/json"
	// pypiFirstPinned is the first torch whose PyPI wheel declares nvidia-*
	// pins; older wheels bundle their CUDA libraries and pin nothing, so
	// their documents are not worth a request.
	pypiFirstPinned = "1.13.0"
)

// pypiProject is the part of https://pypi.org/pypi/<name>/json we read.
type pypiProject struct {
	Releases map[string][]struct {
		Yanked bool `json:"yanked"`
	} `json:"releases"`
}

// pypiRelease is the part of https://pypi.org/pypi/<name>/<v>/json we
// read. RequiresDist stays raw so a missing key (the format moved) can be
// told from null (a release with no dependencies).
type pypiRelease struct {
	Info *struct {
		Version      string          `json:"version"`
		RequiresDist json.RawMessage `json:"requires_dist"`
	} `json:"info"`
}

// parsePyPIReleases returns the final X.Y.Z releases from minVersion on
// that still have an unyanked file, oldest first. Pre-releases, dev
// builds and anything else the list names are not fetched.
func parsePyPIReleases(b []byte, minVersion string) ([]string, error) {
	var p pypiProject
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("not a PyPI project document: %w", err)
	}
	if p.Releases == nil {
		return nil, fmt.Errorf("no \"releases\" object (the JSON API format changed?)")
	}
	var out []string
	for v, files := range p.Releases {
		if !reRelease().MatchString(v) || cmpDotted(v, minVersion) < 0 {
			continue
		}
		live := false
		for _, f := range files {
			live = live || !f.Yanked
		}
		if live {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no release %s or later with files", minVersion)
	}
	sort.Slice(out, func(i, j int) bool { return cmpDotted(out[i], out[j]) < 0 })
	return out, nil
}

// requirement is one Requires-Dist entry split into its parts.
type requirement struct {
	Name   string // with extras, as written: cuda-toolkit[cudart,nvrtc]
	Spec   string // ==12.1.105, >=4.8.0 (parentheses dropped)
	Marker string
}

var (
	reReqName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\[\]]*\])?\s*(.*)$`)
	})
	reSpecifier = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(~=|===?|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+$`)
	})
	reExtraMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bextra\s*==`) })
)

// parseRequiresDist splits a PEP 508 Requires-Dist line. Both spellings
// PyPI has served for torch parse: "name (==1.2) ; marker" (older
// metadata) and "name==1.2; marker". URL requirements and anything else
// are an error: the caller treats an unreadable line as a format change.
func parseRequiresDist(line string) (requirement, error) {
	req, marker, _ := strings.Cut(line, ";")
	m := reReqName().FindStringSubmatch(strings.TrimSpace(req))
	if m == nil {
		return requirement{}, fmt.Errorf("not a requirement: %q", line)
	}
	name := m[1]
	if m[2] != "" {
		name += strings.Join(strings.Fields(m[2]), "")
	}
	spec := strings.TrimSpace(m[3])
	if strings.HasPrefix(spec, "(") {
		if !strings.HasSuffix(spec, ")") {
			return requirement{}, fmt.Errorf("unbalanced parentheses: %q", line)
		}
		spec = strings.TrimSpace(spec[1 : len(spec)-1])
	}
	var parts []string
	if spec != "" {
		for _, c := range strings.Split(spec, ",") {
			c = strings.Join(strings.Fields(c), "")
			if !reSpecifier().MatchString(c) {
				return requirement{}, fmt.Errorf("bad version specifier %q in %q", c, line)
			}
			parts = append(parts, c)
		}
	}
	return requirement{Name: name, Spec: strings.Join(parts, ","), Marker: strings.TrimSpace(marker)}, nil
}

// exactPin returns the version of an "==X" specifier (no wildcard, no
// second clause), the only kind a lock file records as the wheel's pin.
func (r requirement) exactPin() (string, bool) {
	v, ok := strings.CutPrefix(r.Spec, "==")
	if !ok || strings.HasPrefix(v, "=") || strings.ContainsAny(v, ",*") {
		return "", false
	}
	return v, true
}

// parsePyPIPins reads one release document into "pins" records shaped
// like the lock-file table's rows (torch_version, package,
// pinned_version, platform_marker, evidence_kind), so Normalize treats
// both alike. Extras' requirements (marker `extra == "..."`) are not what
// a plain install pulls in and are left out, as are range dependencies.
// It returns no records, and no error, for a release without pins.
func parsePyPIPins(b []byte, version, url string) ([]scraper.Record, error) {
	var rel pypiRelease
	if err := json.Unmarshal(b, &rel); err != nil {
		return nil, fmt.Errorf("not a PyPI release document: %w", err)
	}
	if rel.Info == nil {
		return nil, fmt.Errorf("no \"info\" object (the JSON API format changed?)")
	}
	if rel.Info.Version != version {
		return nil, fmt.Errorf("document is for version %q, not %s", rel.Info.Version, version)
	}
	if rel.Info.RequiresDist == nil {
		return nil, fmt.Errorf("no info.requires_dist (the JSON API format changed?)")
	}
	var lines []string
	if err := json.Unmarshal(rel.Info.RequiresDist, &lines); err != nil {
		return nil, fmt.Errorf("info.requires_dist is not a list of strings: %w", err)
	}
	var recs []scraper.Record
	seen := map[string]int{}
	for i, line := range lines {
		r, err := parseRequiresDist(line)
		if err != nil {
			return nil, fmt.Errorf("info.requires_dist[%d]: %w", i, err)
		}
		pin, ok := r.exactPin()
		if !ok || reExtraMarker().MatchString(r.Marker) {
			continue
		}
		key := version + "|" + r.Name + "|" + pin
		seen[key]++
		if seen[key] > 1 {
			key += fmt.Sprintf("|%d", seen[key])
		}
		recs = append(recs, scraper.Record{
			Table: "pins", Key: key, URL: url,
			Ref: fmt.Sprintf("%s info.requires_dist[%d]: %s", url, i, strings.TrimSpace(line)),
			Fields: map[string]string{
				"torch_version": version, "package": r.Name, "pinned_version": pin,
				"platform_marker": r.Marker, "evidence_kind": "pypi-json",
			},
		})
	}
	return recs, nil
}

// scrapePyPI is the live mode of Lockfiles: the release list, then the
// document of each release from pypiFirstPinned on that it names (one
// request per release; no guessed URLs).
func scrapePyPI(ctx context.Context, f scraper.Fetcher) ([]scraper.Record, error) {
	b, err := f.Get(ctx, pypiTorchURL)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch %s: %w", pypiTorchURL, err)
	}
	versions, err := parsePyPIReleases(b, pypiFirstPinned)
	if err != nil {
		return nil, fmt.Errorf("failed to read the torch release list from %s: %w", pypiTorchURL, err)
	}
	var all []scraper.Record
	for _, v := range versions {
		url := fmt.Sprintf(pypiReleaseURLFt, v)
		b, err := f.Get(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("failed to fetch %s: %w", url, err)
		}
		recs, err := parsePyPIPins(b, v, url)
		if err != nil {
			return nil, fmt.Errorf("failed to read torch %s's metadata from %s: %w", v, url, err)
		}
		all = append(all, recs...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no torch release from %s on declares an exact pin in %s", pypiFirstPinned, pypiTorchURL)
	}
	return all, nil
}
