package onnxruntime

import (
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Fields implements scraper.Fielded: the CUDA cells are version cells
// (often annotated), the page's own table holds plain versions.
func (Source) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{
		"requirements_csv":   {"cuda": scraper.VersionText},
		"requirements_table": {"cuda": scraper.DottedOrEmpty},
		"requirements_page":  {"cuda": scraper.VersionText},
		"install":            {"cuda_major": scraper.Pattern("a CUDA major", `^[0-9]{1,2}$`)},
	}
}

// Canaries implements scraper.Canaried: rows of the CUDA execution
// provider's requirements table.
func (Source) Canaries() []scraper.Canary {
	k := func(v, variant, platform string) db.BuildKey {
		return db.BuildKey{Component: "onnxruntime-gpu", Version: v, Variant: variant, Platform: platform}
	}
	return []scraper.Canary{
		scraper.RequirementCanary(k("1.17.0", "cuda12", ""), "cudnn", db.KindTested, "8.9.2.26"),
		// 1.16 has a Windows cuDNN of its own: a Linux and a Windows build.
		scraper.RequirementCanary(k("1.16.0", "cuda11", "linux"), "cuda", db.KindTested, "11.8"),
		scraper.RequirementCanary(k("1.16.0", "cuda11", "windows"), "cudnn", db.KindTested, "8.5.0.96"),
	}
}
