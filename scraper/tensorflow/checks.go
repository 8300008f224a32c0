package tensorflow

import (
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Fields implements scraper.Fielded.
func (Source) Fields() map[string]map[string]scraper.Grammar {
	tested := map[string]scraper.Grammar{"version": scraper.PEP440, "cuda": scraper.DottedOrEmpty, "cudnn": scraper.DottedOrEmpty}
	return map[string]map[string]scraper.Grammar{
		"tested_build":         tested,
		"tested_build_history": tested,
		"driver_floor":         {"min_driver": scraper.Driver, "cuda": scraper.Dotted},
		"and_cuda_pin":         {"pinned_spec": scraper.Specifier},
	}
}

// Canaries implements scraper.Canaried: tested build configurations of
// the install page.
func (Source) Canaries() []scraper.Canary {
	k := func(v, variant string) db.BuildKey {
		return db.BuildKey{Component: "tensorflow", Version: v, Variant: variant, Platform: "linux"}
	}
	return []scraper.Canary{
		scraper.RequirementCanary(k("2.14.0", "cuda11"), "cuda", db.KindTested, "11.8"),
		scraper.RequirementCanary(k("2.14.0", "cuda11"), "cudnn", db.KindTested, "8.7"),
		scraper.RequirementCanary(k("2.15.0", "cuda12"), "cuda", db.KindTested, "12.2"),
	}
}
