package cudadriver

import "github.com/cudb/cudb/scraper"

// Fields implements scraper.Fielded: CUDA versions are dotted and driver
// floors are driver versions, so "13.x.1" or a shifted column fails the
// refresh instead of losing the row.
func (s *Source) Fields() map[string]map[string]scraper.Grammar {
	driver := scraper.OrPlaceholder(scraper.Driver)
	return map[string]map[string]scraper.Grammar{"csv": {
		"cuda_version":             scraper.DottedOrEmpty,
		"min_linux_driver":         driver,
		"min_windows_driver":       driver,
		"minor_compat_min_linux":   driver,
		"minor_compat_min_windows": driver,
		"release_date":             scraper.DateText,
	}}
}

// Canaries implements scraper.Canaried: driver floors every CUDA user
// relies on (NVIDIA's release notes, Table 3).
func (s *Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.CUDADriverCanary("12.0.0", "linux", "toolkit", "525.60.13"),
		scraper.CUDADriverCanary("11.8.0", "linux", "toolkit", "520.61.05"),
		scraper.CUDADriverCanary("12", "linux", "minor_compat", "525.60.13"),
	}
}
