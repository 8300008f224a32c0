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

// publishedVersionsURL is the JSON behind pytorch.org's install selector,
// generated from test-infra's build matrix at each release: per version,
// OS, package manager and accelerator, the command the page shows.
const publishedVersionsURL = "https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/published_versions.json"

type pvEntry struct {
	Note    *string `json:"note"`
	Command string  `json:"command"`
	Default bool    `json:"default"`
}

var (
	// The variant of a pip command is the last path element of its
	// download.pytorch.org index (whl/cu121, whl/lts/1.8/cu111,
	// whl/cu113/torch_stable.html).
	rePVIndex = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`download\.pytorch\.org/whl/(?:lts/\d+\.\d+/|test/|nightly/)?([a-z]+[0-9][0-9.]*|cpu|xpu)(?:/|\s|$)`)
	})
	// Older commands name the variant in the local version (torch==1.7.1+cu110).
	rePVLocal     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\btorch==[0-9.]+\+([a-z]+[0-9.]*)`) })
	rePVCondaCUDA = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:pytorch-cuda|cudatoolkit)=(\d+\.\d+)`)
	})
	rePVNoteCUDA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bCUDA (\d+\.\d+)\b`) })
	rePVKeyCUDA  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cuda(\d+\.\d+)$`) })
	rePVKeyROCm  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^rocm(\d+\.\d+(?:\.\d+)?)$`) })
	rePVIndexOpt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|\s)(--index-url|--extra-index-url|-i|-f|--find-links)(\s|=|$)|download\.pytorch\.org`)
	})
)

// pvPackageTypes maps the selector's package managers to the install
// matrix's package types; libtorch (the C++ distribution) is no Python
// build and is not read.
var pvPackageTypes = map[string]string{"pip": "wheel", "conda": "conda"}

// parsePublishedVersions turns published_versions.json into
// "install_matrix" rows shaped like the test-infra install-matrix table
// (torch_stable_version, os, package_type, variant, install_command,
// install_cmd_has_no_index_url), so BuildMatrix.Normalize reads both.
// The JSON has no Python list and no commit role; those fields stay
// absent. "preview" (the nightly selector) is not a release and is
// skipped; any other version key is passed on for Normalize to judge.
func parsePublishedVersions(b []byte, url string) ([]scraper.Record, error) {
	var doc struct {
		Versions map[string]map[string]map[string]map[string]json.RawMessage `json:"versions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not the published versions document: %w", err)
	}
	if doc.Versions == nil {
		return nil, fmt.Errorf("no \"versions\" object (the format changed?)")
	}
	versions := make([]string, 0, len(doc.Versions))
	for v := range doc.Versions {
		if v != "preview" {
			versions = append(versions, v)
		}
	}
	sort.Strings(versions)
	var recs []scraper.Record
	for _, v := range versions {
		entries := map[[3]string]pvEntry{}
		for osName, pkgs := range doc.Versions[v] {
			for pkg, accs := range pkgs {
				for acc, raw := range accs {
					var e pvEntry
					if err := json.Unmarshal(raw, &e); err != nil {
						return nil, fmt.Errorf("%s: %w", pvPath(v, osName, pkg, acc), err)
					}
					entries[[3]string{osName, pkg, acc}] = e
				}
			}
		}
		for k, e := range entries {
			osName, pkg, acc := k[0], k[1], k[2]
			ptype, ok := pvPackageTypes[pkg]
			if !ok || !installsTorch(e.Command) {
				continue // libtorch, or a "not available on this OS" note in place of a command
			}
			noIndex := ptype == "wheel" && !rePVIndexOpt().MatchString(e.Command)
			variant := pvVariant(osName, ptype, acc, e, noIndex, entries)
			fields := map[string]string{
				"torch_stable_version": v, "os": osName, "package_type": ptype, "variant": variant,
				"accelerator": acc, "install_command": e.Command,
			}
			if noIndex {
				fields["install_cmd_has_no_index_url"] = "yes"
			}
			if e.Note != nil && strings.TrimSpace(*e.Note) != "" {
				fields["note"] = strings.TrimSpace(*e.Note)
			}
			if e.Default {
				fields["selector_default"] = "yes"
			}
			recs = append(recs, scraper.Record{
				Table: "install_matrix", Key: v + "|" + osName + "|" + ptype + "|" + acc,
				URL: url, Ref: url + " " + pvPath(v, osName, pkg, acc), Fields: fields,
			})
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no released version with a pip or conda install command")
	}
	return recs, nil
}

func pvPath(v, osName, pkg, acc string) string {
	return fmt.Sprintf("$.versions[%q][%q][%q][%q]", v, osName, pkg, acc)
}

func installsTorch(cmd string) bool {
	return strings.Contains(cmd, "install") && reInstallsTorch().MatchString(" "+cmd)
}

// pvVariant reads the build variant a selector entry installs. The
// accelerator keys are mostly generic (cuda.x, cuda.y, rocm5.x), so the
// command is the evidence: its download.pytorch.org index or local
// version for pip, pytorch-cuda=/cudatoolkit=/cpuonly for conda. A pip
// command without an index installs PyPI's wheel: the CPU build on macOS
// and Windows; on Linux the CUDA build of the same accelerator key, whose
// Windows command (always from the index: PyPI's Windows wheel is CPU)
// names it, else a concrete key (cuda10.2) or a "CUDA X.Y" note. ""
// when none says; Normalize refuses such a row.
func pvVariant(osName, ptype, acc string, e pvEntry, noIndex bool, entries map[[3]string]pvEntry) string {
	cmd := e.Command
	if m := rePVIndex().FindStringSubmatch(cmd); m != nil {
		return m[1]
	}
	if m := rePVLocal().FindStringSubmatch(cmd); m != nil {
		return m[1]
	}
	if ptype == "conda" {
		switch {
		case rePVCondaCUDA().MatchString(cmd):
			return variantOfCUDA(rePVCondaCUDA().FindStringSubmatch(cmd)[1])
		case strings.Contains(cmd, "cpuonly"), strings.HasPrefix(osName, "mac"):
			return "cpu"
		}
	}
	if noIndex && (strings.HasPrefix(osName, "mac") || osName == "windows") {
		return "cpu"
	}
	switch {
	case acc == "accnone":
		return "cpu"
	case rePVKeyCUDA().MatchString(acc):
		return variantOfCUDA(rePVKeyCUDA().FindStringSubmatch(acc)[1])
	case rePVKeyROCm().MatchString(acc):
		return "rocm" + rePVKeyROCm().FindStringSubmatch(acc)[1]
	}
	if noIndex && ptype == "wheel" {
		if w, ok := entries[[3]string{"windows", "pip", acc}]; ok {
			if m := rePVIndex().FindStringSubmatch(w.Command); m != nil && strings.HasPrefix(m[1], "cu") {
				return m[1]
			}
		}
	}
	if e.Note != nil {
		if m := rePVNoteCUDA().FindStringSubmatch(*e.Note); m != nil {
			return variantOfCUDA(m[1])
		}
	}
	return ""
}

// scrapePublishedVersions is the live mode of BuildMatrix.
func scrapePublishedVersions(ctx context.Context, f scraper.Fetcher) ([]scraper.Record, error) {
	b, err := f.Get(ctx, publishedVersionsURL)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch %s: %w", publishedVersionsURL, err)
	}
	recs, err := parsePublishedVersions(b, publishedVersionsURL)
	if err != nil {
		return nil, fmt.Errorf("failed to read the install selector's versions from %s: %w", publishedVersionsURL, err)
	}
	return recs, nil
}
