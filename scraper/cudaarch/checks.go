package cudaarch

import "github.com/cudb/cudb/scraper"

// Fields implements scraper.Fielded.
func (s *Source) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{"csv": {
		"cuda_version": scraper.Dotted,
		"min_cc":       scraper.OrEmpty(scraper.Capability),
		"max_cc":       scraper.OrEmpty(scraper.Capability),
		"min_sm":       scraper.OrEmpty(scraper.SM),
		"max_sm":       scraper.OrEmpty(scraper.SM),
	}}
}

// Canaries implements scraper.Canaried: the architecture range of two
// toolkits that dropped architectures.
func (s *Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.CUDAArchCanary("12.0", "sm_50", "sm_90a"),
		scraper.CUDAArchCanary("11.0", "sm_35", "sm_80"),
	}
}
