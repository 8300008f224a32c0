package driverbranch

import "github.com/cudb/cudb/scraper"

// Fields implements scraper.Fielded.
func (s *Source) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{"csv": {
		"branch":                      scraper.Pattern("a driver branch (R535)", `R\d{3}`),
		"max_cuda_from_toolkit_table": scraper.DottedOrEmpty,
		"nvidia_smi_cuda_observed":    scraper.DottedOrEmpty,
	}}
}

// Canaries implements scraper.Canaried.
func (s *Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.DriverBranchCanary("535", "12.2"),
		scraper.DriverBranchCanary("470", "11.4"),
	}
}
