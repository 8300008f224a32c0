package redist

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
)

// A redist manifest (redistrib_<version>.json) is one JSON object: string
// keys describing the release (release_date, release_label,
// release_product) next to one object per component, each with a name, a
// version and one object per platform (linux-x86_64, windows-x86_64, ...).
// Components built per CUDA major (cudnn, cuda_compat) carry cuda_variant
// and one object per variant inside each platform ("cuda12", "cuda13.1").

var (
	labelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+$`) })
	hrefRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`href=["'](?:\./)?redistrib_(\d+\.\d+\.\d+)\.json["']`)
	})
	dateRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })
	variantRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cuda(\d+)(?:\.\d+)?$`) })
)

// ParseListing returns the versions of the redistrib_<version>.json links
// of a directory listing (href in single or double quotes), oldest first,
// each once; other links (component directories, signatures, other
// schema versions) are not manifests of this format.
func ParseListing(page []byte) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, m := range hrefRe().FindAllSubmatch(page, -1) {
		v := string(m[1])
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the listing links no redistrib_<version>.json manifest")
	}
	sortVersions(out)
	return out, nil
}

type component struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	CUDAVariant []string `json:"cuda_variant"`
	platforms   map[string]json.RawMessage
}

// manifest is a decoded redist manifest: the release keys and the
// components by name.
type manifest struct {
	date, label, product string
	components           map[string]*component
}

func decode(b []byte) (*manifest, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	m := &manifest{components: map[string]*component{}}
	for k, raw := range top {
		switch k {
		case "release_date", "release_label", "release_product":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("%s is not a string", k)
			}
			switch k {
			case "release_date":
				m.date = strings.TrimSpace(s)
			case "release_label":
				m.label = strings.TrimSpace(s)
			default:
				m.product = strings.TrimSpace(s)
			}
		default:
			if len(raw) == 0 || raw[0] != '{' {
				continue // a release key this parser does not know
			}
			c := &component{}
			if err := json.Unmarshal(raw, c); err != nil {
				return nil, fmt.Errorf("component %s: %w", k, err)
			}
			var all map[string]json.RawMessage
			if err := json.Unmarshal(raw, &all); err != nil {
				return nil, fmt.Errorf("component %s: %w", k, err)
			}
			c.platforms = map[string]json.RawMessage{}
			for p, v := range all {
				if strings.Contains(p, "-") && len(v) > 0 && v[0] == '{' {
					c.platforms[p] = v
				}
			}
			m.components[k] = c
		}
	}
	if !labelRe().MatchString(m.label) {
		return nil, fmt.Errorf("release_label %q is not a X.Y.Z version", m.label)
	}
	if m.date != "" && !dateRe().MatchString(m.date) {
		return nil, fmt.Errorf("release_date %q is not a YYYY-MM-DD date", m.date)
	}
	return m, nil
}

// ParseManifest reads one manifest of product ("cuda" or "cudnn") into a
// record; version is the X.Y.Z its file name carries, which the manifest's
// release_label must repeat.
func ParseManifest(product, version string, b []byte, url string) (scraper.Record, error) {
	return parseManifest(product, version, b, url, false)
}

// parseManifest is ParseManifest; trimmed (a capture holding only part of
// NVIDIA's file, see partialCaptures) lets a CUDA manifest lack
// cuda_cudart: the part seen did not show it.
func parseManifest(product, version string, b []byte, url string, trimmed bool) (scraper.Record, error) {
	m, err := decode(b)
	if err != nil {
		return scraper.Record{}, err
	}
	if version != "" && m.label != version {
		return scraper.Record{}, fmt.Errorf("the manifest of %s says release_label %q", version, m.label)
	}
	if m.product != "" && m.product != product {
		return scraper.Record{}, fmt.Errorf("release_product is %q, want %q", m.product, product)
	}
	rec := scraper.Record{Table: product, Key: m.label, URL: url, Ref: "redistrib_" + m.label + ".json",
		Fields: map[string]string{"release_label": m.label, "release_date": m.date}}
	switch product {
	case ProductCUDA:
		rt := m.components["cuda_cudart"]
		switch {
		case rt != nil && rt.Version != "":
			rec.Fields["cudart_version"] = rt.Version
		case rt != nil || !trimmed || m.product != ProductCUDA:
			return scraper.Record{}, errors.New("no cuda_cudart component (not a CUDA toolkit manifest)")
		}
		if d := m.components["nvidia_driver"]; d != nil {
			if d.Version == "" {
				return scraper.Record{}, errors.New("the nvidia_driver component has no version")
			}
			rec.Fields["driver_version"] = d.Version
		}
		if c := m.components["cuda_compat"]; c != nil {
			rec.Fields["compat_version"] = c.Version
			rec.Fields["compat_cuda"] = strings.Join(c.CUDAVariant, ";")
		}
	case ProductCUDNN:
		c := m.components["cudnn"]
		if c == nil || c.Version == "" {
			return scraper.Record{}, errors.New("no cudnn component with a version (not a cuDNN manifest)")
		}
		rec.Fields["cudnn_version"] = c.Version
		majors, err := cudaMajors(c)
		if err != nil {
			return scraper.Record{}, err
		}
		rec.Fields["cuda_majors"] = strings.Join(majors, ";")
	case ProductDriver:
		c, d := m.components["cuda_compat"], m.components["nvidia_driver"]
		if c == nil && d == nil {
			return scraper.Record{}, errors.New("no cuda_compat or nvidia_driver component (not a driver manifest)")
		}
		if c != nil {
			if c.Version == "" || len(c.CUDAVariant) == 0 {
				return scraper.Record{}, errors.New("the cuda_compat component names no version or CUDA variant")
			}
			rec.Fields["compat_version"] = c.Version
			rec.Fields["compat_cuda"] = strings.Join(c.CUDAVariant, ";")
		}
		if d != nil {
			rec.Fields["driver_version"] = d.Version
		}
	default:
		return scraper.Record{}, fmt.Errorf("unknown product %q", product)
	}
	return rec, nil
}

// cudaMajors is the CUDA majors a cuDNN build ships for: cuda_variant, or
// (older manifests) the cudaNN objects inside its platforms.
func cudaMajors(c *component) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(v string) error {
		m := variantRe().FindStringSubmatch("cuda" + strings.TrimPrefix(strings.TrimSpace(v), "cuda"))
		if m == nil {
			return fmt.Errorf("unreadable CUDA variant %q", v)
		}
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
		return nil
	}
	for _, v := range c.CUDAVariant {
		if err := add(v); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		for _, raw := range c.platforms {
			var sub map[string]json.RawMessage
			if json.Unmarshal(raw, &sub) != nil {
				continue
			}
			for k := range sub {
				if variantRe().MatchString(k) {
					if err := add(k); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the cudnn component names no CUDA variant")
	}
	sortVersions(out)
	return out, nil
}

func sortVersions(vs []string) {
	sort.Slice(vs, func(i, j int) bool { return version.DottedKey(vs[i]) < version.DottedKey(vs[j]) })
}
