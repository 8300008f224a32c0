package gpus

import "github.com/cudb/cudb/scraper"

// Fields implements scraper.Fielded.
func (s *Source) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{"csv": {"compute_capability": scraper.Capability}}
}

// Canaries implements scraper.Canaried: GPUs of three generations.
func (s *Source) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.GPUCanary("NVIDIA H100", "9.0"),
		scraper.GPUCanary("GeForce RTX 3090", "8.6"),
		scraper.GPUCanary("Tesla K80", "3.7"),
	}
}
