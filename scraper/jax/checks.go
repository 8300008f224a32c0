package jax

import (
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Fields implements scraper.Fielded.
func (Source) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{
		"build_versions": {"jax_version": scraper.PEP440},
		"extra_require":  {"jax_version": scraper.PEP440},
		"nvidia_pin":     {"jax_version": scraper.PEP440},
		"driver_floor":   {"min_driver": scraper.Driver, "cuda_major": scraper.Dotted, "release": scraper.PEP440},
		"install_wheel":  {"built_cuda": scraper.Dotted, "built_cudnn": scraper.Dotted, "built_nccl": scraper.Dotted, "release": scraper.PEP440},
	}
}

// Canaries implements scraper.Canaried: jax 0.4.26's CUDA 12 floors.
func (Source) Canaries() []scraper.Canary {
	k := db.BuildKey{Component: "jax", Version: "0.4.26", Variant: "cuda12", Platform: "linux"}
	return []scraper.Canary{
		scraper.RequirementCanary(k, "cudnn", db.KindMinimum, ">=8.9"),
		scraper.RequirementCanary(k, "cuda", db.KindMinimum, ">=12.1"),
	}
}
