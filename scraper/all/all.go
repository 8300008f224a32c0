// Package all is the one list of cudb's sources. It imports every source
// package, and the order of Sources is the precedence: when two sources
// state the same fact differently, the earlier one is kept and the
// disagreement is recorded as a conflict (db check lists them).
//
// Adding a source is one package under scraper/ and one line here; a test
// (TestEverySourceIsListed) fails when a package under scraper/ defines a
// source this list does not name.
package all

import (
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/cudaarch"
	"github.com/cudb/cudb/scraper/cudadriver"
	"github.com/cudb/cudb/scraper/cudnn"
	"github.com/cudb/cudb/scraper/driverbranch"
	"github.com/cudb/cudb/scraper/gpus"
	"github.com/cudb/cudb/scraper/jax"
	"github.com/cudb/cudb/scraper/leads"
	"github.com/cudb/cudb/scraper/ngc"
	"github.com/cudb/cudb/scraper/onnxruntime"
	"github.com/cudb/cudb/scraper/pytorch"
	"github.com/cudb/cudb/scraper/redist"
	"github.com/cudb/cudb/scraper/tensorflow"
)

// Sources returns every source, earliest (highest precedence) first. Each
// call returns fresh values, so callers may keep per-run state in them.
func Sources() []scraper.Source {
	return []scraper.Source{
		// Framework sources state their own builds and pins first.
		tensorflow.Source{},
		jax.Source{},
		onnxruntime.Source{},

		// The PyTorch family, split so that db.Merge records where its
		// documents disagree:
		//  1. lockfiles: what the published PyPI wheels declare
		//     (Requires-Dist as recorded by lock files and quoted
		//     metadata) beats any build script or documentation, which
		//     can describe a branch rather than the upload.
		//  0. wheel-index: download.pytorch.org's index is the truth about
		//     which builds exist (variant × Python tag × platform).
		pytorch.WheelIndex{},
		pytorch.Lockfiles{},
		//  2. previous-versions: PyTorch's own install commands per
		//     release are the authority on variants, index URLs and
		//     domain pairings up to 2.3.
		pytorch.PreviousVersions{},
		//  3. release-md: RELEASE.md's per-minor rows, written by the
		//     release team from the release branch (cuDNN and NCCL per
		//     CUDA, the variant set, the arch lists): release evidence,
		//     so above the build matrix.
		pytorch.ReleaseMD{},
		//  4. build-matrix: facts derived from build scripts and the
		//     getting-started generator; complete for 2.4+ but an
		//     approximation (forks, main-branch and nightly snapshots)
		//     where the others are silent. Its release-branch rows are
		//     release evidence too.
		pytorch.BuildMatrix{},
		//  5. domains: torchvision/torchaudio tables, per minor or patch.
		pytorch.Domains{},
		//  6. moi90: third-party measurements of conda packages.
		pytorch.Moi90{},

		// NVIDIA's own tables.
		cudadriver.New(),
		cudnn.New(),
		gpus.New(),
		cudaarch.New(),
		driverbranch.New(),
		// NVIDIA's redist manifests: machine-readable, but they state what
		// a release ships (its bundled driver, its CUDA variants), not the
		// minimums the documents above state, so they fill what those
		// leave empty (release dates, toolkits and cuDNN releases no table
		// names) and any difference is a conflict.
		redist.Source{},
		// NVIDIA's container release notes: what each NGC image release
		// carries and the driver it needs. Facts of their own component
		// ("ngc"), so nothing above states them.
		ngc.Source{},

		// Last: releases public evidence shows that no source above
		// describes yet ("known release, facts pending"); any fact source
		// naming the same release wins.
		leads.Source{},
	}
}
