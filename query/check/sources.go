package check

import (
	"net/url"
	"strings"

	"github.com/cudb/cudb/internal/frameworks"
)

// Which index serves a framework. pip reads --index-url (PyPI when
// none), every --extra-index-url and every --find-links page, and
// installs the best version any of them offers; uv takes a package from
// the first index that has it (a pinned source first). A framework's own
// index (download.pytorch.org for torch) serves that framework's family
// and nothing else: an --extra-index-url to PyTorch's CPU wheels changes
// the torch pip takes and leaves tensorflow and jax to PyPI.

// sourceKind sorts a location a requirement may come from.
type sourceKind int

const (
	srcPyPI sourceKind = iota
	// srcOwn: an index of the framework being judged.
	srcOwn
	// srcOther: an index of another framework: it does not serve this one.
	srcOther
	// srcUnseen: a private index or a local wheelhouse cudb cannot read.
	srcUnseen
)

// classifySource says what loc is to framework fw.
func classifySource(fw, loc string) sourceKind {
	l := strings.TrimSpace(loc)
	if l == "" {
		return srcPyPI
	}
	hostPath := l
	if u, err := url.Parse(l); err == nil && u.Host != "" {
		hostPath = strings.ToLower(u.Host) + u.Path
		if u.Host == "pypi.org" || u.Host == "pypi.python.org" || u.Host == "files.pythonhosted.org" {
			return srcPyPI
		}
	}
	for _, f := range frameworks.All {
		for _, h := range f.IndexHosts {
			if strings.HasPrefix(hostPath, h) {
				if f.Name == fw {
					return srcOwn
				}
				return srcOther
			}
		}
	}
	return srcUnseen
}

// servingIndex decides, for a requirement of framework fw, the index
// its build comes from ("" for PyPI's default) and a source cudb cannot
// read that may serve it instead ("" when none).
func servingIndex(fw string, r Requirement) (index, unseen string) {
	if r.Installer == "image" {
		// What an image's tag says is the requirement's own source.
		return r.IndexURL, ""
	}
	if r.Installer == InstallerConda {
		// The database knows the builds of the framework's own channel;
		// another channel's (conda-forge) builds are not in it.
		switch r.IndexURL {
		case "", "defaults", "nvidia", frameworks.Must(fw).CondaChannel:
			return r.IndexURL, ""
		}
		return r.IndexURL, "the conda channel " + r.IndexURL
	}
	locs := append([]string{r.IndexURL}, r.ExtraIndexURLs...)
	locs = append(locs, r.FindLinks...)
	for _, l := range locs {
		switch classifySource(fw, l) {
		case srcOwn:
			if index == "" {
				index = l
			}
		case srcUnseen:
			if unseen == "" {
				unseen = l
			}
		}
	}
	return index, unseen
}
