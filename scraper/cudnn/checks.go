package cudnn

import "github.com/cudb/cudb/scraper"

// Fields implements scraper.Fielded.
func (s *Source) Fields() map[string]map[string]scraper.Grammar {
	driver := scraper.OrPlaceholder(scraper.Driver)
	return map[string]map[string]scraper.Grammar{"csv": {
		"cudnn_version":      scraper.Dotted,
		"cuda_major_line":    scraper.Pattern("CUDA lines (12, 10.2, 11.x, 12.x;13.x)", `\d+(?:\.(?:\d+|x))?(?:;\d+(?:\.(?:\d+|x))?)*`),
		"min_linux_driver":   driver,
		"min_windows_driver": driver,
		"release_date":       scraper.DateText,
	}}
}

// Canaries implements scraper.Canaried: rows of NVIDIA's cuDNN support
// matrices.
func (s *Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.CUDNNCanary("9.0.0", "12", "525.60.13"),
		scraper.CUDNNCanary("8.9.1", "11", "450.80.02"),
	}
}
