package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/docfigures"
)

// InstallFirstLoad lists what install.html fetches before its first
// answer shows, in a site generated into dir: the page, its style and
// scripts, data/install.js, and the file of the release it opens with
// (the first framework's newest). TestPageWeightInChromium holds this list
// to what Chromium fetches.
func InstallFirstLoad(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "data", "install.js"))
	if err != nil {
		return nil, err
	}
	var sel struct {
		Frameworks []SelectorFramework `json:"frameworks"`
	}
	b = bytes.TrimSuffix(bytes.TrimSpace(bytes.TrimPrefix(b, []byte("window.cudbInstall = "))), []byte(";"))
	if err := json.Unmarshal(b, &sel); err != nil {
		return nil, fmt.Errorf("data/install.js: %w", err)
	}
	if len(sel.Frameworks) == 0 || len(sel.Frameworks[0].Versions) == 0 {
		return nil, fmt.Errorf("data/install.js offers no release")
	}
	f := sel.Frameworks[0]
	return []string{"install.html", "site.css", "site.js", "data/install.js", "install.js", "data/" + ReleaseFile(f.Name, f.Versions[0])}, nil
}

// Figures are the site's numbers the documentation states (docs/site.md,
// DESIGN's page-weight target), measured on a site generated into dir.
func Figures(dir string) (map[string]string, error) {
	size := func(rel string) (int64, error) {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	figs := map[string]string{}
	first, err := InstallFirstLoad(dir)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range first {
		n, err := size(f)
		if err != nil {
			return nil, err
		}
		total += n
	}
	figs["install-first-load"] = docfigures.KB(total)
	figs["install-first-load-files"] = strconv.Itoa(len(first))
	n, err := size("data/install.js")
	if err != nil {
		return nil, err
	}
	figs["install-data"] = docfigures.KB(n)

	// The whole site, the per-release files, the pair files, the grid pages.
	var all, releases, pairs, gpuMax int64
	var files, releaseN, pairN, gpuN int
	var releaseSizes []int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		all += fi.Size()
		files++
		switch {
		case strings.HasPrefix(rel, "data/install/pair/"):
			pairs += fi.Size()
			pairN++
		case strings.HasPrefix(rel, "data/install/"):
			releases += fi.Size()
			releaseN++
			releaseSizes = append(releaseSizes, fi.Size())
		case rel == "gpu.html" || strings.HasPrefix(rel, "gpu-") && rel != "gpu-table.html":
			gpuN++
			gpuMax = max(gpuMax, fi.Size())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if releaseN == 0 || gpuN == 0 {
		return nil, fmt.Errorf("%s: no release files or GPU pages", dir)
	}
	figs["site-size"] = docfigures.KB(all)
	figs["site-files"] = strconv.Itoa(files)
	figs["release-files"] = strconv.Itoa(releaseN)
	figs["release-size"] = docfigures.KB(releases)
	figs["release-range"] = docfigures.KB(slices.Min(releaseSizes)) + "–" + docfigures.KB(slices.Max(releaseSizes))
	figs["pair-files"] = strconv.Itoa(pairN)
	figs["pair-size"] = docfigures.KB(pairs)
	figs["gpu-pages"] = strconv.Itoa(gpuN)
	figs["gpu-page-max"] = docfigures.KB(gpuMax)
	gpu, err := size("gpu.html")
	if err != nil {
		return nil, err
	}
	figs["gpu-html"] = docfigures.KB(gpu)
	return figs, nil
}
