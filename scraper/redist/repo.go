package redist

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// NVIDIA's package repositories carry a second machine-readable file per
// toolkit release: compute/cuda/repos/<distro>/<arch>/version_<X.Y.Z>.json,
// one object per component ({"name", "version"}), "cuda" naming the
// toolkit ("CUDA SDK") and "cuda_cudart" its runtime. It states no date
// and no driver. The source reads it from captures only, for releases
// whose redist manifest was not seen whole: the release exists and its
// cudart version; a redist manifest of the same release comes first.

// TableRepo is the record table of repository version files.
const TableRepo = "cuda-repo"

// RepoVersionURL is the version file of one toolkit release in the
// repository of platform ("windows/x86_64").
func RepoVersionURL(platform, version string) string {
	return Base + "cuda/repos/" + platform + "/version_" + version + ".json"
}

var repoName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^cuda-repo_([a-z0-9]+)_(x86_64|sbsa|aarch64|arm64)_version_(\d+\.\d+\.\d+)\.json$`)
})

// partialCaptures are captures holding only the part of NVIDIA's file
// that was seen (a stored copy cut after its first component): what they
// lack is unknown, not absent.
var partialCaptures = map[string]string{
	"cuda_redistrib_13.5.0.json": "only the release keys and the first component (cccl) of NVIDIA's file were seen",
}

// ParseRepoVersion reads a repository version file; version is the X.Y.Z
// its name carries, which its "cuda" component must repeat.
func ParseRepoVersion(platform, version string, b []byte, url string) (scraper.Record, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return scraper.Record{}, fmt.Errorf("not a JSON object: %w", err)
	}
	get := func(k string) (string, error) {
		raw, ok := top[k]
		if !ok {
			return "", fmt.Errorf("no %s component", k)
		}
		var c struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(raw, &c); err != nil || strings.TrimSpace(c.Version) == "" {
			return "", fmt.Errorf("the %s component has no version", k)
		}
		return strings.TrimSpace(c.Version), nil
	}
	label, err := get("cuda")
	if err != nil {
		return scraper.Record{}, err
	}
	if !labelRe().MatchString(label) {
		return scraper.Record{}, fmt.Errorf("the cuda component's version %q is not a X.Y.Z version", label)
	}
	if version != "" && label != version {
		return scraper.Record{}, fmt.Errorf("the version file of %s says cuda %q", version, label)
	}
	rt, err := get("cuda_cudart")
	if err != nil {
		return scraper.Record{}, err
	}
	return scraper.Record{Table: TableRepo, Key: label + " " + platform, URL: url, Ref: "version_" + label + ".json (" + platform + ")",
		Fields: map[string]string{"release_label": label, "cudart_version": rt, "repo": platform}}, nil
}

// repoRecords adds the facts of repository version files: a release no
// redist manifest read names, with its cudart; a cudart the manifest of
// the same release lacks (a partial capture); a conflict where the two
// state different cudart versions (the manifest kept).
func repoRecords(f *db.Facts, recs []scraper.Record) {
	manifest := map[string]scraper.Record{}
	for _, r := range recs {
		if r.Table == ProductCUDA {
			manifest[r.Fields["release_label"]] = r
		}
	}
	done := map[string]bool{}
	for _, r := range recs {
		if r.Table != TableRepo {
			continue
		}
		v, rt, p := r.Fields["release_label"], r.Fields["cudart_version"], nvsrc.Prov(Name, r)
		m, ok := manifest[v]
		switch {
		case done[v]:
			continue
		case !ok:
			f.Releases = append(f.Releases, db.Release{Component: "cuda", Version: v, Provenance: p})
			f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "cudart", Value: rt, Provenance: p})
		case m.Fields["cudart_version"] == "":
			f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "cudart", Value: rt, Provenance: p})
		case m.Fields["cudart_version"] != rt:
			f.Conflicts = append(f.Conflicts, db.Conflict{Subject: "cuda " + v, Field: "cudart",
				Kept: m.Fields["cudart_version"], KeptSource: Name + ": " + m.Ref, Other: rt, OtherSource: Name + ": " + r.Ref,
				Note: "NVIDIA's repository version file and redist manifest name different cudart versions; the manifest is kept"})
		}
		done[v] = true
	}
}

// readRepoCapture reads a capture named like a repository version file;
// ok is false for other names.
func readRepoCapture(name string, b []byte, ref string) (scraper.Record, bool, error) {
	m := repoName().FindStringSubmatch(name)
	if m == nil {
		return scraper.Record{}, false, nil
	}
	platform := m[1] + "/" + m[2]
	r, err := ParseRepoVersion(platform, m[3], b, RepoVersionURL(platform, m[3]))
	if err != nil {
		return scraper.Record{}, true, errors.New("failed to read " + name + ": " + err.Error())
	}
	r.Ref = ref
	return r, true, nil
}
