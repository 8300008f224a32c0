package pytorch

import (
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// Field grammars and canary facts of the PyTorch sources (scraper.Fielded,
// scraper.Canaried). The canaries are torch 2.1.0's cuDNN and pairings as
// each document states them.

func torch(version, variant, platform, channel string) db.BuildKey {
	return db.BuildKey{Component: "torch", Version: version, Variant: variant, Platform: platform, Channel: channel}
}

// Fields implements scraper.Fielded.
func (Lockfiles) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{
		"pins":         {"torch_version": scraper.PEP440, "pinned_version": scraper.OrEmpty(scraper.PEP440)},
		"domain_pairs": {"torch_version": scraper.PEP440, "torchvision": scraper.OrEmpty(scraper.PEP440), "torchaudio": scraper.OrEmpty(scraper.PEP440)},
	}
}

// Canaries implements scraper.Canaried.
func (Lockfiles) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.RequirementCanary(torch("2.1.0", "cu121", "linux", ""), "cudnn", db.KindPin, "8.9.2.26"),
		scraper.RequirementCanary(torch("2.1.0", "cu121", "linux", ""), "nvidia-cudnn-cu12", db.KindPin, "==8.9.2.26"),
	}
}

// Canaries implements scraper.Canaried.
func (PreviousVersions) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.BuildCanary(torch("2.0.0", "cu117", "linux", "")),
		scraper.RequirementCanary(torch("2.1.0", "cu121", "linux", "conda"), "torchvision", db.KindPaired, "0.16.0"),
	}
}

// Fields implements scraper.Fielded.
func (BuildMatrix) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{"toolchain": {
		"cuda_toolkit_full":        scraper.Dotted,
		"cudnn":                    scraper.DottedOrEmpty,
		"nccl":                     scraper.DottedOrEmpty,
		"cusparselt":               scraper.DottedOrEmpty,
		"installer_bundled_driver": scraper.Driver,
	}}
}

// Canaries implements scraper.Canaried.
func (BuildMatrix) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.RequirementCanary(torch("2.1.0", "cu121", "linux", ""), "cudnn", db.KindBundled, "8.9.2.26"),
		scraper.RequirementCanary(torch("2.1.0", "cu118", "linux", ""), "cudnn", db.KindBundled, "8.7.0.84"),
	}
}

// Canaries implements scraper.Canaried.
func (ReleaseMD) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.AttributeCanary("torch", "2.1", "cudnn.cu121", "8.9.2.26"),
		scraper.AttributeCanary("torch", "2.1", "cudnn.cu118", "8.7.0.84"),
	}
}

// Fields implements scraper.Fielded.
func (Domains) Fields() map[string]map[string]scraper.Grammar {
	return map[string]map[string]scraper.Grammar{
		"torchvision": {"torch": scraper.VersionText, "torchvision": scraper.VersionText},
		"torchaudio":  {"torch": scraper.VersionText, "torchaudio": scraper.VersionText},
	}
}

// Canaries implements scraper.Canaried.
func (Domains) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.AttributeCanary("torch", "1.10", "torchvision", "0.11"),
		scraper.RequirementCanary(torch("1.10.0", db.AnyBuild, db.AnyBuild, ""), "torchaudio", db.KindPaired, "0.10.0"),
	}
}

// Canaries implements scraper.Canaried.
func (Moi90) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.RequirementCanary(torch("2.1.0", "cu121", "linux", "conda"), "cudnn", db.KindBundled, "8.9.2"),
		scraper.RequirementCanary(torch("2.1.0", "cu118", "linux", "conda"), "cudnn", db.KindBundled, "8.7.0"),
	}
}

// Canaries implements scraper.Canaried: wheels of the captured index.
func (WheelIndex) Canaries() []scraper.Canary {
	return []scraper.Canary{
		scraper.BuildCanary(torch("1.7.0", "cu110", "linux", "")),
		scraper.BuildCanary(torch("1.7.1", "cu101", "windows", "")),
	}
}
