// Package redist is the source of NVIDIA's redist manifests
// (redistrib_<version>.json under developer.download.nvidia.com/compute/
// <product>/redist/): machine-readable release facts NVIDIA publishes for
// every CUDA toolkit release (release date, the cudart version, the Linux
// driver bundled with the toolkit, the forward-compatibility package) and
// every cuDNN release (release date, full build version, the CUDA majors
// it ships for) and every data-center driver release (release date, the
// CUDA version its forward-compatibility package is built for: the
// newest CUDA its branch runs).
//
// Live, it reads each product's directory listing and every manifest it
// links. From snapshots, it reads the manifests captured in the NVIDIA
// folder's raw/ directory (developer.download.nvidia.com_compute_<product>
// _redist_redistrib_<version>.json) and the trimmed manifests shipped with
// this package (captures/CAPTURES.md says where each was read).
package redist

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/internal/nvsrc"
)

// Name is the source id.
const Name = "nvidia-redist"

// Products the source reads, and the record table of each.
const (
	ProductCUDA   = "cuda"
	ProductCUDNN  = "cudnn"
	ProductDriver = "nvidia-driver"
)

// Base is the root of NVIDIA's redist directories.
const Base = "https://developer.download.nvidia.com/compute/"

// ListingURL is the directory listing of a product's manifests.
func ListingURL(product string) string { return Base + product + "/redist/" }

// ManifestURL is the manifest of one release of a product.
func ManifestURL(product, version string) string {
	return ListingURL(product) + "redistrib_" + version + ".json"
}

// Products in the order they are read.
var Products = []string{ProductCUDA, ProductCUDNN, ProductDriver}

//go:embed captures/*.json
var captures embed.FS

// captureOrigin says where each capture was read: NVIDIA's manifest as
// mirrored byte for byte in NixOS/nixpkgs (trimmed here to the release
// keys and the components the source reads).
var captureOrigin = map[string]string{
	"cuda_redistrib_13.1.1.json": "NixOS/nixpkgs pkgs/development/cuda-modules/_cuda/manifests/cuda/redistrib_13.1.1.json@7b8db30a23ff8ec2af77fe1137cb5a74a4c0b8f1",
	"cuda_redistrib_13.4.2.json": "NixOS/nixpkgs pkgs/development/cuda-modules/_cuda/manifests/cuda/redistrib_13.4.2.json@0a2c8a5824f4d11518168b74002249c6ecec21d5",
	// Stored copies of NVIDIA's own files (the search tool's docs
	// corpus): the 13.5.0 manifest only up to its first component (see
	// partialCaptures), the Windows repository's version files trimmed to
	// the toolkit and cudart.
	"cuda_redistrib_13.5.0.json":                   "stored copy of https://developer.download.nvidia.com/compute/cuda/redist/redistrib_13.5.0.json, first component only",
	"cuda-repo_windows_x86_64_version_13.5.0.json": "stored copy of https://developer.download.nvidia.com/compute/cuda/repos/windows/x86_64/version_13.5.0.json",
	"cuda-repo_windows_x86_64_version_13.4.3.json": "stored copy of https://developer.download.nvidia.com/compute/cuda/repos/windows/x86_64/version_13.4.3.json",
	// The driver manifests were read from a stored copy of NVIDIA's own
	// file (the search tool's docs corpus), trimmed to the release keys
	// and cuda_compat.
	"nvidia-driver_redistrib_620.70.06.json": "stored copy of https://developer.download.nvidia.com/compute/nvidia-driver/redist/redistrib_620.70.06.json",
	"nvidia-driver_redistrib_610.57.04.json": "stored copy of https://developer.download.nvidia.com/compute/nvidia-driver/redist/redistrib_610.57.04.json",
}

// perBranch keeps, of a driver listing (oldest first), the oldest and the
// newest release of each branch: the branch's CUDA (its compat package)
// and its first release need no more, and the listing holds every driver
// since R418.
func perBranch(versions []string) []string {
	first, last := map[string]string{}, map[string]string{}
	var order []string
	for _, v := range versions {
		b, _, _ := strings.Cut(v, ".")
		if _, ok := first[b]; !ok {
			first[b] = v
			order = append(order, b)
		}
		last[b] = v
	}
	var out []string
	for _, b := range order {
		out = append(out, first[b])
		if last[b] != first[b] {
			out = append(out, last[b])
		}
	}
	return out
}

// Source implements scraper.Source.
type Source struct{}

func (Source) Name() string { return Name }
func (Source) URL() string  { return ListingURL(ProductCUDA) }

// Scrape reads the manifests (live: every one the listings link).
func (s Source) Scrape(ctx context.Context, in scraper.Input) ([]scraper.Record, error) {
	if in.Snapshots != "" {
		return scrapeSnapshots(in.Snapshots)
	}
	if in.Fetcher == nil {
		return nil, errors.New("no fetcher and no snapshot directory")
	}
	var out []scraper.Record
	for _, p := range Products {
		list := ListingURL(p)
		b, err := in.Fetcher.Get(ctx, list)
		if err != nil {
			return nil, err
		}
		versions, err := ParseListing(b)
		if err != nil {
			return nil, fmt.Errorf("failed to read %s: %w", list, err)
		}
		if p == ProductDriver {
			versions = perBranch(versions)
		}
		for _, v := range versions {
			u := ManifestURL(p, v)
			b, err := in.Fetcher.Get(ctx, u)
			if err != nil {
				return nil, err
			}
			r, err := ParseManifest(p, v, b, u)
			if err != nil {
				return nil, fmt.Errorf("failed to read %s: %w", u, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

var rawName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:developer\.download\.nvidia\.com_compute_(cuda|cudnn|nvidia-driver)_redist_|(cuda|cudnn|nvidia-driver)_)redistrib_(\d+\.\d+\.\d+)\.json$`)
})

// scrapeSnapshots reads the raw manifests of the snapshot directory, then
// the captures for releases the directory does not hold.
func scrapeSnapshots(dir string) ([]scraper.Record, error) {
	var out []scraper.Record
	seen := map[string]bool{}
	add := func(name string, b []byte, ref string) error {
		m := rawName().FindStringSubmatch(name)
		if m == nil {
			return nil
		}
		product := m[1] + m[2]
		if seen[product+" "+m[3]] {
			return nil
		}
		why := partialCaptures[name]
		r, err := parseManifest(product, m[3], b, ManifestURL(product, m[3]), why != "")
		if err != nil {
			return fmt.Errorf("failed to read %s: %w", name, err)
		}
		r.Ref = ref
		if why != "" {
			r.Fields["trimmed"] = why
		}
		seen[product+" "+m[3]] = true
		out = append(out, r)
		return nil
	}
	raw := filepath.Join(dir, nvsrc.Dir, "raw")
	entries, err := os.ReadDir(raw)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(raw, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := add(e.Name(), b, path.Join(nvsrc.Dir, "raw", e.Name())); err != nil {
			return nil, err
		}
	}
	caps, err := captures.ReadDir("captures")
	if err != nil {
		return nil, err
	}
	for _, e := range caps {
		b, err := captures.ReadFile("captures/" + e.Name())
		if err != nil {
			return nil, err
		}
		ref := "captures/" + e.Name()
		if o := captureOrigin[e.Name()]; o != "" {
			ref += " (" + o + ")"
		}
		if r, ok, err := readRepoCapture(e.Name(), b, ref); ok {
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			continue
		}
		if err := add(e.Name(), b, ref); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no redist manifest in %s or the captures", raw)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Table+out[i].Key < out[j].Table+out[j].Key })
	return out, nil
}

// NoBundledDriver is the value of a toolkit's bundled_linux_driver
// attribute when its manifest ships no driver.
const NoBundledDriver = "none: the manifest has no nvidia_driver component (the Linux driver is released separately from this toolkit)"

// Normalize turns manifests into releases, bundled drivers and
// attributes.
func (s Source) Normalize(recs []scraper.Record) (*db.Facts, error) {
	f := &db.Facts{}
	for _, r := range recs {
		v, p, fl := r.Fields["release_label"], nvsrc.Prov(Name, r), r.Fields
		date := fl["release_date"]
		switch r.Table {
		case ProductCUDA:
			f.Releases = append(f.Releases, db.Release{Component: "cuda", Version: v, ReleasedOn: date, Provenance: p})
			if rt := fl["cudart_version"]; rt != "" {
				f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "cudart", Value: rt, Provenance: p})
			}
			if d := fl["driver_version"]; d != "" {
				// The driver a toolkit bundles is the value the release
				// notes' Table 3 prints for it ("Toolkit Driver
				// Version"); the notes come first, a different value
				// here is a conflict.
				f.CUDADrivers = append(f.CUDADrivers, db.CUDADriver{CUDA: v, OS: "linux", Kind: "toolkit", MinDriver: d, ReleasedOn: date, Provenance: p})
				f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "bundled_linux_driver", Value: d, Provenance: p})
			} else if fl["trimmed"] == "" {
				// A partial capture's missing driver is unknown, not absent.
				f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "bundled_linux_driver", Value: NoBundledDriver, Provenance: p})
			}
			if c := fl["compat_version"]; c != "" {
				val := c
				if cu := fl["compat_cuda"]; cu != "" {
					val += " (for CUDA " + strings.ReplaceAll(cu, ";", ", ") + ")"
				}
				f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: v, Key: "cuda_compat", Value: val, Provenance: p})
			}
		case ProductCUDNN:
			f.Releases = append(f.Releases, db.Release{Component: "cudnn", Version: v, ReleasedOn: date, Provenance: p})
			var majors []string
			for _, m := range strings.Split(fl["cuda_majors"], ";") {
				majors = append(majors, m+".x")
			}
			f.Attributes = append(f.Attributes,
				db.Attribute{Component: "cudnn", Version: v, Key: "cuda_majors", Value: strings.Join(majors, ";"), Provenance: p},
				db.Attribute{Component: "cudnn", Version: v, Key: "build_version", Value: fl["cudnn_version"], Provenance: p})
		case ProductDriver:
			f.Attributes = append(f.Attributes, db.Attribute{Component: "driver", Version: v, Key: "released", Value: date, Provenance: p})
			if c := fl["compat_cuda"]; c != "" {
				f.Attributes = append(f.Attributes, db.Attribute{Component: "driver", Version: v, Key: "cuda_compat",
					Value: fl["compat_version"] + " (for CUDA " + strings.ReplaceAll(c, ";", ", ") + ")", Provenance: p})
				for _, cu := range strings.Split(c, ";") {
					f.Attributes = append(f.Attributes, db.Attribute{Component: "cuda", Version: cu, Key: "compat_driver",
						Value: v + " (R" + branchOf(v) + ")", Provenance: p})
				}
			}
		case TableRepo:
			// after the manifests: repoRecords
		default:
			return nil, fmt.Errorf("unknown record table %q", r.Table)
		}
	}
	repoRecords(f, recs)
	driverBranches(f, recs)
	return f, nil
}

func branchOf(driver string) string { b, _, _ := strings.Cut(driver, "."); return b }

// driverBranches gives each branch a driver manifest names its maximum
// CUDA: the newest CUDA its forward-compatibility packages are built for
// (driver 620.70.06 ships cuda_compat for CUDA 13.5: R620 runs up to
// 13.5). The branch tables come first; a different value is a conflict.
func driverBranches(f *db.Facts, recs []scraper.Record) {
	best := map[string]scraper.Record{}
	var order []string
	for _, r := range recs {
		if r.Table != ProductDriver || r.Fields["compat_cuda"] == "" {
			continue
		}
		b := branchOf(r.Fields["release_label"])
		old, ok := best[b]
		if !ok {
			order = append(order, b)
		}
		if !ok || version.DottedKey(newestOf(r.Fields["compat_cuda"])) > version.DottedKey(newestOf(old.Fields["compat_cuda"])) {
			best[b] = r
		}
	}
	for _, b := range order {
		r := best[b]
		f.DriverBranches = append(f.DriverBranches, db.DriverBranch{Branch: b, MaxCUDA: newestOf(r.Fields["compat_cuda"]), Provenance: nvsrc.Prov(Name, r)})
	}
}

func newestOf(list string) string {
	vs := strings.Split(list, ";")
	sortVersions(vs)
	return vs[len(vs)-1]
}

// Fields implements scraper.Fielded.
func (Source) Fields() map[string]map[string]scraper.Grammar {
	date := scraper.OrEmpty(scraper.Pattern("a YYYY-MM-DD date", `\d{4}-\d{2}-\d{2}`))
	return map[string]map[string]scraper.Grammar{
		TableRepo: {"release_label": scraper.Dotted, "cudart_version": scraper.Dotted},
		ProductCUDA: {"release_label": scraper.Dotted, "release_date": date, "cudart_version": scraper.OrEmpty(scraper.Dotted),
			"driver_version": scraper.DriverOrEmpty, "compat_version": scraper.DriverOrEmpty,
			"compat_cuda": scraper.OrEmpty(scraper.Pattern("CUDA versions", `\d+\.\d+(?:;\d+\.\d+)*`))},
		ProductCUDNN: {"release_label": scraper.Dotted, "release_date": date, "cudnn_version": scraper.Dotted,
			"cuda_majors": scraper.Pattern("CUDA majors", `\d+(?:;\d+)*`)},
		ProductDriver: {"release_label": scraper.Driver, "release_date": date, "driver_version": scraper.DriverOrEmpty,
			"compat_version": scraper.DriverOrEmpty, "compat_cuda": scraper.OrEmpty(scraper.Pattern("CUDA versions", `\d+\.\d+(?:;\d+\.\d+)*`))},
	}
}

// Canaries implements scraper.Canaried: facts every manifest set since
// 2026 states.
func (Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.ReleaseCanary("cudnn", "9.27.0"),
		scraper.CUDADriverCanary("13.1.1", "linux", "toolkit", "590.48.01"),
	}
}
